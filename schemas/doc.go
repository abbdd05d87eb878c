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
// imported; then the definitions, deflated in chunks of about 16 KiB of consecutive
// definitions. From 1.16 on, the structures and descriptions (below) of every
// bundle lie in one shared pool instead, data/shared.pool, each distinct byte string once
// and stored as it is: consecutive minors share most definitions byte for byte (25 MB of
// them are 5.7 MB distinct), so every minor is read in place, nothing inflated, in less
// space than its deflated chunks took (8.1 MB of data, from 8.9). Regenerating reproduces
// every bundle and the pool byte for byte (with the same Go release). The format is defined
// in internal/bundlefmt (the module's, shared with the generator).
//
// From 1.16 on (Bundle.Normalized) a definition is stored as a compile needs it, not as the
// swagger has it: resolver.Prebuild imports it (IntOrString and Quantity in their structural
// form, extensions a CRD cannot hold dropped, Kubernetes' defaults under DefaultKey) and
// makes every schema node structural for the minor, but for what depends on other
// definitions. Its descriptions are kept apart, keyed by JSON pointer: a compile that
// removes descriptions never reads them. A compile runs the whole structural pass over
// every definition it uses, whatever its bundle stores. Bundles before 1.16 store the
// swagger's definitions whole. `make schemas-refragment` (schemagen -refragment) writes the
// bundles anew from the definitions they hold, downloading nothing, without the fragments
// (pre-rendered YAML) earlier bundles stored.
//
// Definitions are the `definitions` of api/openapi-spec/swagger.json (normalised as above
// from 1.16), with defaults and what the Go types say (below) added. The v2 document carries none, so wherever a property (or its items or
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
// or inflating anything (the rest of the manifest is decoded when Source or Validate asks).
// Bundle.Definition then reads the chunk the definition lies in (a pool chunk, in place;
// a deflated chunk, inflated once per process), so compiling a CRD costs only the chunks
// of the definitions it reaches. Sizes are capped and every deflated chunk's CRC-32 is checked when it
// is first inflated (a stored chunk's, in the binary, by Validate). Bundle.Validate checks a whole bundle (every $ref resolves, sorted names,
// descriptions that name schemas, provenance); the tests run it on every embedded bundle, so
// Load does not.
//
// # Regenerating
//
// versions.txt pins one k8s.io/kubernetes release per minor. `make schemas` (or
// `go generate ./schemas`) downloads each pinned module, one at a time, through the Go
// module proxy into a private temporary module cache, rewrites data/ (the bundles it built,
// then the pool and every bundle from 1.16 on, which read from it) and bundles.go,
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
