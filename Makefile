GO ?= go

# schemas: regenerate the embedded Kubernetes OpenAPI bundles (schemas/data/) from the releases
# pinned in schemas/versions.txt, then validate them. ONLY=1.30 (or 1.29,1.30) rebuilds a subset.
.PHONY: schemas schemas-add schemas-bump
schemas:
	cd schemas && $(GO) run ./internal/gen $(if $(ONLY),-only $(ONLY))
	$(GO) test ./schemas/...

# schemas-add: pin the newest patch of a new Kubernetes minor and build its bundle, e.g.
# make schemas-add MINOR=1.38
schemas-add:
	@test -n "$(MINOR)" || { echo "usage: make schemas-add MINOR=1.38" >&2; exit 2; }
	cd schemas && $(GO) run ./internal/gen -add $(MINOR)
	$(GO) test ./schemas/...

# schemas-bump: re-pin every minor to its newest patch and rebuild the bundles that changed.
schemas-bump:
	cd schemas && $(GO) run ./internal/gen -bump
	$(GO) test ./schemas/...

# fidelity: the lossless check against k8s.io/api's round-trip fixtures for every embedded minor
# (VERSIONS="1.29 1.30" for a subset; .ci/run checks the three newest).
.PHONY: fidelity
fidelity:
	hack/fidelity.sh $(or $(VERSIONS),all)

# build: the main binary and every companion (k8s-crd-resolver-validate, ...) into bin/.
# install: the same into $GOBIN (or $GOPATH/bin), as pre-commit's `go install ./...` does.
.PHONY: build install dist check-dist
# CGO_ENABLED=0: a static binary starts ~3 ms faster (no dynamic loader; cgo only came in
# through net, which pflag imports and we never use).
build:
	CGO_ENABLED=0 $(GO) build -o bin/ . ./cmd/...

install:
	CGO_ENABLED=0 $(GO) install . ./cmd/...

# dist: compile templates/ into dist/ (see .crd-resolver.yaml); check-dist: fail with a diff
# when dist/ is stale (what .ci/run does).
dist: build
	bin/k8s-crd-resolver build

check-dist: build
	bin/k8s-crd-resolver check

# test: everything CI runs. Builds (once, then cached) a real etcd + kube-apiserver for the
# end-to-end tests, runs every Go test against it, the lossless fidelity check for the three
# newest embedded Kubernetes versions, and the dist/ drift check.
.PHONY: test test-short bench control-plane
test: control-plane
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh --print-dir)" $(GO) test -count=1 ./...
	hack/fidelity.sh newest
	$(MAKE) check-dist

# test-short: the quick loop; skips the end-to-end tests that need the control plane.
test-short:
	$(GO) test -short ./...

control-plane:
	WITH_KUBECTL=$${WITH_KUBECTL:-0} hack/control-plane.sh >/dev/null

# bench: the compiler's benchmarks (in-process), then whole-process timings of compiling the
# four Dask CRDs, one process per CRD as pre-commit scripts call us, and all four in one build.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./resolver/ ./schemas/
	hack/bench.sh

# lint: golangci-lint v2 with .golangci.yml (install: go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@latest).
.PHONY: lint
lint:
	golangci-lint run ./...
