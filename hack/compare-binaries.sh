#!/usr/bin/env bash
# compare-binaries.sh OLD NEW: compile every definition of every embedded
# Kubernetes minor with two k8s-crd-resolver binaries and fail on the first
# byte of difference, in the output or in the warnings. For reviewing a
# change of the bundle format or of the compiler that must not change what
# comes out (issue 12's pre-normalised bundles were checked this way).
#
# One template per minor holds every definition of that minor as a property
# of spec ({$ref: NAME}); it is compiled in four modes: with descriptions,
# -r, --max-description-length 120, and for another minor than the bundle's
# (the $refs pinned to the minor with the python:// form, compiled with
# --k8s-version of the newest minor). --recursion preserve throughout, so
# recursive definitions compile too. The names are those of the bundles in
# schemas/data (tools/schemagen -list MINOR).
set -euo pipefail
old=${1:?usage: compare-binaries.sh OLD_BINARY NEW_BINARY}
new=${2:?usage: compare-binaries.sh OLD_BINARY NEW_BINARY}
old=$(realpath "$old")
new=$(realpath "$new")
cd "$(dirname "$0")/.."
repo=$PWD
data=$repo/schemas/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
newest=$(ls "$data" | sed -n 's/\.bundle$//p' | sort -t. -k1,1n -k2,2n | tail -1)
# The bundle lister: tools/schemagen (the tools module).
go -C "$repo/tools" build -o "$work/schemagen" ./schemagen
lister=$work/schemagen
fail=0
checked=0
bytes=0
for bundle in "$data"/*.bundle; do
  v=$(basename "$bundle" .bundle)
  (cd "$repo/schemas" && "$lister" -list "$v") >"$work/names-$v"
  for pinned in no yes; do
    {
      echo "apiVersion: apiextensions.k8s.io/v1"
      echo "kind: CustomResourceDefinition"
      echo "metadata: {name: things.example.com}"
      echo "spec:"
      echo "  group: example.com"
      echo "  names: {kind: Thing, plural: things}"
      echo "  scope: Namespaced"
      echo "  versions:"
      echo "  - name: v1"
      echo "    served: true"
      echo "    storage: true"
      echo "    schema:"
      echo "      openAPIV3Schema:"
      echo "        type: object"
      echo "        properties:"
      echo "          spec:"
      echo "            type: object"
      echo "            properties:"
      awk -v v="$v" -v pinned="$pinned" '{
        ref = $0
        if (pinned == "yes") ref = "python://k8s_crd_resolver/schemata/k8s-" v ".0.json#/definitions/" $0
        printf "              p%d: {$ref: \"%s\"}\n", NR, ref
      }' "$work/names-$v"
    } >"t-$v-$pinned.yaml"
    if [[ $pinned == yes ]]; then
      modes=("--k8s-version $newest -r" "--k8s-version $newest")
    else
      modes=("--k8s-version $v" "--k8s-version $v -r" "--k8s-version $v --max-description-length 120")
    fi
    for mode in "${modes[@]}"; do
      # shellcheck disable=SC2086 # mode is a list of flags
      "$old" resolve --budget 1Gi --recursion preserve $mode "t-$v-$pinned.yaml" >old.yaml 2>old.err && o=0 || o=$?
      # shellcheck disable=SC2086
      "$new" resolve --budget 1Gi --recursion preserve $mode "t-$v-$pinned.yaml" >new.yaml 2>new.err && n=0 || n=$?
      checked=$((checked + 1))
      bytes=$((bytes + $(wc -c <new.yaml)))
      [[ $o == 0 ]] || { echo "exit $o: Kubernetes $v, pinned $pinned, $mode: $(head -c 300 old.err)"; }
      if [[ $o != "$n" ]] || ! cmp -s old.yaml new.yaml || ! cmp -s old.err new.err; then
        echo "DIFFERENT: Kubernetes $v, pinned $pinned, $mode (exit $o vs $n)"
        diff old.yaml new.yaml | head -20 || true
        diff old.err new.err | head -10 || true
        fail=1
      fi
    done
  done
done
echo "compare-binaries: $checked compiles, $bytes bytes of YAML, $([[ $fail == 0 ]] && echo "all identical" || echo "differences above")"
exit $fail
