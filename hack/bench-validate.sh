#!/usr/bin/env bash
# bench-validate.sh: whole-process timings of validating N custom resources
# (default 1000 DaskWorkerGroups, one file each, all valid) against this
# repository's compiled Dask CRDs, as medians of RUNS runs (default 11),
# each beside floors measured in the same run:
#
#   hello x1:     one Go hello-world process (CGO_ENABLED=0, as make build)
#   validate:     k8s-crd-resolver validate --crd dist/ FILES... (the
#                 companion runs the apiserver's create steps: pruning,
#                 defaulting, schema, CEL, metadata)
#   kubeconform:  kubeconform -strict with the schemas `k8s-crd-resolver
#                 export jsonschema` writes (JSON Schema only: no CEL, no
#                 defaulting; see docs/validating.md), built by hack/tools.sh
#
# Needs bin/ (make build-cli) and Go.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-11}
N=${N:-1000}
bin=$PWD/bin/k8s-crd-resolver
[[ -x $bin && -x $PWD/bin/k8s-crd-resolver-validate ]] || { echo "bench-validate: make build-cli first" >&2; exit 2; }
kubeconform=$(hack/tools.sh kubeconform)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/hello" "$work/crs" "$work/schemas"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello, world") }\n' >"$work/hello/main.go"
(cd "$work/hello" && CGO_ENABLED=0 go build -o hello main.go)
src=testdata/resources/cases/dask-valid.yaml
for ((i = 0; i < N; i++)); do
  sed "s/^  name: wg$/  name: wg-$i/" "$src" >"$work/crs/wg-$i.yaml"
done
"$bin" export jsonschema -o "$work/schemas" dist/ >/dev/null
files=("$work"/crs/*.yaml)

# One run of each, checking they all accept the corpus' valid case.
"$bin" validate --crd dist/ "${files[@]}"
"$kubeconform" -strict -summary -schema-location "$work/schemas/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}{{ .StrictSuffix }}.json" "${files[@]}" >/dev/null

declare -A times
run() { # name cmd...
  local name=$1
  shift
  local t0=$EPOCHREALTIME
  "$@" >/dev/null
  local t1=$EPOCHREALTIME
  times[$name]+="$(echo "$t1 - $t0" | bc) "
}
for ((r = 0; r < RUNS; r++)); do
  run hello "$work/hello/hello"
  run validate "$bin" validate --crd dist/ "${files[@]}"
  run kubeconform "$kubeconform" -strict -schema-location "$work/schemas/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}{{ .StrictSuffix }}.json" "${files[@]}"
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
h=$(echo "${times[hello]}" | median)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); N=$N custom resources, RUNS=$RUNS"
for name in hello validate kubeconform; do
  m=$(echo "${times[$name]}" | median)
  printf '%-12s %8.1f ms  %7.1fx hello x1\n' "$name" "$(echo "$m * 1000" | bc -l)" "$(echo "$m / $h" | bc -l)"
done
