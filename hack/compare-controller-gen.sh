#!/usr/bin/env bash
# compare-controller-gen.sh: measure k8s-crd-resolver against controller-gen on one CRD
# whose spec embeds PodTemplateSpec, ServiceSpec, batch/v1 JobSpec and apps/v1
# DeploymentSpec (hack/compare/types.go.txt for controller-gen, hack/compare/template.yaml
# for us), at Kubernetes 1.37 / k8s.io/api v0.37.2.
#
# controller-gen v0.23.0 is built once from the Go module proxy by hack/tools.sh. The Go
# types are built in a temporary module (deleted afterwards) that resolves k8s.io/api through
# the usual module cache. tools/crdcompare prints the report: schema paths and value
# constraints on one side only, compact JSON sizes with and without descriptions. The exit
# status is crdcompare's: 1 when a target is missed (see tools/crdcompare/main.go).
#
#   hack/compare-controller-gen.sh            # report; exit 1 if a target is missed
#   KEEP=1 hack/compare-controller-gen.sh     # keep the generated CRDs (path printed)
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_API_VERSION="${K8S_API_VERSION:-v0.37.2}"
K8S_VERSION="${K8S_VERSION:-1.37}"

cg="$(hack/tools.sh controller-gen)"
work="$(mktemp -d)"
if [[ -z "${KEEP:-}" ]]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "compare: files kept in $work" >&2
fi

mkdir -p "$work/mod/api/v1" "$work/out" "$work/out-nodesc"
cp hack/compare/types.go.txt "$work/mod/api/v1/types.go"
cat >"$work/mod/go.mod" <<MOD
module compare.k8s-crd-resolver.dev

go 1.26

require (
	k8s.io/api $K8S_API_VERSION
	k8s.io/apimachinery $K8S_API_VERSION
)
MOD
(cd "$work/mod" && GOFLAGS=-mod=mod GOTOOLCHAIN=local GOWORK=off go mod tidy >&2)
(cd "$work/mod" && GOFLAGS=-mod=mod GOTOOLCHAIN=local GOWORK=off \
	"$cg" crd paths=./... output:crd:dir="$work/out" &&
	GOFLAGS=-mod=mod GOTOOLCHAIN=local GOWORK=off \
	"$cg" crd:maxDescLen=0 paths=./... output:crd:dir="$work/out-nodesc")

go build -o "$work/k8s-crd-resolver" .
go -C tools build -o "$work/crdcompare" ./crdcompare   # the tools module
"$work/k8s-crd-resolver" resolve --k8s-version "$K8S_VERSION" hack/compare/template.yaml >"$work/ours.yaml"
"$work/k8s-crd-resolver" resolve --k8s-version "$K8S_VERSION" -r hack/compare/template.yaml >"$work/ours-nodesc.yaml"
cp "$work"/out/*.yaml "$work/controller-gen.yaml"
cp "$work"/out-nodesc/*.yaml "$work/controller-gen-nodesc.yaml"

echo "controller-gen $("$cg" --version | awk '{print $NF}'), k8s.io/api $K8S_API_VERSION; k8s-crd-resolver $(git describe --always --dirty 2>/dev/null || echo '?') --k8s-version $K8S_VERSION"
echo "deliberate exceptions:"
"$work/crdcompare" -exceptions
echo
cd "$work"
./crdcompare ours.yaml controller-gen.yaml ours-nodesc.yaml controller-gen-nodesc.yaml
