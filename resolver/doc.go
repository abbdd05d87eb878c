// Package resolver compiles CustomResourceDefinition templates whose
// schemas contain $ref pointers into self-contained structural CRDs, the
// only kind the apiserver accepts.
//
// The public API is one constructor and one verb:
//
//	c, err := resolver.New(resolver.Options{KubeVersion: "1.30"})
//	res, err := c.Compile("templates/widget.yaml", src)
//	out, err := res.YAML()
//
// Errors come back as an ErrorList of *Error, each with a file:line:col
// position, the JSON pointer of the offending node, the $ref, and a cause
// wrapping ErrUnresolved, ErrCycle, ErrNotStructural, ErrInput,
// ErrOutsideRoot, ErrNetwork or ErrPatch (match with errors.Is).
//
// # Load
//
// The template (YAML or JSON, one or more documents) is parsed into plain
// values (map[string]any, []any, string, bool, json.Number, nil) with the
// position of every node kept beside it. Input is refused before it can do
// harm: more than MaxInputBytes, a NUL byte, invalid UTF-8, a key written
// twice, or more values than a sane file holds after alias expansion (YAML
// alias bombs).
//
// # Resolve
//
// Every $ref in a schema is replaced by what it points at:
//
//	io.k8s.api.core.v1.PodSpec          the document's own definitions, then the bundle of KubeVersion
//	#/definitions/X                     the same, written as a pointer
//	#/any/pointer                       a pointer into the same document
//	other.yaml#/definitions/X           a file relative to the referring file, JSON pointer inside
//	../x.json#/components/schemas/Y     (OpenAPI 3 documents work the same way)
//	python://k8s_crd_resolver/schemata/k8s-1.21.1.json#/definitions/X
//	                                    the embedded 1.21 bundle (the Python tool's form)
//	python://pkg/path/file.yaml#/ptr    pkg/path/file.yaml under WorkDir (the Python tool's form)
//	https://raw.githubusercontent.com/kubernetes/kubernetes/v1.X.Y/api/openapi-spec/swagger.json#/definitions/X
//	                                    the embedded 1.X bundle; nothing is fetched
//
// Any other URL is refused: the compiler never uses the network. File refs
// may not leave Options.Root unless AllowOutsideRoot is set. Keys written
// beside a $ref override the referenced schema's; properties merge name by
// name. Resolved targets are cached per Compiler and shared between uses
// until the finished tree is copied once, so a PodSpec referenced five
// times is read and resolved once. A chain of refs that leads back to
// itself is ErrCycle, naming the chain, or with RecursionPreserve is cut
// with x-kubernetes-preserve-unknown-fields.
//
// Definitions from the Kubernetes bundles are imported first: types the
// swagger cannot express in a CRD (IntOrString, Quantity, RawExtension,
// apiextensions JSON, FieldsV1) get their structural form, extensions other
// than the CRD-legal x-kubernetes-* ones are dropped, and Kubernetes'
// defaults are set aside (see Flatten). RemoveDescriptions and
// MaxDescriptionLength act on bundle text only; what you wrote stays.
//
// # Flatten
//
// A Walk with a Visitor then makes each openAPIV3Schema structural, as the
// apiserver's pkg/apiserver/schema and pkg/apis/apiextensions/validation
// require: allOf entries merged into their parent, int-or-string written
// the swagger way (format: int-or-string, type: [integer, string]) turned
// into x-kubernetes-int-or-string, types inferred or, where there is none,
// x-kubernetes-preserve-unknown-fields, formats the apiserver would not
// recognise dropped, uniqueItems turned into x-kubernetes-list-type: set,
// keywords a CRD may not hold (definitions, patternProperties,
// dependencies, additionalItems, additionalProperties: false) dropped with
// a warning, and the root metadata cut to what the apiserver allows.
//
// A key of an x-kubernetes-list-type: map list must be required or have a
// default. Where it is neither, the default Kubernetes itself applies
// (protocol: TCP, and from 1.34 imagePullSecrets[].name: "") is taken from
// the bundle; with none to take the list becomes atomic, with a warning:
// a default is never invented. No other Kubernetes default is copied into
// the CRD, since the apiserver would then write it into every object.
//
// # Check
//
// Nothing here imports k8s.io/apiextensions-apiserver: linking its
// validation costs every process tens of milliseconds before main runs.
// The tests run every golden output through the apiserver's own
// ValidateCustomResourceDefinition, structural checks and pruning
// (internal/oracle), and the k8s.io/api round-trip fixtures through a
// compiled CRD for every embedded version (hack/fidelity.sh).
//
// # Emit
//
// EncodeYAML writes sorted keys, block style and two-space indents; the
// same input gives the same bytes on every machine. A JSON patch (RFC 6902,
// Options.Patch) applies to each compiled document after resolution.
//
// A Compiler is not safe for concurrent use; use one per goroutine.
package resolver
