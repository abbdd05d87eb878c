// Package doctest keeps the documentation true. It has no code of its own, only tests:
//
// # Examples
//
// TestDocExamples runs the shell examples of README.md and docs/ (every ```sh, ```bash,
// ```shell or ```console block) against the binaries built from this module, as
// testscript scripts (github.com/rogpeppe/go-internal/testscript) generated from the
// Markdown, one per file, each in a fresh working directory shared by the file's blocks in
// order. Directives are HTML comments on the line before a fenced block, invisible on the
// rendered page:
//
//	<!-- file: NAME -->        the block below is written to NAME before the next command runs
//	<!-- output -->            the ```text block below is what the shell block before it prints
//	                           (standard output and error together); a line "..." stands for
//	                           any number of lines
//	<!-- not-run: REASON -->   the shell block below is not run (it needs a cluster, the
//	                           network, or is the test suite itself); the reason is required
//
// and, on a line of its own, so that an example shown once (the README's widget template)
// is not repeated in every page that runs it:
//
//	<!-- use: PAGE SRC as NAME -->  PAGE's <!-- file: SRC --> block is written to NAME
//
// Each line of a shell block (a line ending in a backslash goes on) must exit 0, or the
// status its trailing comment names: "# exit 1: stale". Shell state (cd, variables) lasts
// for one block.
//
// # References
//
// TestCLIReference compares docs/cli/ with the pages cobra's doc generator writes for the
// command tree (cmd.NewRootCmd); TestConfigReference compares the key table of
// docs/config.md with the fields and doc comments of project.Config, Policy and Set. Both
// rewrite the files under `go test ./... -update`.
//
// # Links
//
// TestDocLinks fails when a relative link of README.md or docs/ points at a missing file or
// a heading that does not exist.
//
// # Release state
//
// TestReleaseReferences fails when README.md, docs/, the Helm chart, the kustomize base or
// .pre-commit-hooks.yaml name a release of this project (a tag, an image tag, a pre-commit
// rev, a download URL) that `git tag` does not list; the release procedure in
// docs/developing.md is exempt.
package doctest
