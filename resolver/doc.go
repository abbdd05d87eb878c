// Package resolver compiles CustomResourceDefinition templates whose
// schemas contain $ref pointers into self-contained structural CRDs, the
// only kind the apiserver accepts.
//
// The compile path is one constructor and one verb:
//
//	c, err := resolver.New(resolver.Options{KubeVersion: "1.30"})
//	res, err := c.Compile("templates/widget.yaml", src)
//	out, err := res.YAML()
//
// CompilePatched is Compile with a JSON patch of the template's own
// (ParsePatch) in place of Options.Patch, and a Source (Parse: a file
// parsed once, for a caller that must look into it before it compiles it)
// it does not parse again. Beside the compile path the package exports
// only what its callers share with it: the budget's unit and bounds (Size,
// DefaultBudget, MaxInputBytes) and the error and position types, named
// here for the compile's callers and defined in internal/docread (the one
// reader of every YAML or JSON file the tool reads); KeptByMinor (a CRD as
// a minor keeps it, for validate); and FirstRef (where a file holds a
// template rather than a compiled CRD, for diff, export and validate).
//
// Errors come back as an ErrorList of *Error, each with a file:line:col
// position, the JSON pointer of the offending node, the $ref, and a cause
// wrapping ErrUnresolved, ErrCycle, ErrNotStructural, ErrInput,
// ErrOutsideRoot, ErrNetwork, ErrPatch or ErrBudget (match with
// errors.Is).
//
// # Load
//
// The template (YAML or JSON, one or more documents) is parsed into plain
// values (map[string]any, []any, string, bool, json.Number, nil) with the
// position of every node kept beside it. Input is refused before it can do
// harm: more than MaxInputBytes, a NUL byte, invalid UTF-8, a key written
// twice, or more than the budget allows once YAML aliases are expanded
// (alias bombs; see Budget).
//
// There is one reader per format: text that starts like JSON ({ or [)
// goes through a strict JSON reader that gives what yaml.v3 gives for JSON
// both read, and also reads JSON that YAML cannot (a "\/" escape, tab
// indentation): every key and value has its line:col, a key written twice
// is an error at the second, and several top-level values are several
// documents, as in a YAML stream (anything else after a value is an error
// at its position). Everything else, and flow YAML that only starts like
// JSON, is read by yaml.v3.
//
// Numbers are checked as the apiserver will decode them, as int64 when
// they are integers and float64 otherwise: NaN and infinities (.nan,
// .inf), floats beyond float64 (1e400, -1e999; yaml.v3 alone would read
// them as strings) and integers beyond int64 are errors at their
// position, even where the apiserver would fall back to a rounded
// float64, so no large value changes on its way to the cluster. (A
// number too small for float64, 1e-400, the apiserver reads as zero
// without complaint; it is kept as written.)
//
// A template's CRD fields outside its schemas must be fields of the
// apiextensions.k8s.io/v1 (or v1beta1) Go types, as the apiserver's strict
// decoding (kubectl's default) requires: a misspelt scpoe,
// spec.versions[0].servd or metadata.lables is an error at the key, with
// the nearest field suggested. The table of fields (ObjectMeta, names,
// versions, subresources, printer columns, selectable fields, conversion,
// status) is read from the embedded bundles' apiextensions definitions by
// internal/crdfields, in the one walk the judging by minor below follows;
// a test there compares it with the Go types, which the compiler itself
// never links.
//
// The template is also judged by what its target minor knows
// (internal/crdfields): a field or schema keyword it writes that the
// minor's own apiextensions definitions in its bundle lack, or that a
// feature gate keeps off by default there (a small table with its
// sources), is an error at the key naming the first minor that has it on;
// so is apiextensions.k8s.io/v1 for a minor serving only v1beta1, and
// v1beta1 for a minor serving only v1 (1.22 on; a warning with
// Options.AllowRemovedAPI). crdfields.Check does the same for validate
// --k8s-version. A schema node written in a file a $ref reaches, or in
// the template's own definitions, is judged the same at its key there
// (judgeNode, as it is resolved), and a field a JSON patch writes at the
// patch operation (minor.go): what a compile writes for a minor is what
// validate --k8s-version of it accepts, whatever path a field came by.
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
// A $ref must point at a schema: a mapping whose keys are all JSON Schema
// or OpenAPI keywords or x- extensions, each holding a value of its type
// (type a string or a list of them, properties a mapping, required a
// list...). A $ref to a document (#, another file's CRD), to its spec or
// metadata, to a properties mapping, a list or a string is an error at the
// $ref. Every definition of every embedded bundle passes this rule.
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
// A problem inside a bundle definition has no place in the user's files:
// it is reported at the user's $ref that led into the bundle, with the
// chain of definitions from there (CustomResourceValidation ->
// .openAPIV3Schema -> JSONSchemaProps -> .allOf[*] -> JSONSchemaProps).
// An error comes once per such $ref and problem (a cycle, however many
// paths close it, is one), a warning once per problem (per cycle, or per
// definition and message), at the first $ref by position, with the
// shortest chain. A cached definition keeps its warnings relative to
// itself and replays them at every use with the chain that led there.
//
// Definitions from the Kubernetes bundles are imported first: types the
// swagger cannot express in a CRD (IntOrString, Quantity, RawExtension,
// apiextensions JSON, FieldsV1) get their structural form, extensions other
// than the CRD-legal x-kubernetes-* ones are dropped, and Kubernetes'
// defaults are set aside (see Flatten). RemoveDescriptions and
// MaxDescriptionLength act on bundle text only; what you wrote stays. Every
// bundle stores its definitions as the release publishes them, their
// descriptions apart: a compile decodes one (encoding/json), puts its
// descriptions back unless RemoveDescriptions, and imports it. Every
// bundle definition then gets the whole structural pass for the target's
// minor, as the template's own schemas do, whichever minor its bundle is.
//
// A definition's description documents the field that refers to it: a
// property that is a $ref and has no description of its own gets the
// target's. A map value (additionalProperties) or list item (items)
// written as a $ref does not: the enclosing property documents it. Text
// written beside the $ref stays in both places.
//
// # Fit
//
// With Options.FitDescriptions, each compiled CRD keeps every description
// its author wrote and as many of Kubernetes' as let its compact JSON stay
// within the limit: shallowest first (depth counts properties from the
// schema's root; items and additionalProperties add none), within a depth
// in the order they stand in the output, while the next one fits. The
// template is compiled once, with every description; the compile logs
// which texts a bundle definition brought in that the author wrote
// nowhere (Kubernetes' descriptions), and one walk takes those out of the
// CRD's schemas, copying only the maps on the way to them, which gives
// what a compile with RemoveDescriptions would. The fitted CRD is that
// bare CRD with the kept descriptions added back, copied only on the way
// to them. A CRD larger than the limit even without Kubernetes'
// descriptions is the bare CRD, and Document.Descriptions says it does
// not fit. The key x-descriptions (none, all or a depth) beside a $ref in
// a template's schema bounds how deep Kubernetes' descriptions go under
// it, with or without a limit, and is never written out (fit.go).
//
// # Flatten
//
// A walk of every schema node (walkSchemas, with a visitor: walk.go) then
// makes each openAPIV3Schema structural, as the
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
// A v1beta1 CRD may hold defaults only with spec.preserveUnknownFields:
// false (the apiservers serving v1beta1, 1.16-1.21, refuse them beside
// true, its v1beta1 default). A v1beta1 template that does not write it
// and compiles to a schema with a default gets false, with a warning. One
// that writes true keeps it: list-maps that only a Kubernetes default made
// valid become atomic lists without it, with a warning, and a default the
// author wrote is an error at preserveUnknownFields.
//
// Compiling for Kubernetes before 1.16 (KubeVersion 1.12 to 1.15) follows
// those apiservers: CRD schemas have no list or map types and no defaults
// there, so the x-kubernetes-list-type, -list-map-keys and -map-type
// extensions are dropped (the template's own with a warning) and list-map
// keys get no default; a template's own default is kept with a warning, as
// is an apiextensions.k8s.io/v1 template (those minors serve only v1beta1).
// For 1.16 only x-kubernetes-map-type goes, in the same way (map types
// came in 1.17). Before 1.15 the compiler writes none of
// x-kubernetes-int-or-string, -preserve-unknown-fields and
// -embedded-resource (1.15's, as structural schemas are): an
// int-or-string is its anyOf alone (beforeExtensions). Before 1.15 a default is refused whatever
// preserveUnknownFields says (a field those minors do not have), so the
// advice there is to remove the default.
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
// Result.YAML and WriteYAML write through internal/emit: sorted keys,
// block style and two-space indents; the same input gives the same bytes
// on every machine. Document.AppendJSON writes the compact JSON
// (internal/emit's AppendJSON), whose length the budget counts. A JSON patch (RFC 6902,
// Options.Patch) applies to each compiled document after resolution. The
// patched document must still be a CRD (apiextensions.k8s.io/v1 or
// v1beta1, kind CustomResourceDefinition, no unknown fields) with its
// schemas where the template had them (spec.validation, or every version);
// otherwise the error names the operation after which it stopped being
// one, found by applying the operations again one by one.
//
// # Budget
//
// One Compile may build at most Options.Budget (default DefaultBudget,
// 16 MiB) of compact JSON, the form the apiserver stores, and one value
// per 32 bytes of it. Counted as the work goes, never after rendering:
// every value read (the template, and each file a $ref reaches, once per
// compile, after YAML aliases are expanded), the full expanded size of
// every $ref target spliced into the template's schemas (measured once
// per shared subtree, since resolved targets are shared, not copied: a
// $ref standing for 10^20 values costs a few hundred steps to refuse),
// and what each JSON patch operation adds (measured before a copy is
// made). The compiled documents themselves, with the indentation their
// YAML will carry, are measured before the patch materialises them. A
// second count bounds the resolver's own work (definitions decoded,
// values copied, targets resolved: a cycle cut by RecursionPreserve
// cannot be shared, so each use is resolved again). Resolved schemas
// nest at most 2000 levels.
//
// Crossing the budget is an error wrapping ErrBudget at what crossed it:
// the $ref (and its position), the YAML alias being expanded, or the
// patch operation (its position, index, op and path). A real CRD needs a
// fraction of the default; raise it (the CLI's --budget 64Mi) only for a
// CRD that is really that large.
//
// # Reading the code
//
// A template goes through the files in this order, one stage each, as the
// data flow of the design has it:
//
//	compile.go      Options, New, Compile, CompilePatched: the template parsed, each document through the stages, the Result
//	source.go       Source and Parse: a file parsed once for a caller that must look into it first
//	(docread)       reading is internal/docread's: YAML (yaml.v3) or JSON (jsontext tokens) into values with positions,
//	                within the budget, with Position, Error, ErrorList, Size and the budget's counting
//	document.go     the stages of one document: checkTemplate -> resolveSchemas -> postSteps (its own fields: internal/crdfields)
//	target.go       what a $ref string points at (a bundle definition, a file, a pointer); pins.go: the Python tool's pinned forms
//	schemarule.go   what a $ref may point at: a schema, never a document, a properties mapping or a list
//	resolve.go      resolve: $refs replaced by their targets, resolved once per Compiler and shared
//	import.go       a bundle definition decoded, its descriptions put back, and imported; bundles.go: the embedded bundles
//	files.go        file targets, read through the one reader (internal/fileio)
//	walk.go         walkSchemas and its visitor: every schema node below a schema
//	structural.go   normalise: the structural pass, over the template's schemas and every bundle definition
//	v1beta1.go      the v1beta1 rules on defaults
//	patch.go        the JSON patch; minor.go: what a patch writes judged for the minor, and KeptByMinor
//	fit.go          FitDescriptions and x-descriptions: Kubernetes' descriptions kept shallowest first
//	budget.go       what a compile builds, measured as it goes (the budget itself is internal/docread's)
//	view.go         the shared view of a compiled CRD and AppendJSON; YAML and compact JSON are internal/emit's
//
// One compile's state is a run (run.go). Its diagnostics (diagnostics.go)
// are collected in one place wherever a stage raises them; chain.go says
// where a problem inside a bundle is reported: at the user's $ref, with the
// chain of definitions from there. errors.go holds the sentinel errors and
// the aliases of docread's Error, ErrorList, Position, Diagnostic and Size; suggest.go the "did you mean" of an
// unknown definition (internal/suggest finds the nearest name);
// patchversion.go the warning for a patch release newer than the bundle's.
//
// A Compiler is not safe for concurrent use; use one per goroutine.
package resolver
