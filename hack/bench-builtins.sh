#!/usr/bin/env bash
# bench-builtins.sh: wall time of `k8s-crd-resolver validate` on each of the
# ten testdata/apiserver-recorded/kustomize-*.yaml (one built-in object a
# file, one run a file), RUNS rounds (default 10), interleaved in each
# round: bin/ with k8s-crd-resolver-builtins beside it, bin/ with
# K8S_CRD_RESOLVER_BUILTINS=none (schema only), and, when BASELINE names an
# older bin/ directory (its k8s-crd-resolver, companion and builtins side
# by side), that one. Prints the median of each over every file and round,
# in milliseconds. Needs make build-cli and make builtins.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
dirs=("$PWD/bin")
[[ -n ${BASELINE:-} ]] && dirs+=("$(realpath "$BASELINE")")
for d in "${dirs[@]}"; do
  for b in k8s-crd-resolver k8s-crd-resolver-validate k8s-crd-resolver-builtins; do
    [[ -x $d/$b ]] || { echo "bench-builtins: no $d/$b (make build-cli builtins)" >&2; exit 2; }
  done
done
unset K8S_CRD_RESOLVER_BUILTINS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# one NAME DIR [ENV...]: time DIR's validate once per file, appending to $work/NAME.
one() {
  local name=$1 dir=$2 f t0 t1
  shift 2
  for f in testdata/apiserver-recorded/kustomize-*.yaml; do
    t0=$(date +%s%N)
    env "$@" "$dir/k8s-crd-resolver" validate "$f" >/dev/null 2>&1 || [[ $? == 1 ]]
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000)) >>"$work/$name"
  done
}
one warm "$PWD/bin"
for ((r = 0; r < RUNS; r++)); do
  one builtins "$PWD/bin"
  one none "$PWD/bin" K8S_CRD_RESOLVER_BUILTINS=none
  [[ -n ${BASELINE:-} ]] && one baseline "${dirs[1]}"
done
for name in builtins none baseline; do
  [[ -f $work/$name ]] || continue
  sort -n "$work/$name" | awk -v name="$name" '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%-9s median %.1f ms of %d runs\n", name, m / 1000, NR }'
done
