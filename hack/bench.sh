#!/usr/bin/env bash
# bench.sh: whole-process timings of compiling the four Dask CRDs in
# templates/, as medians of RUNS runs (default 21), with peak RSS.
#
#   per-file: four processes, the Python tool's command line
#             (k8s-crd-resolver -r SRC DST), as pre-commit scripts call it
#   build:    one `k8s-crd-resolver build --no-validate` compiling all four
#
# Needs bin/ (make build). Prints one line per scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-21}
bin=$PWD/bin/k8s-crd-resolver
[[ -x $bin ]] || { echo "bench: build first (make build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r templates .crd-resolver.yaml "$work/"
mkdir -p "$work/out"
version=$(sed -n 's/^kubernetesVersion: *"\{0,1\}\([0-9.]*\)"\{0,1\}/\1/p' .crd-resolver.yaml)
crds=(daskcluster daskworkergroup daskjob daskautoscaler)
# Run from the copy, as pre-commit runs from the repository: its outputs
# must lie inside the project root (the working directory here).
cd "$work"

perfile() {
  for c in "${crds[@]}"; do
    "$bin" -r --k8s-version "$version" "templates/$c.yaml" "out/$c.yaml"
  done
}
build() { (cd "$work" && rm -rf dist && "$bin" build --no-validate --quiet >/dev/null); }

# median NAME FUNC: wall-clock median and the largest peak RSS of one process.
median() {
  local name=$1 fn=$2 i s e rss=0 r
  local times=()
  for ((i = 0; i < RUNS; i++)); do
    s=$(date +%s%N); $fn; e=$(date +%s%N)
    times+=($(((e - s) / 1000)))
  done
  for c in "${crds[@]}"; do
    if [[ $fn == perfile ]]; then
      r=$( { /usr/bin/time -f %M "$bin" -r --k8s-version "$version" "templates/$c.yaml" "out/$c.yaml"; } 2>&1 | tail -1)
    else
      r=$( { cd "$work" && rm -rf dist && /usr/bin/time -f %M "$bin" build --no-validate --quiet >/dev/null; } 2>&1 | tail -1)
    fi
    ((r > rss)) && rss=$r
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v n="$name" -v rss="$rss" -v runs="$RUNS" \
    '{a[NR]=$1} END{printf "%-9s four Dask CRDs: median %.1f ms (min %.1f, max %.1f, %d runs), peak RSS %.1f MiB\n", n, a[int((NR+1)/2)]/1000, a[1]/1000, a[NR]/1000, runs, rss/1024}'
}

echo "bench: Kubernetes $version, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
median per-file perfile
median build build
