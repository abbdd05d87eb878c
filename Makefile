GO ?= go

# schemas: regenerate the embedded Kubernetes OpenAPI bundles (schemas/data/, and
# schemas/bundles.go, which embeds them) from the releases pinned in schemas/versions.txt
# (their OpenAPI documents and the Go source of the staging modules
# their definitions come from), then validate them. ONLY=1.30 (or 1.29,1.30) rebuilds a subset.
# All 26 minors take about 8 minutes (downloads included). The generator, tools/schemagen, is
# in the tools module (tools/go.mod), which the compiler module's `go install ./...` never
# reaches; it is built into bin/tools/ and run from schemas/.
.PHONY: schemas schemas-add schemas-bump schemas-repack tools-bin
schemas: tools-bin
	cd schemas && ../bin/tools/schemagen $(if $(ONLY),-only $(ONLY))
	$(GO) test ./schemas/...

# schemas-add: pin the newest patch of a new Kubernetes minor and build its bundle, e.g.
# make schemas-add MINOR=1.38
schemas-add: tools-bin
	@test -n "$(MINOR)" || { echo "usage: make schemas-add MINOR=1.38" >&2; exit 2; }
	cd schemas && ../bin/tools/schemagen -add $(MINOR)
	$(GO) test ./schemas/...

# schemas-bump: re-pin every minor to its newest patch and rebuild the bundles that changed.
schemas-bump: tools-bin
	cd schemas && ../bin/tools/schemagen -bump
	$(GO) test ./schemas/...

# schemas-repack: write the bundles anew from the definitions they hold (as published) and
# pool them again, downloading nothing (seconds; tools/schemagen/repack.go): after a change of
# the bundle format.
schemas-repack: tools-bin
	cd schemas && ../bin/tools/schemagen -repack
	$(GO) test ./schemas/...

# tools-bin: the developer tools of the tools module (schemagen, crdcompare) into bin/tools/.
tools-bin:
	$(GO) -C tools build -o ../bin/tools/ ./...

# fidelity: the lossless check against k8s.io/api's round-trip fixtures for every embedded minor
# (VERSIONS="1.29 1.30" for a subset; .ci/run checks the three newest).
.PHONY: fidelity
fidelity:
	hack/fidelity.sh $(or $(VERSIONS),all)

# build: the main binary and every companion (k8s-crd-resolver-validate, and
# k8s-crd-resolver-reconcile from the operator module) into bin/.
# install: the same and k8s-crd-resolver-builtins (module builtins/, built as `make builtins`
# builds it) into $GOBIN (or $GOPATH/bin), where validate finds it next to
# k8s-crd-resolver-validate: what a release archive holds. pre-commit's `go install ./...`
# installs only this module's two (the operator and builtins are modules of their own).
.PHONY: build build-cli install dist check-dist image
# CGO_ENABLED=0: a static binary starts ~3 ms faster (no dynamic loader; cgo only came in
# through net, which pflag imports and we never use).
build: build-cli
	cd operator && CGO_ENABLED=0 $(GO) build -o ../bin/ ./cmd/...

build-cli:
	CGO_ENABLED=0 $(GO) build -o bin/ . ./cmd/...

# builtins: k8s-crd-resolver-builtins, the apiserver's hand-written validation of Kubernetes'
# own kinds linked from k8s.io/kubernetes (module builtins/, its own go.mod), into bin/ next to
# k8s-crd-resolver-validate, which finds it there (else on PATH). -trimpath and CGO_ENABLED=0 as
# hack/control-plane.sh builds kube-apiserver, so the build cache that build fills serves this one.
.PHONY: builtins
builtins:
	cd builtins && CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o ../bin/ ./cmd/k8s-crd-resolver-builtins

install:
	CGO_ENABLED=0 $(GO) install . ./cmd/...
	cd operator && CGO_ENABLED=0 $(GO) install ./cmd/...
	cd builtins && CGO_ENABLED=0 $(GO) install -trimpath -ldflags "-s -w" ./cmd/...

# dist: compile templates/ into dist/, charts/dask-operator/crds/ and
# operator/crds/ (see .crd-resolver.yaml); check-dist: fail with a diff when
# any of them is stale (what .ci/run does).
dist: build-cli
	bin/k8s-crd-resolver build

check-dist: build-cli
	bin/k8s-crd-resolver check

# generate: with controller-gen, built once by hack/tools.sh, the deep copies
# of the operator's API types (operator/api/v1/zz_generated.deepcopy.go) and
# the operator's roles from the +kubebuilder:rbac markers in
# operator/reconciler: deploy/rbac/role.yaml for the kustomize base and the
# same bytes as charts/dask-operator/files/rbac-roles.yaml, which the chart's
# templates/rbac.yaml reads. The operator's tests (TestDeepCopyGenerated,
# TestRBACGenerated, in test-operator) fail when a file is stale.
.PHONY: generate
generate:
	cd operator/api/v1 && "$$(../../../hack/tools.sh controller-gen)" object paths=.
	cd operator && "$$(../hack/tools.sh controller-gen)" rbac:roleName=dask-operator paths=./reconciler/... output:rbac:dir=../deploy/rbac
	cp deploy/rbac/role.yaml charts/dask-operator/files/rbac-roles.yaml

# image: the operator's OCI image for linux/amd64 and linux/arm64, built
# without a container daemon (operator/hack/image, go-containerregistry),
# as an OCI archive in bin/; IMAGE=registry/name:tag pushes it as well.
VERSION ?= $(shell git describe --tags --match 'v*' --always 2>/dev/null || echo v0.0.0)
image:
	for arch in amd64 arm64; do \
	  (cd operator && CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -trimpath \
	    -ldflags "-s -w -X main.version=$(VERSION)" -o ../bin/image/$$arch/ ./cmd/k8s-crd-resolver-reconcile) || exit 1; \
	done
	cd operator && $(GO) run ./hack/image -version $(VERSION) -o ../bin/dask-operator-image.tar \
	  -binary linux/amd64=../bin/image/amd64/k8s-crd-resolver-reconcile \
	  -binary linux/arm64=../bin/image/arm64/k8s-crd-resolver-reconcile \
	  $(if $(IMAGE),-push $(IMAGE))

# test: everything CI runs, each step even when an earlier one failed (the
# failed ones are listed at the end):
#   test-root      this module's tests, with k8s-crd-resolver-builtins (bin/, built by
#                  `make builtins`; K8S_CRD_RESOLVER_BUILTINS points the tests that
#                  judge with it there, and under K8S_CRD_RESOLVER_CI=1 they fail without it), GoReleaser (TestRelease: goreleaser
#                  check and a snapshot release of this platform) and the
#                  control plane of test-operator (integration/'s schema-update,
#                  size, corpus and kubectl tests), then FuzzCompare
#                  (diff) for $(DIFF_FUZZ_EXECS) executions; they include the
#                  docs' executed examples (TestDocExamples) and the drift checks
#                  of the generated CLI and configuration references
#   test-builtins  the builtins module's tests (the apiserver's hand-written validation)
#   test-tools     the tools module's tests (the bundle generator, crdcompare)
#   test-operator  the operator module's tests against a real etcd +
#                  kube-apiserver (+ kube-controller-manager), built once by
#                  hack/control-plane.sh, then cached: e2e, the Helm chart and
#                  kustomize base applied and run (deploytest), the image
#   fidelity       the lossless check for the three newest embedded versions
#   check-dist     dist/, the chart's crds/ and operator/crds/ are up to date
#   compare-controller-gen  nothing controller-gen v0.23.0 keeps or checks is missing from
#                  our compile of the same CRD, and ours is no larger (like for like)
.PHONY: test test-root test-builtins test-tools test-operator test-short release-check bench control-plane tools
TEST_STEPS := test-builtins test-root test-tools test-operator fidelity-newest check-dist compare-controller-gen
test: control-plane tools builtins
	@failed=; for step in $(TEST_STEPS); do \
	  $(MAKE) --no-print-directory $$step || failed="$$failed $$step"; \
	done; \
	if [ -n "$$failed" ]; then echo "make test: FAILED:$$failed" >&2; exit 1; fi; \
	echo "make test: all of $(TEST_STEPS) passed"

# The diff fuzz target runs for a fixed number of executions (not a time: the same work on
# every machine), after the seeds every `go test` runs.
DIFF_FUZZ_EXECS ?= 20000
test-root:
	K8S_CRD_RESOLVER_BUILTINS="$(CURDIR)/bin/k8s-crd-resolver-builtins" GORELEASER="$$(hack/tools.sh goreleaser)" KUBEBUILDER_ASSETS="$$(hack/control-plane.sh --print-dir)" $(GO) test -count=1 -timeout 40m ./...
	$(GO) test -run '^$$' -fuzz '^FuzzCompare$$' -fuzztime=$(DIFF_FUZZ_EXECS)x -parallel=1 ./internal/schemadiff/

test-builtins:
	cd builtins && $(GO) test -count=1 ./...

test-tools:
	cd tools && $(GO) test -count=1 ./...

test-operator:
	cd operator && KUBEBUILDER_ASSETS="$$(../hack/control-plane.sh --print-dir)" $(GO) test -count=1 -timeout 40m ./...

.PHONY: fidelity-newest
fidelity-newest:
	hack/fidelity.sh newest

# release-check: what CI checks of the release (goreleaser check, a snapshot
# release of this platform, its archive); a real release is
# `$$(hack/tools.sh goreleaser) release --clean` on a tag, then `make image IMAGE=...`.
release-check: tools
	GORELEASER="$$(hack/tools.sh goreleaser)" $(GO) test -count=1 -run '^TestRelease$$' ./integration/

# test-short: the quick loop of both modules; skips what needs the control
# plane, GoReleaser or pre-commit.
test-short:
	$(GO) test -short ./...
	cd builtins && $(GO) test -short ./...
	cd tools && $(GO) test -short ./...
	cd operator && $(GO) test -short ./...

control-plane:
	hack/control-plane.sh >/dev/null

# test-older-minors: TestMinorVerdictsAgreeWithRealAPIServers (integration/minors_test.go),
# issue 35's per-minor verdicts of `validate --k8s-version` against the real kube-apiservers of
# OLDER_KUBE_VERSIONS, each case created with fieldValidation=Strict and read back; it logs the
# table of verdicts (docs/versions.md). Their etcd + kube-apiserver are built once by
# hack/control-plane.sh (cold: about 10 minutes per minor on 2 cores) and cached like 1.37's, so
# they are not part of `make test`. CACHED_ONLY=1 builds nothing: it runs the minors already
# cached, and nothing at all when none is. .ci/run passes it, so CI runs this test only on warm
# caches (a few seconds per minor) and a cold machine pays nothing.
OLDER_KUBE_VERSIONS ?= v1.25.15 v1.29.15
.PHONY: test-older-minors
test-older-minors:
	@dirs=; for v in $(OLDER_KUBE_VERSIONS); do \
	  if d="$$(KUBE_VERSION=$$v WITH_KUBECTL=0 WITH_KCM=0 hack/control-plane.sh --check 2>/dev/null)"; then :; \
	  elif [ -n "$(CACHED_ONLY)" ]; then echo "test-older-minors: kube-apiserver $$v is not cached: skipped (make test-older-minors builds it)"; continue; \
	  else d="$$(KUBE_VERSION=$$v WITH_KUBECTL=0 WITH_KCM=0 hack/control-plane.sh)" || exit 1; fi; \
	  dirs="$$dirs $$d"; \
	done; \
	if [ -z "$$dirs" ]; then echo "test-older-minors: no older kube-apiserver cached, nothing run"; exit 0; fi; \
	K8S_CRD_RESOLVER_OLDER_ASSETS="$${dirs# }" $(GO) test -count=1 -v -run '^TestMinorVerdictsAgreeWithRealAPIServers$$' ./integration/

# tools: GoReleaser and controller-gen, built once from the Go module proxy into the cache dir.
tools:
	hack/tools.sh goreleaser >/dev/null
	hack/tools.sh controller-gen >/dev/null

# bench: the compiler's benchmarks (in-process), then whole-process timings of compiling the
# four Dask CRDs, one process per CRD as pre-commit scripts call us, and all four in one build;
# the schema comparison (internal/schemadiff: the Dask set 1.21 -> 1.37) and `diff --from --to`.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./resolver/ ./schemas/ ./internal/schemadiff/ ./internal/crdvalidate/ ./internal/crdfields/ ./cmd/
	hack/bench.sh
	hack/bench-validate.sh

# compare-controller-gen: the side-by-side report against controller-gen v0.23.0 (built once
# by hack/tools.sh) on a CRD embedding PodTemplateSpec, ServiceSpec, JobSpec and DeploymentSpec;
# fails when controller-gen has a schema path or value constraint we lack (deliberate
# exceptions aside), prunes where we keep unknown fields, or is smaller as compact JSON.
.PHONY: compare-controller-gen
compare-controller-gen:
	hack/compare-controller-gen.sh

# lint: golangci-lint v2 with .golangci.yml (install: go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@latest).
.PHONY: lint
lint:
	golangci-lint run ./...
	cd tools && golangci-lint run --config ../.golangci.yml ./...
	cd operator && golangci-lint run --config ../.golangci.yml ./...
