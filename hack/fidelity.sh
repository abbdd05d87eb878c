#!/usr/bin/env bash
# fidelity.sh: the lossless check (resolver TestFidelity) against the
# round-trip fixtures of the k8s.io/api release that matches each embedded
# Kubernetes minor.
#
#   hack/fidelity.sh              the three newest embedded minors
#   hack/fidelity.sh all          every embedded minor whose k8s.io/api ships fixtures
#   hack/fidelity.sh 1.28 1.30    just these
#
# Each k8s.io/api module is fetched with `go mod download` into a private,
# temporary module cache that is removed afterwards; nothing is installed.
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

pass=0 fail=0 skipped=0
for m in $want; do
  pin=$(grep -E "^v${m//./\\.}\.[0-9]+" <<<"$pins" || true)
  if [[ -z $pin ]]; then echo "fidelity: $m is not embedded" >&2; exit 2; fi
  # The proxy does not serve every patch: take the newest served one at or
  # below the embedded patch (patch releases never change the API).
  patch=${pin##*.} dir="" api=""
  for ((p = patch; p >= 0 && p > patch - 8; p--)); do
    api="v0.${m#1.}.$p"
    dir=$(cd "$tmp/mod" && GOMODCACHE="$tmp/cache" GOFLAGS=-modcacherw go mod download -json "k8s.io/api@$api" 2>/dev/null |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' || true)
    [[ -n $dir ]] && break
  done
  if [[ -z $dir || ! -f $dir/testdata/HEAD/core.v1.Pod.json ]]; then
    echo "fidelity: $m: k8s.io/api $api ships no round-trip fixtures; skipped"
    skipped=$((skipped+1))
    continue
  fi
  if FIDELITY_API_DIR="$dir" FIDELITY_K8S_VERSION="$m" go test -count=1 -run '^TestFidelity$' ./resolver/ >"$tmp/out" 2>&1; then
    echo "fidelity: $m (k8s.io/api $api): ok"
    pass=$((pass+1))
  else
    echo "fidelity: $m (k8s.io/api $api): FAILED"; cat "$tmp/out"
    fail=$((fail+1))
  fi
done
echo "fidelity: $pass passed, $fail failed, $skipped skipped"
[[ $fail -eq 0 ]]
