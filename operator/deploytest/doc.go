// Package deploytest holds the tests of the operator's two deployments: the
// Helm chart (charts/dask-operator) and the kustomize base (deploy/), both at
// the repository root. It has no non-test code.
//
// # Render
//
// The chart is linted and rendered with the Helm v3 SDK (helm.sh/helm/v3:
// pkg/lint, pkg/engine, pkg/releaseutil: what `helm lint --strict` and `helm
// template --include-crds` run, without pkg/action, which would compile
// kubectl, cli-runtime, ORAS and SQL drivers into the test); the base is
// built with kustomize's own API (sigs.k8s.io/kustomize/api/krusty, what
// `kubectl kustomize` runs). No binary is needed.
//
// # Apply and run
//
// TestMain starts etcd and kube-apiserver (KUBEBUILDER_ASSETS, see
// hack/control-plane.sh) with an audit log of every request. TestDeploy
// applies both rendered sets with server-side apply, dry-run first and then
// for real, runs the operator binary with the chart Deployment's own
// arguments and the chart ServiceAccount's identity (impersonation), and
// drives a DaskCluster, a DaskAutoscaler and a DaskJob end to end. The
// audit log then shows every request the operator made: each must be
// granted by the chart's ClusterRole or Role, and each rule must have been
// used, so the chart grants exactly what the operator calls.
//
// # Generated roles
//
// Both deployments take their roles' rules from controller-gen's output for
// the operator's +kubebuilder:rbac markers (`make generate`: the kustomize
// base's deploy/rbac/role.yaml, and the chart's files/rbac-roles.yaml, which
// templates/rbac.yaml reads). TestRBACGenerated fails when either is stale,
// so the rules TestDeploy checks are the markers' rules.
//
// Like e2e, these tests fail (never skip) without a control plane; only
// `go test -short` skips the ones that need it.
package deploytest
