// Package schemas embeds the Kubernetes OpenAPI definitions the resolver compiles `$ref`s
// against: one bundle per Kubernetes minor, from 1.12 (the oldest the Python tool ships
// bundles of) to the newest release, each taken from the newest patch release of that minor.
//
// # Layout
//
// A bundle is data/<minor>.zip, a zip archive with one deflated entry per OpenAPI v2
// definition, "definitions/<name>" (e.g. "definitions/io.k8s.api.core.v1.PodSpec"), holding
// that definition's minified JSON, and a "manifest.json" entry recording the format
// version, the Kubernetes release and module, the SHA-256 of every source file and, for
// releases before 1.23, the release whose defaults were borrowed. Entries are sorted and
// carry a fixed modification time, so regenerating a bundle reproduces it byte for byte
// (with the same Go release). The format is defined in internal/bundlefmt.
//
// Definitions are the `definitions` of api/openapi-spec/swagger.json, unchanged ($refs,
// IntOrString, x-kubernetes-* extensions and all; the resolver normalises), except for
// defaults. The v2 document carries none, so wherever a property (or its items or
// additionalProperties, at any depth) lacks "default" and the same position in the
// release's OpenAPI v3 documents (api/openapi-spec/v3/*.json, 1.23 and later) has one, it
// is copied in. This brings e.g. `protocol: TCP` to ContainerPort, ServicePort and
// EndpointPort and, from 1.34, `name: ""` to LocalObjectReference. It also brings the zero
// values v3 records for required fields ("default": 0, "", {}); consumers decide which
// defaults to keep. Releases 1.12 to 1.22 publish no v3 documents: they borrow the 1.23
// defaults for the definitions and properties they share with it, where the types agree
// (Source.DefaultsFrom names the release).
//
// # Loading
//
// Versions, Latest and Canonical read only the embedded directory listing. Load opens the
// bundle of a version once per process: it parses the zip's central directory (the index)
// and the small manifest, straight from the binary's read-only data, without copying or
// decompressing any definition. Bundle.Definition then decompresses the one entry it is
// asked for, so compiling a CRD costs only the definitions it reaches. Decompressed sizes
// are capped, and the zip reader checks each entry's CRC-32. Bundle.Validate checks a whole
// bundle (every $ref resolves, sorted entries, provenance); the tests run it on every
// embedded bundle, so Load does not.
//
// # Regenerating
//
// versions.txt pins one k8s.io/kubernetes release per minor. `make schemas` (or
// `go generate ./schemas`) downloads each pinned module, one at a time, through the Go
// module proxy into a private temporary module cache, rewrites data/, deletes the
// downloads and runs the package tests. `make schemas ONLY=1.30` rebuilds one bundle.
// Adding a Kubernetes release is one command, which finds the newest patch the proxy
// serves, pins it and builds its bundle:
//
//	make schemas-add MINOR=1.38
//
// `make schemas-bump` re-pins every minor to its newest patch and rebuilds those that
// changed. The generator is internal/gen; its doc comment lists its flags.
package schemas
