#!/usr/bin/env bash
# bench.sh: whole-process timings of compiling the four Dask CRDs in
# templates/, as medians (with min and max) of RUNS runs (default 21), with
# peak RSS, each beside a floor measured in the same run:
#
#   hello x4:    four Go hello-world processes, built here into the temp dir
#                with the flags of `make build` (CGO_ENABLED=0)
#   hello x1:    one such process
#   per-file x4: four processes, the Python tool's command line
#                (k8s-crd-resolver -r SRC DST), as pre-commit scripts call it
#   build:       one `k8s-crd-resolver build --no-validate` of the Dask set:
#                the first set of .crd-resolver.yaml (templates/ without
#                Kubernetes' descriptions, into dist/ and the chart's crds/),
#                written out below as dist-set.yaml (its output files removed
#                first, untimed, so every output is written; the directories
#                stay: creating them is a first run's cost)
#   build all:   the same, compiling both sets of .crd-resolver.yaml (the
#                operator's set keeps the descriptions: 8 compiles, 3 output
#                directories)
#   check:       one `k8s-crd-resolver check` with validation: the companion
#                k8s-crd-resolver-validate runs once, on every output of both
#                sets
#
# The scenarios run interleaved (one of each per round), so a change of the
# machine's load moves them all. Times are wall clock, read with bash's
# EPOCHREALTIME (no process started to read the clock). Every row prints its
# ratio to hello x4; issue 12's targets are printed beside them: per-file <=
# 2.5x hello x4, build <= 6x hello x1, check <= 150 ms.
#
# Needs bin/ (make build) and Go (to build the hello world).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-21}
bin=$PWD/bin/k8s-crd-resolver
[[ -x $bin && -x $PWD/bin/k8s-crd-resolver-validate ]] || {
  echo "bench: build first (make build): bin/k8s-crd-resolver and bin/k8s-crd-resolver-validate" >&2
  exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/hello"
cat >"$work/hello/main.go" <<'EOF'
package main

import "fmt"

func main() { fmt.Println("hello, world") }
EOF
(cd "$work/hello" && CGO_ENABLED=0 go build -o hello main.go)
hello=$work/hello/hello

cp -r templates .crd-resolver.yaml "$work/"
# The first set of .crd-resolver.yaml, alone (keep it equal to that set).
cat >"$work/dist-set.yaml" <<'EOF'
kubernetesVersion: "VERSION"
sets:
  - templates: ["templates/*.yaml"]
    outputs: [dist, charts/dask-operator/crds]
    removeDescriptions: true
EOF
mkdir -p "$work/out"
version=$(sed -n 's/^kubernetesVersion: *"\{0,1\}\([0-9.]*\)"\{0,1\}/\1/p' .crd-resolver.yaml)
sed -i "s/VERSION/$version/" "$work/dist-set.yaml"
crds=(daskcluster daskworkergroup daskjob daskautoscaler)
# Run from the copy, as pre-commit runs from the repository: its outputs
# must lie inside the project root (the working directory here).
cd "$work"
# check compares against the outputs: write them once.
"$bin" build --no-validate --quiet >/dev/null
"$bin" check >/dev/null || { echo "bench: check fails on a fresh build" >&2; exit 1; }

# Each scenario: run_NAME (timed), prep_NAME (untimed, before it) and
# rss_NAME (the peak RSS in KiB of its largest process, once).
prep_none() { :; }
run_hello4() { for _ in 1 2 3 4; do "$hello" >/dev/null; done; }
run_hello1() { "$hello" >/dev/null; }
run_perfile() {
  for c in "${crds[@]}"; do
    "$bin" -r --k8s-version "$version" "templates/$c.yaml" "out/$c.yaml"
  done
}
prep_build() { rm -f dist/*.yaml charts/dask-operator/crds/*.yaml; }
run_build() { "$bin" build --no-validate --quiet --config dist-set.yaml >/dev/null; }
prep_buildall() { rm -f dist/*.yaml charts/dask-operator/crds/*.yaml operator/crds/*.yaml; }
run_buildall() { "$bin" build --no-validate --quiet >/dev/null; }
run_check() { "$bin" check >/dev/null; }

# peak CMD...: the peak RSS in KiB of CMD, which for a command that runs
# another (check and its companion) is the largest of them.
peak() { /usr/bin/time -o "$work/rss" -f %M "$@" >/dev/null 2>&1; tail -1 "$work/rss"; }
rss_hello4() { peak "$hello"; }
rss_hello1() { peak "$hello"; }
rss_perfile() {
  local c r m=0
  for c in "${crds[@]}"; do
    r=$(peak "$bin" -r --k8s-version "$version" "templates/$c.yaml" "out/$c.yaml")
    ((r > m)) && m=$r
  done
  echo "$m"
}
rss_build() { prep_build; peak "$bin" build --no-validate --quiet --config dist-set.yaml; }
rss_buildall() { prep_buildall; peak "$bin" build --no-validate --quiet; }
rss_check() { peak "$bin" check; }

names=(hello4 hello1 perfile build buildall check)
declare -A prep=([build]=prep_build [buildall]=prep_buildall) times=()
for ((i = 0; i < RUNS; i++)); do
  for n in "${names[@]}"; do
    ${prep[$n]:-prep_none}
    s=${EPOCHREALTIME/[.,]/}
    "run_$n"
    e=${EPOCHREALTIME/[.,]/}
    times[$n]+="$((e - s)) "
  done
done

# stats NAME: "median min max" in microseconds.
stats() { tr ' ' '\n' <<<"${times[$1]}" | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)], a[1], a[NR]}'; }
declare -A med
echo "bench: Kubernetes $version, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $RUNS interleaved runs"
for n in "${names[@]}"; do
  read -r m lo hi <<<"$(stats "$n")"
  med[$n]=$m
  case $n in
    hello4) label="hello x4" ;; hello1) label="hello x1" ;; perfile) label="per-file x4" ;; buildall) label="build all" ;; *) label=$n ;;
  esac
  x4=$(awk -v a="$m" -v b="${med[hello4]}" 'BEGIN{printf "%5.1fx hello x4", a/b}')
  case $n in
    perfile) cmp=$(awk -v a="$m" -v b="${med[hello4]}" 'BEGIN{r=a/b; printf "target <= 2.5x hello x4: %s", (r <= 2.5 ? "met" : "missed")}') ;;
    build) cmp=$(awk -v a="$m" -v b="${med[hello1]}" 'BEGIN{r=a/b; printf "%4.1fx hello x1, target <= 6x: %s", r, (r <= 6 ? "met" : "missed")}') ;;
    buildall) cmp=$(awk -v a="$m" -v b="${med[hello1]}" 'BEGIN{printf "%4.1fx hello x1", a/b}') ;;
    check) cmp=$(awk -v a="$m" 'BEGIN{printf "target <= 150 ms: %s", (a <= 150000 ? "met" : "missed")}') ;;
    *) cmp="" ;;
  esac
  rss=$("rss_$n")
  awk -v l="$label" -v m="$m" -v lo="$lo" -v hi="$hi" -v rss="$rss" -v cmp="$cmp" \
    -v x4="$x4" 'BEGIN{printf "%-11s median %6.1f ms (min %6.1f, max %6.1f), peak RSS %5.1f MiB  %s  %s\n", l, m/1000, lo/1000, hi/1000, rss/1024, x4, cmp}'
done
