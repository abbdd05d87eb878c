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
// prefixes the generated-file header (GeneratedHeader) and applies the size
// guard (size.go) to each CRD's compact JSON, as the resolver measured it
// (resolver.Document.JSONSize): a warning above WarnSize, where client-side
// `kubectl apply` can no longer create it, and an error above MaxSize, near
// what a default etcd stores. Each Output records the files the template read (Files), so a
// caller holding a list of changed files can select exactly the templates
// that reach them (Affected).
//
// # Plan and apply
//
// Plan compares the outputs with the files on disk: unchanged, stale,
// missing, and orphaned (a file carrying our header that no template
// produces any more). Apply writes only stale and missing files, each
// atomically, and removes only orphans, which this tool wrote. Diff renders
// a stale file as a unified diff.
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
