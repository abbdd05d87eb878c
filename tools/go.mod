// The developer tools: the bundle generator (schemagen, run by `make schemas`) and the
// controller-gen comparison (crdcompare, run by `make compare-controller-gen`). A module of
// their own, so the compiler module's `go install ./...` (what pre-commit runs) builds
// exactly the CLI and its validation companion.
module github.com/k8s-crd-resolver/k8s-crd-resolver/tools

go 1.26.8

require (
	github.com/k8s-crd-resolver/k8s-crd-resolver v0.0.0
	github.com/stretchr/testify v1.11.1
	sigs.k8s.io/yaml v1.6.0
)

require (
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	go.yaml.in/yaml/v2 v2.4.4 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/k8s-crd-resolver/k8s-crd-resolver => ../
