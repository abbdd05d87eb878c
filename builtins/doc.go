// Package builtins, and its command k8s-crd-resolver-builtins
// (cmd/k8s-crd-resolver-builtins), judge objects of Kubernetes' own kinds
// (Deployments, Services, Roles...) as kube-apiserver judges a create of
// them, with the apiserver's own code linked from k8s.io/kubernetes: the
// hand-written validation of each kind (names per kind, allowed values,
// selectors that must match their template's labels, port ranges, cron
// schedules, quantities, a Job's restartPolicy...) that no OpenAPI schema
// carries. `k8s-crd-resolver validate` runs it when it is installed (next
// to the validate companion, else on PATH) and judges built-in objects by
// their schema alone, saying so per kind, when it is not.
//
// It is a module of its own (builtins/go.mod): k8s.io/kubernetes can be
// required only with a replace directive for each of its staging modules,
// which the compiler module must not carry (go install ...@version and the
// pre-commit hook's install time). The release archives hold it next to
// k8s-crd-resolver-validate; in a clone, install it with
//
//	make builtins                 (bin/k8s-crd-resolver-builtins)
//	make install                  (every binary, this one included, into $GOBIN)
//	cd builtins && go install ./cmd/k8s-crd-resolver-builtins   (into $GOBIN)
//
// # Judge
//
// One object is judged as a create request of it (dryRun=All,
// fieldValidation=Strict, what kubectl sends by default) is judged, step
// by step as the apiserver's create handler and generic registry do:
//
//  1. decode the JSON with the strict serializer of the legacy scheme's
//     codecs: an unknown or duplicate field, or a value of the wrong type,
//     is a BadRequest, as the apiserver answers under Strict;
//  2. default the object (the scheme's defaulters) and convert it to the
//     internal version;
//  3. fill the system fields (uid, creation time), generate the name of a
//     generateName, and run rest.BeforeCreate with the kind's registry
//     strategy: PrepareForCreate, the strategy's Validate, the ObjectMeta
//     checks and the declarative validation, in a request context whose
//     namespace is the object's (or "default" for a namespaced kind whose
//     object names none, as kubectl's request path would give);
//  4. the strategy's WarningsOnCreate are warnings (duplicate env names,
//     deprecated fields), never refusals.
//
// Admission (quota, limit ranges, pod security, webhooks) is not run: it
// depends on the cluster's state and configuration, not on the object.
//
// The kinds judged are those of the table in judge.go (the common kinds of
// core, apps, batch, rbac, networking, policy, autoscaling, storage,
// scheduling, coordination, discovery, node and admissionregistration);
// any other kind is answered "not served", and validate judges it by its
// schema and says so.
//
// # Protocol
//
// `k8s-crd-resolver-builtins --version` prints the Kubernetes version the
// binary links (v1.37.2), one line: validate uses it for a target of that
// minor only, and judges older targets by their schema.
//
// `k8s-crd-resolver-builtins --serve` reads requests from standard input
// and writes one answer per request on standard output, each a JSON value
// on a line of its own, in order, until standard input ends.
//
// `k8s-crd-resolver-builtins --serve --hello` (these two flags, in this
// order) first writes the hello, one line, before it reads anything:
//
//	hello:   {"version": "v1.37.2"}
//
// version is what --version prints; a reader ignores fields it does not
// know (a later binary may say more). Then it serves as --serve does.
// This is what validate starts, once per run: the version from the same
// process that then judges the objects, one start instead of two (each
// start of the binary costs the package initialisation of
// k8s.io/kubernetes). When the target minor is not the linked one,
// validate closes the binary's standard input and waits for it to exit.
// A binary older than --hello refuses the flags at once (the usage on
// standard error, exit status 2, nothing on standard output): validate
// then asks it --version and starts --serve, as before. A hello that
// names no version is reported broken (and the binary killed); the hello
// is waited for as an answer is, with no clock.
//
// The requests and answers:
//
//	request: {"object": <the object, as JSON>, "fieldValidation": "Strict"}
//	answer:  {"served": bool, "valid": bool, "reason": "Invalid",
//	          "message": "...", "causes": [{"type": "FieldValueNotSupported",
//	          "field": "spec.template.spec.containers[0].imagePullPolicy",
//	          "message": "..."}], "warnings": ["..."]}
//
// fieldValidation is optional: Strict (the default), Warn (an unknown or
// duplicate field is a warning, the object judged on) or Ignore, as the
// apiserver's query parameter of that name.
//
// served is false when the binary does not judge the object's group,
// version and kind (nothing else is set then). Otherwise valid says
// whether the apiserver would create it; when it would not, reason is the
// apiserver's status reason (Invalid, BadRequest, InternalError), message
// its status message and causes its status causes (an Invalid's field
// errors). A BadRequest of the strict decoder carries one cause per
// unknown field (type FieldValueUnknown) or duplicate field (type
// FieldValueDuplicate); a value of the wrong type one cause (type
// FieldValueTypeInvalid) at the field its message names. warnings are the
// warnings the apiserver would send, valid or not. A request that is no
// JSON object ends the process with exit status 2 and a message on
// standard error; validate then reports the binary as broken, never a pass.
package builtins
