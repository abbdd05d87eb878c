package cmd

import "github.com/spf13/cobra"

// newReconcileCmd runs the Dask operator through its companion binary,
// k8s-crd-resolver-reconcile: controller-runtime stays out of this binary.
func newReconcileCmd() *cobra.Command {
	c := newPluginCmd("reconcile",
		"Run the Dask operator against the cluster in KUBECONFIG",
		`reconcile installs or upgrades the embedded Dask CRDs (dist/) with server-side
apply, waits until they are Established, then runs the DaskCluster,
DaskWorkerGroup, DaskJob and DaskAutoscaler controllers until interrupted.
Flags: --namespace, --metrics-bind-address, --health-probe-bind-address,
--leader-elect, --kubeconfig; "k8s-crd-resolver reconcile --help" lists all.`)
	c.Example = `  k8s-crd-resolver reconcile --namespace dask --leader-elect
  k8s-crd-resolver reconcile --metrics-bind-address 0 --health-probe-bind-address 127.0.0.1:9440`
	return c
}
