// Command k8s-crd-resolver-reconcile runs the Dask operator (package
// reconciler) against the cluster in KUBECONFIG. It is its own program (the
// operator image's entrypoint), not a command of k8s-crd-resolver: a CRD
// compiler's command line carries no controller, and controller-runtime and
// client-go would cost every compiler process start-up time and memory
// (DESIGN.md, "Two modules, one repository").
package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/crds"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"
)

// version is set by releases (.goreleaser.yaml): -ldflags "-X main.version=v1.2.3".
var version string

func main() {
	if err := newCmd(os.Stderr).ExecuteContext(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(2)
	}
}

func newCmd(logs io.Writer) *cobra.Command {
	var o reconciler.Options
	var kubeconfig string
	var qps float32
	var burst int
	var dev bool
	var schedulerURL string
	c := &cobra.Command{
		Use:   "k8s-crd-resolver-reconcile",
		Short: "Run the Dask operator against the cluster in KUBECONFIG",
		Long: `k8s-crd-resolver-reconcile installs or upgrades the embedded Dask CRDs (operator/crds) with server-side
apply, waits until they are Established, then runs the DaskCluster,
DaskWorkerGroup, DaskJob and DaskAutoscaler controllers until interrupted
(SIGINT or SIGTERM). The cluster is the one in --kubeconfig, $KUBECONFIG,
~/.kube/config, or the in-cluster service account, in that order.`,
		Example: `  k8s-crd-resolver-reconcile --namespace dask --leader-elect
  k8s-crd-resolver-reconcile --metrics-bind-address 0 --health-probe-bind-address 127.0.0.1:9440`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, _ []string) error {
			ctrl.SetLogger(zap.New(zap.UseDevMode(dev), zap.WriteTo(logs)))
			cfg, err := restConfig(kubeconfig)
			if err != nil {
				return err
			}
			// client-go's own default (5/s, burst 10) makes 200 clusters
			// take minutes; the apiserver copes with far more.
			cfg.QPS, cfg.Burst = qps, burst
			o.Scheduler.URL = reconciler.SchedulerURLTemplate(schedulerURL)
			return reconciler.Run(c.Context(), cfg, o)
		},
	}
	c.Version = moduleVersion()
	c.SetVersionTemplate(versionString())
	fl := c.Flags()
	fl.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
	fl.StringVarP(&o.Namespace, "namespace", "n", "", "watch only this namespace (default: all namespaces)")
	fl.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8080", `Prometheus /metrics address ("0" disables)`)
	fl.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", `/healthz and /readyz address ("0" disables)`)
	fl.BoolVar(&o.LeaderElection, "leader-elect", false, "elect a leader so only one replica reconciles")
	fl.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader lease (default: --namespace, or the pod's)")
	fl.BoolVar(&o.SkipCRDInstall, "skip-crd-install", false, "do not install or upgrade the CRDs at start")
	fl.IntVar(&o.Concurrency, "concurrency", 4, "parallel reconciles per kind")
	fl.Float32Var(&qps, "kube-api-qps", 50, "requests per second to the apiserver")
	fl.IntVar(&burst, "kube-api-burst", 100, "burst of requests to the apiserver")
	fl.BoolVar(&dev, "dev-log", false, "human-readable development logs")
	fl.StringVar(&schedulerURL, "scheduler-url", "", "URL of each scheduler's HTTP API, with {namespace} and {cluster} replaced (default: http://{cluster}-scheduler.{namespace}.svc:<the Service's http-dashboard port>); for runs outside the cluster")
	fl.DurationVar(&o.Scheduler.Timeout, "scheduler-timeout", 10*time.Second, "timeout of each request to a scheduler")
	fl.DurationVar(&o.Scheduler.RetireTimeout, "retire-timeout", 60*time.Second, "how long scale-down waits for the scheduler to retire a worker before deleting it anyway")
	fl.DurationVar(&o.Scheduler.AutoscalePeriod, "autoscale-period", 5*time.Second, "how often a DaskAutoscaler asks its scheduler for the adaptive target")
	fl.DurationVar(&o.Scheduler.AutoscaleCoolDown, "autoscale-cooldown", 15*time.Second, "how long after a change of worker count an autoscaler does not scale down (Dask's controller: 15s)")
	fl.DurationVar(&o.Scheduler.IdleCheckPeriod, "idle-check-period", 5*time.Second, "how often a cluster with spec.idleTimeout asks its scheduler whether it is idle")
	fl.DurationVar(&o.KopfFinalizerGrace, "kopf-finalizer-grace", reconciler.DefaultKopfFinalizerGrace, "how long after its deletion a DaskCluster or DaskAutoscaler may keep the finalizer Dask's operator (kopf) left before the operator removes it")
	return c
}

// restConfig loads the named kubeconfig, or controller-runtime's default
// chain when it is empty.
func restConfig(path string) (*rest.Config, error) {
	if path == "" {
		return ctrl.GetConfig()
	}
	return clientcmd.BuildConfigFromFlags("", path)
}

// moduleVersion is the release's version (ldflags), else the one Go
// recorded in the build info ("(devel)" for a build in a checkout).
func moduleVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionString is what --version prints: the version, the embedded CRDs
// with the Kubernetes minor they were compiled for, and the Go toolchain.
func versionString() string {
	var b strings.Builder
	fmt.Fprintf(&b, "k8s-crd-resolver-reconcile %s\n", moduleVersion())
	names, _ := fs.Glob(crds.FS, "*.yaml")
	for _, n := range names {
		data, _ := fs.ReadFile(crds.FS, n)
		header, _, _ := strings.Cut(string(data), "\n")
		_, k8s, _ := strings.Cut(header, " for Kubernetes ")
		k8s, _, _ = strings.Cut(strings.TrimSuffix(k8s, ". DO NOT EDIT."), ";") // the seal after the versions
		fmt.Fprintf(&b, "CRD: %s (Kubernetes %s)\n", n, k8s)
	}
	fmt.Fprintf(&b, "Go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}
