#!/usr/bin/env bash
# tools.sh TOOL: print the path of a release tool, building it once with
# `go install TOOL@VERSION` from the Go module proxy (no prebuilt binary is
# downloaded) and caching it under the cache dir hack/control-plane.sh uses:
#   ${K8S_CRD_RESOLVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/k8s-crd-resolver}/tools/TOOL-VERSION/
#
#   hack/tools.sh goreleaser      # GoReleaser (release archives, `make release-check`)
#   hack/tools.sh controller-gen  # controller-gen (hack/compare-controller-gen.sh)
#   hack/tools.sh kubeconform     # kubeconform (hack/bench-validate.sh)
#   hack/tools.sh kubectl-validate # kubectl-validate (hack/bench-validate.sh)
#
# Helm and kustomize need no binary: the operator module's tests use the
# Helm v3 SDK (helm.sh/helm/v3) and kustomize's API (sigs.k8s.io/kustomize/api)
# as libraries, pinned in operator/go.mod. Only stdout carries the path.
set -euo pipefail

# GoReleaser v2.15.1: the newest v2 whose module builds with Go 1.26 (v2.18
# and later need a newer Go). Cold build: a few minutes on 2 cores, once.
GORELEASER_VERSION="${GORELEASER_VERSION:-v2.15.1}"
# controller-gen v0.23.0: the release hack/compare-controller-gen.sh measures
# us against (the newest that builds with Go 1.26).
CONTROLLER_GEN_VERSION="${CONTROLLER_GEN_VERSION:-v0.23.0}"
# kubeconform v0.8.0: the peer hack/bench-validate.sh times validate against
# (internal/crdvalidate's TestKubeconformAgrees checks the same release).
KUBECONFORM_VERSION="${KUBECONFORM_VERSION:-v0.8.0}"
# kubectl-validate v0.0.4: SIG-CLI's validator, the other peer
# hack/bench-validate.sh measures validate against (its newest release;
# embeds the schemas of Kubernetes 1.23-1.30). Cold build: minutes, once.
KUBECTL_VALIDATE_VERSION="${KUBECTL_VALIDATE_VERSION:-v0.0.4}"

CACHE_ROOT="${K8S_CRD_RESOLVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/k8s-crd-resolver}/tools"

case "${1:-}" in
goreleaser) pkg=github.com/goreleaser/goreleaser/v2 ver=$GORELEASER_VERSION ;;
controller-gen) pkg=sigs.k8s.io/controller-tools/cmd/controller-gen ver=$CONTROLLER_GEN_VERSION ;;
kubeconform) pkg=github.com/yannh/kubeconform/cmd/kubeconform ver=$KUBECONFORM_VERSION ;;
kubectl-validate) pkg=sigs.k8s.io/kubectl-validate ver=$KUBECTL_VALIDATE_VERSION ;;
*) echo "usage: hack/tools.sh goreleaser|controller-gen|kubeconform|kubectl-validate" >&2; exit 2 ;;
esac

dir="$CACHE_ROOT/$1-$ver"
bin="$dir/$1"
if [[ ! -x "$bin" ]]; then
	command -v go >/dev/null || { echo "tools: go is not on PATH" >&2; exit 2; }
	mkdir -p "$dir"
	exec 9>"$dir/.lock"
	if command -v flock >/dev/null; then flock 9; fi
	if [[ ! -x "$bin" ]]; then
		echo "tools: building $pkg@$ver (once; cached in $dir)" >&2
		start=$SECONDS
		GOBIN="$dir.tmp" GOFLAGS="-mod=mod -buildvcs=false" GOTOOLCHAIN=local CGO_ENABLED=0 \
			go install -trimpath -ldflags "-s -w" "$pkg@$ver" >&2
		mv "$dir.tmp/$1" "$bin"
		rmdir "$dir.tmp"
		echo "tools: built $1 in $((SECONDS - start))s" >&2
	fi
fi
echo "$bin"
