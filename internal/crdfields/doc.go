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
// compiler never links k8s.io/apiextensions-apiserver, so the fields are
// read from the embedded bundles: one walk (readFields) turns a minor's
// apiextensions definitions into a graph of fields (fieldSpec), schemas
// and their unions included, that every judging here follows. BadFields
// follows v1's from the newest minor (today's Go types) and v1beta1's from
// 1.21 (below), stopping at schemas; TestFieldTables holds both against
// the Go types by reflection.
//
// # Minors
//
// Check and MinorProblems judge a CRD by what its target minor knows (a
// Minor: the same graph, read from the target's bundle, once): a
// field or schema keyword absent from the minor's own apiextensions
// definitions in its embedded bundle, or kept off there by a feature gate
// (gatedFields, a small table with its sources), is named with the first
// minor that has it on by default; so is an apiVersion the minor does not
// serve. NodeProblems judges one schema node the same way (the compiler
// asks it of every node written in a file a $ref reaches, so a field is
// judged alike whatever file holds it). Keeps and FeatureOnByDefault
// answer the same questions one field or gate at a time.
//
// # Why v1beta1 comes from 1.21
//
// No bundle publishes today's v1beta1 Go types: the minors that serve
// v1beta1 (up to 1.21) publish it as it was then, and the newer minors do
// not publish it at all. Since a v1beta1 CRD for 1.22 or later is an error
// of its own (Check), 1.21's definitions are the most fields any
// apiserver a v1beta1 CRD may target decodes (an older minor lacks some,
// which the minor walk names), and its table is read from 1.21's bundle. Where they differ from today's types, 1.21 is the one an
// apiserver runs: selectableFields (1.30), status.observedGeneration and
// managedFields[].subresource (1.22) are unknown fields of a v1beta1 CRD,
// metadata.clusterName (dropped in 1.25) is not; TestFieldTables lists
// each difference.
package crdfields
