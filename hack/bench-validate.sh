#!/usr/bin/env bash
# bench-validate.sh: whole-process wall time, CPU time (user + system) and
# peak RSS of validating custom resources against this repository's
# compiled Dask CRDs, beside the peers validating the same input in the
# same rounds (medians of the rounds; peak RSS is the largest seen):
#
#   files:   N DaskWorkerGroups (default 1000), one file each, all valid
#            (RUNS rounds, default 11)
#   stream:  one STREAM_MB-megabyte file (default 20) of small
#            DaskWorkerGroups, all valid (STREAM_RUNS rounds, default 3)
#
#   hello x1:          one Go hello-world process (CGO_ENABLED=0, as make build)
#   validate:          k8s-crd-resolver validate --crd dist/ (the companion
#                      runs the apiserver's create steps: pruning,
#                      defaulting, schema, CEL, metadata)
#   kubeconform:       kubeconform -strict with the schemas `k8s-crd-resolver
#                      export jsonschema` writes (JSON Schema only: no CEL, no
#                      defaulting; see docs/validating.md)
#   kubectl-validate:  kubectl-validate --local-crds with the same CRDs
#                      (SIG-CLI's; the apiserver's schema validation, no
#                      hand-written rules); SKIP_KUBECTL_VALIDATE=1 leaves it out
#
# kubeconform and kubectl-validate are built once by hack/tools.sh (a heavy
# first build). Needs bin/ (make build-cli), Go and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-11}
N=${N:-1000}
STREAM_RUNS=${STREAM_RUNS:-3}
STREAM_MB=${STREAM_MB:-20}
bin=$PWD/bin/k8s-crd-resolver
[[ -x $bin && -x $PWD/bin/k8s-crd-resolver-validate ]] || { echo "bench-validate: make build-cli first" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench-validate: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
kubeconform=$(hack/tools.sh kubeconform)
kubectl_validate=
if [[ -z ${SKIP_KUBECTL_VALIDATE:-} ]]; then
  kubectl_validate=$(hack/tools.sh kubectl-validate)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/hello" "$work/crs" "$work/schemas" "$work/crds"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello, world") }\n' >"$work/hello/main.go"
(cd "$work/hello" && CGO_ENABLED=0 go build -o hello main.go)
src=testdata/resources/cases/dask-valid.yaml
for ((i = 0; i < N; i++)); do
  sed "s/^  name: wg$/  name: wg-$i/" "$src" >"$work/crs/wg-$i.yaml"
done
# The stream: the same object, renamed, until STREAM_MB megabytes.
body=$(grep -v '^#' "$src")
awk -v body="$body" -v size=$((STREAM_MB * 1000000)) 'BEGIN {
  n = 0; total = 0
  while (total < size) {
    doc = "---\n" body "\n"
    sub(/\n  name: wg\n/, "\n  name: wg-" n "\n", doc)
    printf "%s", doc
    total += length(doc); n++
  }
}' >"$work/stream.yaml"
stream_objects=$(grep -c '^kind: DaskWorkerGroup' "$work/stream.yaml")
"$bin" export jsonschema -o "$work/schemas" dist/ >/dev/null
cp dist/dask*.yaml "$work/crds/" # kubectl-validate reads every YAML file of the directory as a CRD
files=("$work"/crs/*.yaml)
location="$work/schemas/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}{{ .StrictSuffix }}.json"

# One run of each on the files, checking they all accept them (exit 0).
"$bin" validate --crd dist/ "${files[@]}" 2>/dev/null
"$kubeconform" -strict -summary -schema-location "$location" "${files[@]}" >/dev/null
[[ -z $kubectl_validate ]] || "$kubectl_validate" --local-crds "$work/crds" "${files[@]}" >/dev/null

declare -A wall cpu rss
# measure NAME CMD...: one run under /usr/bin/time (CPU, peak RSS; the wall
# time from the shell's clock, finer than time's), its output discarded.
measure() {
  local name=$1
  shift
  local t0=$EPOCHREALTIME
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >/dev/null 2>&1 || true
  local t1=$EPOCHREALTIME
  read -r u s m <"$work/time"
  wall[$name]+="$(echo "$t1 - $t0" | bc) "
  cpu[$name]+="$(echo "$u + $s" | bc) "
  rss[$name]+="$m "
}
round() { # SCENARIO INPUTS...
  local sc=$1
  shift
  measure "$sc validate" "$bin" validate --crd dist/ "$@"
  measure "$sc kubeconform" "$kubeconform" -strict -schema-location "$location" "$@"
  [[ -z $kubectl_validate ]] || measure "$sc kubectl-validate" "$kubectl_validate" --local-crds "$work/crds" "$@"
}
for ((r = 0; r < RUNS; r++)); do
  measure hello "$work/hello/hello"
  round files "${files[@]}"
done
for ((r = 0; r < STREAM_RUNS; r++)); do
  round stream "$work/stream.yaml"
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
largest() { tr ' ' '\n' | grep . | sort -g | tail -1; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); files: N=$N custom resources, RUNS=$RUNS;" \
  "stream: $(($(stat -c %s "$work/stream.yaml") / 1000000)) MB, $stream_objects objects, STREAM_RUNS=$STREAM_RUNS"
h=$(echo "${wall[hello]}" | median)
printf '%-26s %10s %10s %10s %14s\n' "" "wall" "CPU" "peak RSS" "CPU/kubeconform"
printf '%-26s %8.1f ms\n' "hello x1" "$(echo "$h * 1000" | bc -l)"
for sc in files stream; do
  k=$(echo "${cpu[$sc kubeconform]}" | median)
  for tool in validate kubeconform kubectl-validate; do
    [[ -n ${wall[$sc $tool]:-} ]] || continue
    w=$(echo "${wall[$sc $tool]}" | median)
    c=$(echo "${cpu[$sc $tool]}" | median)
    m=$(echo "${rss[$sc $tool]}" | largest)
    printf '%-26s %8.2f s %8.2f s %6.0f MiB %13.2fx\n' "$sc: $tool" "$w" "$c" "$(echo "$m / 1024" | bc -l)" "$(echo "$c / $k" | bc -l)"
  done
done
