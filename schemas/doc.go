// Package schemas embeds the Kubernetes OpenAPI definitions the resolver compiles `$ref`s
// against: one bundle per Kubernetes minor, from 1.12 (the oldest the Python tool ships
// bundles of) to the newest release, each taken from the newest patch release of that minor.
//
// # Layout
//
// A bundle is data/<minor>.bundle: an index (the definition names, sorted, and where each
// lies) and a manifest recording the format version, the Kubernetes release and module, the
// SHA-256 of every source file, for releases before 1.23 the release whose defaults were
// borrowed, every Go module read (module@version and go.sum hash), the classification of
// every property-less object (Source.Objects) and the count of each constraint keyword
// imported. The definitions themselves lie in one shared pool, data/shared.pool, each
// distinct byte string once and stored as it is: consecutive minors share most definitions
// byte for byte, so every minor is read in place, nothing to inflate. Regenerating
// reproduces every bundle and the pool byte for byte (with the same Go release). The format
// is defined in internal/bundlefmt (the module's, shared with the generator).
//
// Every minor stores each definition as published (below), compact with sorted keys, split
// losslessly in two: Bundle.Definition returns it without the descriptions of its schema
// nodes, and Bundle.Descriptions returns those, keyed by JSON pointer; put back
// (bundlefmt.JoinDescriptions), they give the definition byte for byte. A compile that
// removes descriptions never reads them. Nothing a compile does is stored: the resolver
// imports each definition and makes it structural for the target minor at compile time, so
// a change to a structural rule changes every minor's output with no data to regenerate.
// `make schemas-repack` (schemagen -repack) writes the bundles anew from the definitions they
// hold, downloading nothing.
//
// Definitions are the `definitions` of api/openapi-spec/swagger.json, with defaults and what
// the Go types say (below) added. The v2 document carries none, so wherever a property (or its items or
// additionalProperties, at any depth) lacks "default" and the same position in the
// release's OpenAPI v3 documents (api/openapi-spec/v3/*.json, 1.23 and later) has one, it
// is copied in. This brings e.g. `protocol: TCP` to ContainerPort, ServicePort and
// EndpointPort and, from 1.34, `name: ""` to LocalObjectReference. It also brings the zero
// values v3 records for required fields ("default": 0, "", {}); consumers decide which
// defaults to keep. Releases 1.12 to 1.22 publish no v3 documents: they borrow the 1.23
// defaults for the definitions and properties they share with it, where the types agree
// (Source.DefaultsFrom names the release).
//
// # What the Go types say
//
// The generator also reads the Go source of the modules the definitions come from
// (k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver, k8s.io/kube-aggregator at
// v0.MINOR.PATCH, or the newest patch below it the module proxy serves) with go/parser. A
// definition maps to exactly one declaration: io.k8s.api.core.v1.PodSpec is type PodSpec of
// package k8s.io/api/core/v1 (or of the package whose +k8s:openapi-model-package names it),
// properties map to fields by json tag, embedded structs followed.
//
// Property-less objects (type object, or no type, and nothing inside) are classified from
// their declaration, never from their name: arbitrary JSON (ObjectArbitrary: a MarshalJSON,
// UnmarshalJSON or OpenAPISchemaType method of its own, or a non-struct underlying type) gets
// "x-kubernetes-preserve-unknown-fields": true; an empty struct (ObjectEmpty: no JSON fields)
// stays "type": "object", which the apiserver prunes. A property-less definition whose struct
// has JSON fields, or one without a declaration, fails the generator. An object definition
// whose Go type marshals itself is arbitrary JSON whatever properties the swagger lists
// (runtime.RawExtension before 1.16 lists "Raw", which is not its JSON); they are removed.
//
// Validation markers become JSON Schema keywords on the property they are declared on (items
// or map values for +k8s:eachVal; type-level markers such as +k8s:enum wherever the type is
// used): +k8s:minimum, +k8s:maximum, +k8s:maxItems, +k8s:maxLength, +k8s:format (only formats
// the apiserver of the minor knows, KnownFormat), +k8s:enum (the type's constants),
// +k8s:required on a non-pointer string or list (minLength or minItems 1, unless a real
// default fills it), and +kubebuilder:validation: Minimum, Maximum, ExclusiveMinimum,
// ExclusiveMaximum, MinItems, MaxItems, MinLength, MaxLength, Format, Pattern, Enum. +k8s:beta
// wrappers are taken off (enforced by default since 1.36). Left out: +k8s:alpha (run
// shadowed, never enforced; whether a hand-written check enforces the same rule the types
// cannot say), feature-gated rules (+k8s:ifEnabled, +k8s:ifDisabled), transition rules and
// immutability (+k8s:immutable, +k8s:update, +k8s:monotonic: a template must stay editable),
// what a structural schema cannot express (unions, cross-field rules, +k8s:item selectors,
// +k8s:eachKey, +k8s:maxBytes, +k8s:subfield), a rule rejecting the zero value of an optional
// non-pointer field (Kubernetes takes it for unset), and Kubernetes defaults
// beyond list-map keys. docs/versions.md ("Validation from the Go types") lists the same.
//
// # Loading
//
// Each bundle is embedded as a string (bundles.go, which the generator writes beside data/),
// so it is read where it lies: an embed.FS file can only be read by copying it. Versions,
// Latest and Canonical read only that list. Load opens the bundle of a version once per
// process: it checks the index and decodes the manifest's header in place, without copying
// anything (the rest of the manifest is decoded when Source or Validate asks).
// Bundle.Definition then reads the definition where it lies in the pool, so compiling a CRD
// touches only the definitions it reaches. Sizes are capped; every chunk's CRC-32 is checked
// by Bundle.Validate, which checks a whole bundle (every $ref resolves, sorted names,
// descriptions that name schema nodes, provenance); the tests run it on every embedded
// bundle, so Load does not.
//
// # Regenerating
//
// versions.txt pins one k8s.io/kubernetes release per minor. `make schemas` (or
// `go generate ./schemas`) downloads each pinned module, one at a time, through the Go
// module proxy into a private temporary module cache, rewrites data/ (the bundles it built,
// then the pool and every bundle, which read from it) and bundles.go,
// deletes the downloads and runs the package tests. `make schemas ONLY=1.30` rebuilds one bundle.
// Adding a Kubernetes release is one command, which finds the newest patch the proxy
// serves, pins it and builds its bundle:
//
//	make schemas-add MINOR=1.38
//
// `make schemas-bump` re-pins every minor to its newest patch and rebuilds those that
// changed. The generator is tools/schemagen, in the tools module (so `go install ./...`
// never builds it); its doc comment lists its flags.
package schemas
