#!/usr/bin/env bash
# fetch-kubectl-validate-testcases.sh: copies kubectl-validate's test inputs
# (testcases/: manifests, each document with the real apiserver's Status as
# a leading comment, and the CRDs they need) at a pinned commit, with the
# project's LICENSE, into testdata/kubectl-validate/. They are test data,
# not code; TestKubectlValidateSuite (internal/crdvalidate) runs validate
# on each and compares verdicts and cause fields.
#
#   hack/fetch-kubectl-validate-testcases.sh            fetch from GitHub
#   hack/fetch-kubectl-validate-testcases.sh GITDIR     read a local clone
#
# Change COMMIT to move the pin, rerun, review the diff and the test.
set -euo pipefail
cd "$(dirname "$0")/.."

REPO=https://github.com/kubernetes-sigs/kubectl-validate
COMMIT=a97ccfaca20b164819afdae780392496f6ed6bbd
dest=testdata/kubectl-validate

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -ge 1 ]; then
  gitdir=$1
else
  gitdir=$tmp/repo.git
  git init -q --bare "$gitdir"
  git --git-dir="$gitdir" fetch -q --depth 1 "$REPO" "$COMMIT"
fi
git --git-dir="$gitdir" archive --format=tar "$COMMIT" LICENSE testcases/manifests testcases/crds | tar -x -C "$tmp"

rm -rf "$dest"
mkdir -p "$dest"
cp "$tmp/LICENSE" "$dest/LICENSE"
cp -R "$tmp/testcases/manifests" "$tmp/testcases/crds" "$dest/"
cat >"$dest/README.md" <<EOT
# kubectl-validate's test cases

Copied by hack/fetch-kubectl-validate-testcases.sh from
$REPO at commit $COMMIT
(testcases/manifests and testcases/crds, unchanged), under its licence
(LICENSE, Apache-2.0). Test inputs only: TestKubectlValidateSuite
(internal/crdvalidate) judges each manifest against these CRDs and compares
the verdict and cause fields with the Status each document carries.
EOT
echo "copied $(find "$dest/manifests" -type f | wc -l) manifests and $(find "$dest/crds" -type f | wc -l) CRD files at $COMMIT into $dest"
