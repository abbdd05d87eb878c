#!/usr/bin/env bash
# compare-binaries.sh OLD NEW: compile every definition of every embedded
# Kubernetes minor with two k8s-crd-resolver binaries and fail on the first
# byte of difference, in the output or in the warnings. For reviewing a
# change of the bundle format or of the compiler that must not change what
# comes out (issue 12's pre-normalised bundles were checked this way).
#
# One template per minor holds every definition of that minor as a property
# of spec ({$ref: NAME}; an apiextensions.k8s.io/v1beta1 CRD for the
# minors before 1.16, which serve only v1beta1); it is compiled in four modes: with descriptions,
# -r, --max-description-length 120, and for another minor than the bundle's
# (the $refs pinned to the minor with the python:// form, compiled with
# --k8s-version of the newest minor). --recursion preserve throughout, so
# recursive definitions compile too. The names are those of the bundles in
# schemas/data (tools/schemagen -list MINOR).
#
# Then the workloads users run, each compared output for output: every
# golden case of testdata/compile (as its case.yaml says, and again with -r;
# copied out of the repository, so no project configuration applies), the
# Dask hook's command line (-r -j NAME.patch.yaml SRC DST) over a copy of
# testdata/dask-layout with pins to 1.21 and patches reaching into PodSpec
# and ServiceSpec, this repository's `build` (both sets), and generated
# projects of 100 templates (PodTemplateSpec and ServiceSpec each, with and
# without descriptions). PARTS=workloads skips the definitions. OLD and NEW
# each need their companion k8s-crd-resolver-validate beside them (or
# neither has one).
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
  [[ ${PARTS:-all} == workloads ]] && break
  v=$(basename "$bundle" .bundle)
  (cd "$repo/schemas" && "$lister" -list "$v") >"$work/names-$v"
  for pinned in no yes; do
    # Minors before 1.16 serve only apiextensions.k8s.io/v1beta1: their own
    # template is a v1beta1 CRD (spec.validation); pinned ones compile for
    # the newest minor, as v1.
    indent="              "
    {
      if [[ $pinned == no && ${v#1.} -lt 16 ]]; then
        indent="            "
        printf '%s\n' "apiVersion: apiextensions.k8s.io/v1beta1" "kind: CustomResourceDefinition" \
          "metadata: {name: things.example.com}" "spec:" "  group: example.com" \
          "  names: {kind: Thing, plural: things}" "  scope: Namespaced" "  version: v1" \
          "  validation:" "    openAPIV3Schema:" "      type: object" "      properties:" \
          "        spec:" "          type: object" "          properties:"
      else
        printf '%s\n' "apiVersion: apiextensions.k8s.io/v1" "kind: CustomResourceDefinition" \
          "metadata: {name: things.example.com}" "spec:" "  group: example.com" \
          "  names: {kind: Thing, plural: things}" "  scope: Namespaced" "  versions:" \
          "  - name: v1" "    served: true" "    storage: true" "    schema:" \
          "      openAPIV3Schema:" "        type: object" "        properties:" \
          "          spec:" "            type: object" "            properties:"
      fi
      awk -v v="$v" -v pinned="$pinned" -v indent="$indent" '{
        ref = $0
        if (pinned == "yes") ref = "python://k8s_crd_resolver/schemata/k8s-" v ".0.json#/definitions/" $0
        printf "%sp%d: {$ref: \"%s\"}\n", indent, NR, ref
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

# same WHAT OLD_DIR NEW_DIR: the two trees (outputs and what the runs said)
# must be identical.
same() {
  checked=$((checked + 1))
  bytes=$((bytes + $(find "$2" -type f -exec cat {} + | wc -c)))
  if ! diff -r "$2" "$3" >"$work/tree.diff"; then
    echo "DIFFERENT: $1"
    head -20 "$work/tree.diff"
    fail=1
  fi
}

# The golden cases: each run by both binaries in a copy of its directory.
for dir in "$repo"/testdata/compile/*/; do
  c=$(basename "$dir")
  flags=()
  template=template.yaml root=""
  if [[ -f $dir/case.yaml ]]; then
    while IFS= read -r line; do
      key=${line%%:*} val=${line#*:}
      val=$(sed "s/^ *//; s/ *\$//; s/^[\"']//; s/[\"']\$//" <<<"$val")
      case $key in
        k8sVersion) flags+=(--k8s-version "$val") ;;
        removeDescriptions) [[ $val == true ]] && flags+=(-r) ;;
        maxDescriptionLength) flags+=(--max-description-length "$val") ;;
        recursion) flags+=(--recursion "$val") ;;
        patch) flags+=(-j "$val") ;;
        budget) flags+=(--budget "$val") ;;
        allowOutsideRoot) [[ $val == true ]] && flags+=(--allow-outside-root) ;;
        template) template=$val ;;
        root) root=$val ;;
      esac
    done < <(grep -E '^[a-zA-Z]+:' "$dir/case.yaml")
  fi
  [[ " ${flags[*]} " == *" --k8s-version "* ]] || flags+=(--k8s-version 1.30)
  for extra in "" -r; do
    for side in old new; do
      rm -rf "$work/case-$side" "$work/out-$side"
      mkdir -p "$work/out-$side"
      cp -r "$dir" "$work/case-$side"
      bin=$old
      [[ $side == new ]] && bin=$new
      (
        cd "$work/case-$side/$root"
        t=$template
        [[ -n $root ]] && t=${template#"$root"/}
        # shellcheck disable=SC2086 # extra is one flag or none
        "$bin" resolve "${flags[@]}" $extra "$t" >"$work/out-$side/yaml" 2>"$work/out-$side/err" && echo 0 >"$work/out-$side/exit" || echo $? >"$work/out-$side/exit"
      )
      sed -i "s#$work/case-$side#CASE#g" "$work/out-$side/err"
    done
    same "golden $c ${flags[*]} $extra" "$work/out-old" "$work/out-new"
  done
done

# The Dask hook, as dask-kubernetes' ci/pre-commit-crd.py runs us, over a
# copy of testdata/dask-layout with two more CRDs of its shape whose
# patches reach into PodSpec's containers and ServiceSpec's ports.
cr=dask_kubernetes/operator/customresources
for side in old new; do
  rm -rf "$work/dask-$side" "$work/out-$side"
  mkdir -p "$work/out-$side"
  cp -r "$repo/testdata/dask-layout" "$work/dask-$side"
  git -C "$work/dask-$side" init -q
  cp "$work/dask-$side/$cr/daskcluster.yaml" "$work/dask-$side/$cr/daskjob.yaml"
  sed -i 's/daskclusters/daskjobs/; s/daskcluster$/daskjob/; s/kind: DaskCluster/kind: DaskJob/; s/shortNames: .*//' "$work/dask-$side/$cr/daskjob.yaml"
  cat >"$work/dask-$side/$cr/daskjob.patch.yaml" <<'EOF'
[
  {"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/worker/properties/spec/properties/containers/items/properties/ports/items/properties/protocol/default", "value": "TCP"},
  {"op": "add", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/scheduler/properties/service/properties/ports/items/properties/protocol/default", "value": "TCP"},
  {"op": "test", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/worker/properties/spec/properties/dnsPolicy/type", "value": "string"},
  {"op": "copy", "from": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/worker/properties/spec/properties/securityContext", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/podSecurityContext"},
  {"op": "remove", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/scheduler/properties/spec/properties/volumes/items/properties/nfs"},
  {"op": "move", "from": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/worker/properties/spec/properties/affinity", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/affinity"},
  {"op": "replace", "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/scheduler/properties/spec/properties/containers/items/required", "value": ["name", "image"]}
]
EOF
  bin=$old
  [[ $side == new ]] && bin=$new
  for n in daskcluster daskworkergroup daskjob; do
    for r in -r ""; do
      # shellcheck disable=SC2086 # r is one flag or none
      (cd "$work/dask-$side" && "$bin" $r -j "$cr/$n.patch.yaml" "$cr/$n.yaml" "$work/out-$side/$n$r.yaml") 2>"$work/out-$side/$n$r.err" || echo "exit $?" >>"$work/out-$side/$n$r.err"
    done
  done
done
same "the Dask hook (-r -j PATCH SRC DST)" "$work/out-old" "$work/out-new"

# This repository's build, both sets, and generated projects of 100
# templates.
gen() {
  local d=$1 remove=$2 i
  mkdir -p "$d/templates"
  git -C "$d" init -q
  printf 'kubernetesVersion: "%s"\nsets:\n  - templates: ["templates/*.yaml"]\n    outputs: [dist]\n    removeDescriptions: %s\n' "$newest" "$remove" >"$d/.crd-resolver.yaml"
  for ((i = 0; i < 100; i++)); do
    cat >"$d/templates/kind$i.yaml" <<EOF
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: kind${i}s.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Kind$i, plural: kind${i}s}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: {type: integer, minimum: 0, default: 1}
                template: {\$ref: io.k8s.api.core.v1.PodTemplateSpec}
                service: {\$ref: io.k8s.api.core.v1.ServiceSpec}
EOF
  done
}
for what in repo gen-r gen; do
  for side in old new; do
    rm -rf "$work/p-$side"
    case $what in
      repo)
        mkdir -p "$work/p-$side" && cp -r "$repo/templates" "$repo/.crd-resolver.yaml" "$work/p-$side/" && git -C "$work/p-$side" init -q
        if [[ -d $repo/examples ]]; then cp -r "$repo/examples" "$work/p-$side/"; fi
        ;;
      gen-r) gen "$work/p-$side" true ;;
      gen) gen "$work/p-$side" false ;;
    esac
    bin=$old
    [[ $side == new ]] && bin=$new
    (cd "$work/p-$side" && "$bin" build --quiet >"$work/p-$side/build.out" 2>&1 || echo "exit $?" >>"$work/p-$side/build.out")
    grep -q "^exit" "$work/p-$side/build.out" && { echo "build of $what failed ($side): $(head -c 300 "$work/p-$side/build.out")"; fail=1; }
    rm -rf "$work/p-$side/templates" "$work/p-$side/examples" "$work/p-$side/.git"
  done
  same "build of $what" "$work/p-old" "$work/p-new"
done

echo "compare-binaries: $checked compiles, $bytes bytes of YAML, $([[ $fail == 0 ]] && echo "all identical" || echo "differences above")"
exit $fail
