// Package validation is k8s.io/apiextensions-apiserver's
// pkg/apis/apiextensions/validation (ValidateCustomResourceDefinition, the
// code kube-apiserver runs on every CRD create and update), copied from the
// version in go.mod with one import changed: k8s.io/apiserver/pkg/util/webhook
// becomes internal/oracle/webhook, its three validation functions alone.
//
// # Why a copy
//
// The upstream package imports webhook only to validate
// spec.conversion.webhook.clientConfig, and that package also holds the
// webhook client: it pulls client-go's rest and clientcmd, the egress
// selector, gRPC and OpenTelemetry into every binary that validates CRDs.
// Without it the validation companion compiles about a third fewer
// packages, and this module requires no client-go at all (what `go install
// ./...`, pre-commit's install, builds).
//
// # Staying equal to upstream
//
// validation.go, cel_validation.go and validation_test.go (Kubernetes' own
// tests of this package, which therefore run against the copy) are
// generated, never edited: TestUpstream regenerates them in memory from the
// module cache and fails on any difference, so bumping k8s.io/* in go.mod
// fails until they are regenerated with
//
//	go test ./internal/oracle/apiextvalidation -run TestUpstream -update
package validation
