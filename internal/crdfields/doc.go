// Package crdfields judges the fields of a CustomResourceDefinition outside
// its schemas (and the schema keywords a Kubernetes minor lacks): what the
// apiserver would refuse or silently drop before it ever looks at a schema.
// The compiler (package resolver) judges every template with it, validate
// judges CRDs and keeps of them what a minor keeps (crdvalidate), and diff
// reads which keywords a minor keeps (schemadiff).
//
// # Fields
//
// BadFields lists the fields the apiextensions.k8s.io/v1 or v1beta1 Go
// types do not have (a misspelt scpoe, spec.versions[0].servd, with the
// nearest field suggested) and the values they cannot decode (served: yes),
// as the apiserver's strict decoding, kubectl's default, refuses them. The
// table of fields (fields.go) is written out by hand, since the compiler
// never links k8s.io/apiextensions-apiserver; TestFieldTables holds it
// against the Go types by reflection.
//
// # Minors
//
// Check and MinorProblems judge a CRD by what its target minor knows: a
// field or schema keyword absent from the minor's own apiextensions
// definitions in its embedded bundle, or kept off there by a feature gate
// (gatedFields, a small table with its sources), is named with the first
// minor that has it on by default; so is an apiVersion the minor does not
// serve. NodeProblems judges one schema node the same way (the compiler
// asks it of every node written in a file a $ref reaches, so a field is
// judged alike whatever file holds it). Keeps and FeatureOnByDefault
// answer the same questions one field or gate at a time.
//
// # Why two sources
//
// The table and the bundles agree on apiextensions.k8s.io/v1, but no
// bundle can stand for the v1beta1 Go types: the minors that serve v1beta1
// (up to 1.21) publish it without the fields the types gained later
// (selectableFields, 1.30), and the newer minors do not publish it at all.
// A v1beta1 template's selectableFields is a field of its types that no
// minor serving v1beta1 has: BadFields accepts it and the minor walk, which
// reports only what some minor has, leaves it alone.
package crdfields
