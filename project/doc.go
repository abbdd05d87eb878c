// Package project runs the resolver over a whole repository: it finds the
// project configuration, discovers the CRD templates, compiles them, and
// compares or writes the compiled CRDs in their output directories. It is
// the logic behind the build and check commands; it prints nothing and
// parses no flags.
//
// # Configuration
//
// Open walks up from the working directory to the first
// .crd-resolver.yaml (ConfigFileName) and reads it strictly: an unknown key
// is an error. Without one, the project is templates/*.yaml compiled into
// dist/, relative to the git top level (else the working directory). Paths
// in a configuration file are relative to the directory holding it.
//
// # Discovery
//
// Each template set expands its globs ("**" matches any number of
// directories). A file is a template when one of its documents has kind
// CustomResourceDefinition; other matched files, such as shared files that
// only hold definitions, are sources but never outputs. Patch files
// (NAME.patch.yaml, .yml or .json) are never templates: the one beside a
// template applies to it, unless the configuration names another.
//
// # Compile
//
// Compile runs every template through the resolver, applies its patch,
// keeps the generated-file header (HeaderLine) and applies the size
// guard (size.go) to each CRD's compact JSON, as the resolver measured it
// (resolver.Document.JSONSize): a warning above WarnSize, where client-side
// `kubectl apply` can no longer create it, and an error above MaxSize, near
// what a default etcd stores. Each Output records the files the template read (Files), so a
// caller holding a list of changed files can select exactly the templates
// that reach them (Affected). An Output keeps the compiled CRDs, not their
// text: Append and Render write the file content on demand (the same bytes
// every time).
//
// # Plan and apply
//
// Plan compares the outputs with the files on disk: unchanged, stale,
// missing, and orphaned (a file carrying our header that no template
// produces any more). It works through a window of one worker per core,
// each rendering one output into a buffer it reuses and reading its files
// into another, so memory does not grow with the project: what a caller
// needs of a file that is not up to date (Diff's unified diff, a schema
// comparison) is made then (PlanOptions.Compare), and build's new content
// is staged in a temporary file then (PlanOptions.Stage). Apply renames
// the staged files, all or none, each atomically, and removes only
// orphans, which this tool wrote; unchanged files are never touched.
//
// # Validation
//
// The apiserver's CRD validation is not linked here (it costs every process
// ~25 ms and 20 MiB at start): a Validator runs it, normally the
// k8s-crd-resolver-validate companion, speaking ValidationRequest and
// ValidationResponse as JSON. Validate sends each output once, and not at
// all an output that is a twin of an earlier valid one (the same CRDs but
// for descriptions that cannot change the verdict; see twins.go).
package project
