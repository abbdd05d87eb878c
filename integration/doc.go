// Package integration holds the workflow tests of k8s-crd-resolver: they
// build the real binaries (the main one and its companions) once, then run
// build, check and validate in temporary git repositories, and run the
// repository's pre-commit hooks with the real pre-commit. It has no
// non-test code.
//
// # The real apiserver
//
// The compiler's acceptance tests against a real etcd and kube-apiserver
// live here too: TestSchemaUpdate (schemaupdate_test.go; diff calls a
// schema change breaking exactly when the apiserver loses stored data or
// refuses a write it accepted before, per change kind, and for the Dask
// template compiled at 1.29 and 1.30 against 1.37; the table at the top of
// that file is what kube-apiserver v1.37.2 measurably does), the size
// guard's thresholds (TestSize*, size_test.go; -size.search re-measures
// them), the custom-resource corpus (TestCorpusAgreesWithTheAPIServer) and
// client-side apply and explain with the real kubectl
// (TestFitDescriptionsKubectl), and the built-in objects of
// testdata/apiserver-recorded, whose recorded verdicts TestAPIServerRecorded
// checks on the live apiserver (-record rewrites them). TestMinorVerdictsAgreeWithRealAPIServers
// (minors_test.go) starts older kube-apiservers, one after another, from
// the directories in K8S_CRD_RESOLVER_OLDER_ASSETS (make
// test-older-minors), and checks validate --k8s-version's verdicts against
// theirs. The binaries come from KUBEBUILDER_ASSETS
// (export KUBEBUILDER_ASSETS="$(hack/control-plane.sh)"). This module never
// depends on client-go or controller-runtime (cmd/deps_test.go), so
// kube_test.go starts etcd and kube-apiserver itself, the first time a test
// needs them, with a static admin token, and talks to the apiserver with
// net/http (the dynamic client's few calls, same shapes) and kubectl.
// Without the assets these tests skip, except when K8S_CRD_RESOLVER_CI is
// set (CI), where they fail; -short skips them.
package integration
