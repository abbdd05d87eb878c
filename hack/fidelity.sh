#!/usr/bin/env bash
# fidelity.sh: the lossless check (resolver TestFidelity) against the
# round-trip fixtures of the k8s.io/api release that matches each embedded
# Kubernetes minor.
#
#   hack/fidelity.sh              the three newest embedded minors
#   hack/fidelity.sh all          every embedded minor whose fixtures can be had
#   hack/fidelity.sh 1.28 1.30    just these
#
# Each k8s.io/api module is fetched with `go mod download` into a private,
# temporary module cache that is removed afterwards; nothing is installed.
#
# A minor's fixtures are testdata/HEAD of its k8s.io/api (v0.MINOR.PATCH);
# each k8s.io/api also keeps the previous minor's as testdata/v1.MINOR.0,
# used when the minor's own k8s.io/api is not served. The proxy serves
# k8s.io/api from v0.15.7 on (older releases were tagged kubernetes-1.x.y
# only), and fixtures start in 1.15 (with the 1.14.0 snapshot), so 1.14 is
# checked against v0.15's testdata/v1.14.0 and 1.12 and 1.13 are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

pins=$(grep -E '^v1\.[0-9]+\.[0-9]+' schemas/versions.txt)
minors=$(sed -E 's/^v1\.([0-9]+)\..*/1.\1/' <<<"$pins")
case "${1:-newest}" in
  newest) want=$(tail -n 3 <<<"$minors") ;;
  all) want=$minors ;;
  *) want="$*" ;;
esac

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/mod" "$tmp/cache"
( cd "$tmp/mod" && GOFLAGS=-modcacherw go mod init fidelity >/dev/null 2>&1 )

# api_module MINOR: the k8s.io/api release of Kubernetes 1.MINOR, the newest
# served patch at or below the embedded one (the proxy does not serve every
# patch; patch releases never change the API): sets api and dir, or leaves
# dir empty.
api_module() {
  local minor=$1 pin patch p
  dir="" api=""
  pin=$(grep -E "^v1\.$minor\.[0-9]+" <<<"$pins" || true)
  [[ -n $pin ]] || return 0
  patch=${pin##*.}
  for ((p = patch; p >= 0 && p > patch - 8; p--)); do
    api="v0.$minor.$p"
    dir=$(cd "$tmp/mod" && GOMODCACHE="$tmp/cache" GOFLAGS=-modcacherw go mod download -json "k8s.io/api@$api" 2>/dev/null |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' || true)
    [[ -n $dir ]] && return 0
  done
  api=""
}

# lacks MINOR DIR SUBDIR: why DIR (k8s.io/api v0.MINOR, as api_module left
# it) gives no testdata/SUBDIR fixtures; empty when it does.
lacks() {
  if [[ -z $2 ]]; then
    echo "the module proxy serves no k8s.io/api v0.$1.x"
  elif [[ ! -f $2/testdata/$3/core.v1.Pod.json ]]; then
    echo "k8s.io/api $api has no testdata/$3"
  fi
}

pass=0 fail=0 skipped=0
for m in $want; do
  if ! grep -qE "^v${m//./\\.}\.[0-9]+" <<<"$pins"; then echo "fidelity: $m is not embedded" >&2; exit 2; fi
  minor=${m#1.} fixtures=HEAD
  api_module "$minor"
  why=$(lacks "$minor" "$dir" HEAD)
  if [[ -n $why ]]; then
    # The next minor's k8s.io/api keeps this one's fixtures.
    api_module $((minor + 1))
    fixtures=v$m.0
    more=$(lacks $((minor + 1)) "$dir" "$fixtures")
    if [[ -n $more ]]; then
      echo "fidelity: $m: skipped: no round-trip fixtures of Kubernetes $m can be had ($why; $more; k8s.io/api ships fixtures from v0.15, which keeps those of 1.14.0)"
      skipped=$((skipped+1))
      continue
    fi
  fi
  if FIDELITY_API_DIR="$dir" FIDELITY_FIXTURES="$fixtures" FIDELITY_K8S_VERSION="$m" go test -count=1 -run '^TestFidelity$' ./resolver/ >"$tmp/out" 2>&1; then
    echo "fidelity: $m (k8s.io/api $api testdata/$fixtures): ok"
    pass=$((pass+1))
  else
    echo "fidelity: $m (k8s.io/api $api testdata/$fixtures): FAILED"; cat "$tmp/out"
    fail=$((fail+1))
  fi
done
echo "fidelity: $pass passed, $fail failed, $skipped skipped"
[[ $fail -eq 0 ]]
