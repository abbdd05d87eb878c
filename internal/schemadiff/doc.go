// Package schemadiff compares the schemas of two sets of CustomResourceDefinitions property
// by property and says, for each difference, whether custom resources already stored under
// the old schema stay readable and updatable under the new one.
//
// # Parse
//
// Parse reads a YAML (or JSON) stream of CRDs and keeps, per CRD and version, the
// openAPIV3Schema as decoded YAML. Documents that are not CRDs are skipped; a stream without
// any CRD is an error.
//
// # Compare
//
// Compare walks the old and the new schema of every CRD version both sides have, node by
// node: properties (".a.b"), list items ("[*]") and map values ("{*}"), the paths
// tools/crdcompare uses. A property added or removed is reported once, at the top of the
// subtree; nothing below it is compared. Every change gets a Kind and a classification,
// Breaking, for objects already stored, following what the apiserver does when a CRD's
// schema is updated:
//
//   - Reading a stored object never validates it. It is pruned (fields the schema does not
//     list are dropped, unless x-kubernetes-preserve-unknown-fields keeps them) and
//     defaulted, on every read from etcd as on every write. So a removed property, or
//     preserve-unknown-fields turned off, loses stored data: breaking. A new default shows
//     up on read in objects stored without the field: compatible.
//   - Every create and update is validated against the new schema. A change that makes a
//     value the old schema accepted invalid (a narrowed type, a tightened bound, length,
//     item limit, enum, pattern or format, a new rule, a new required field, a list type
//     that demands unique items or keys) is breaking: an object stored under the old schema
//     can hold that value.
//   - Validation ratcheting (KEP-4008: alpha in 1.28, beta and on by default from 1.30, GA in
//     1.33) lets an UPDATE through when the invalid part of the object is unchanged from
//     the stored object. What kube-apiserver v1.37.2 does, measured by integration
//     TestSchemaUpdate: value validations (type, bounds, lengths, item and property counts,
//     enum, pattern, format, rules that do not use oldSelf) are ratcheted per value;
//     required per object (an update that leaves the object listing the field unchanged
//     passes); a new property validated where the old schema kept unknown fields, per value;
//     a list that becomes a set or map list, when stored items only collide, per object (the
//     check is skipped on every update of an object whose stored list already breaks it).
//     Not ratcheted: an item stored without a key of a map list (every update fails, a
//     label-only one too; so is the new required on that key), rules that use oldSelf.
//     Change.Ratcheted marks the breaking changes ratcheting softens: updates that leave the
//     offending value alone pass on 1.30+ clusters, but creating the same object again (a
//     restore, a GitOps re-sync into a new cluster) still fails, and so does any update on
//     an older cluster or with the gate off. They stay breaking.
//   - The rules are the target minor's (CompareFor, RulesFor; Compare uses the newest
//     embedded minor's): before 1.30 validation ratcheting is off by default, so only what
//     the list-type check skips on its own is Ratcheted, and the reason of the rest says
//     that updates leaving the value unchanged fail too. A change of what the target drops
//     from a CRD (a schema keyword, a validation rule's field, selectableFields: absent
//     from its apiextensions definitions or gated off by default, as crdfields.Keeps
//     reads them; dropped, or the CRD refused under strict field validation) affects no
//     stored object there: compatible, with that reason.
//   - Making a list or an object atomic (x-kubernetes-list-type / x-kubernetes-map-type)
//     adds no validation, but server-side apply then replaces it whole: a second field
//     manager's apply that merged before now conflicts, and forced, drops what the first
//     manager owns. Breaking for objects more than one manager writes. The other way
//     (atomic to granular) refuses nothing: compatible.
//
// Descriptions are not changes: they are counted (Report.DescriptionsChanged).
//
// # Print
//
// Report.WriteText groups the changes for people: per CRD version, breaking first, added and
// removed properties of one parent on one line (".spec.scheduler.spec: +hostUsers,
// +resourceClaims"). The Report itself is the JSON form. Both are sorted: the same inputs
// give the same bytes.
package schemadiff
