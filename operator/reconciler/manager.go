package reconciler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// Options configure the operator. The zero value watches every namespace,
// serves metrics on :8080 and probes on :8081, without leader election.
type Options struct {
	// Namespace limits the operator to one namespace; "" watches all.
	Namespace string
	// MetricsAddr is the Prometheus /metrics listen address; "0" disables it.
	MetricsAddr string
	// ProbeAddr is the /healthz and /readyz listen address; "0" disables it.
	ProbeAddr string
	// LeaderElection makes only one replica reconcile at a time.
	LeaderElection bool
	// LeaderElectionID names the lease; LeaderElectionNamespace holds it
	// (default: Namespace, else the in-cluster namespace).
	LeaderElectionID        string
	LeaderElectionNamespace string
	// CRDs are installed at start; nil means the embedded ones (package crds).
	CRDs CRDSource
	// SkipCRDInstall leaves the CRDs as they are on the server.
	SkipCRDInstall bool
	// CRDTimeout bounds the wait for Established (default 60s).
	CRDTimeout time.Duration
	// Concurrency is the number of parallel reconciles per kind (default 4).
	Concurrency int
	// Scheduler configures how the operator reaches Dask schedulers.
	Scheduler SchedulerOptions
	// KopfFinalizerGrace is how long after a deletion a finalizer that
	// Dask's operator (kopf) left on a DaskCluster or DaskAutoscaler may
	// stay before the operator removes it (default
	// DefaultKopfFinalizerGrace).
	KopfFinalizerGrace time.Duration
}

// SchedulerOptions configure the operator's use of each scheduler's HTTP
// API: graceful scale-down, adaptive autoscaling and idle timeouts. A zero
// field takes the default named on it.
type SchedulerOptions struct {
	// URL, when set, returns the base URL of the HTTP API of the scheduler
	// of cluster in namespace; "" falls back to the in-cluster Service
	// address (SchedulerHTTPURL). It serves runs outside the cluster (no
	// pod network) and tests. See SchedulerURLTemplate.
	URL func(namespace, cluster string) string
	// Timeout bounds each GET to a scheduler (default 10s).
	Timeout time.Duration
	// CallBudget bounds all scheduler calls of one reconcile, retries
	// included (default 15s), except a graceful retirement, which
	// RetireTimeout bounds: a slow or hostile scheduler holds one reconcile
	// worker for at most this long per reconcile.
	CallBudget time.Duration
	// SlowCoolOff is how long a scheduler that used up a whole CallBudget
	// is not asked again (default 1m); see SlowSchedulers.
	SlowCoolOff time.Duration
	// RetireTimeout bounds graceful retirement: a worker the scheduler has
	// not retired this long after scale-down chose it is deleted anyway,
	// with a Warning event (default 60s).
	RetireTimeout time.Duration
	// AutoscalePeriod is how often a DaskAutoscaler asks its scheduler for
	// the adaptive target (default 5s).
	AutoscalePeriod time.Duration
	// AutoscaleCoolDown is how long after a change of worker count a
	// DaskAutoscaler does not scale down (default 15s, as in Dask's
	// controller).
	AutoscaleCoolDown time.Duration
	// IdleCheckPeriod is how often a cluster with spec.idleTimeout asks its
	// scheduler whether it is idle (default 5s).
	IdleCheckPeriod time.Duration
}

// withDefaults returns a copy of o with defaults applied.
func (o SchedulerOptions) withDefaults() SchedulerOptions {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.CallBudget <= 0 {
		o.CallBudget = 15 * time.Second
	}
	if o.SlowCoolOff <= 0 {
		o.SlowCoolOff = time.Minute
	}
	if o.RetireTimeout <= 0 {
		o.RetireTimeout = 60 * time.Second
	}
	if o.AutoscalePeriod <= 0 {
		o.AutoscalePeriod = 5 * time.Second
	}
	if o.AutoscaleCoolDown <= 0 {
		o.AutoscaleCoolDown = 15 * time.Second
	}
	if o.IdleCheckPeriod <= 0 {
		o.IdleCheckPeriod = 5 * time.Second
	}
	return o
}

// ControllerOptions are the per-controller settings derived from Options.
type ControllerOptions struct {
	// Concurrency is the number of parallel reconciles; below 1 means 1.
	Concurrency int
}

func (o ControllerOptions) controller() controller.Options {
	return controller.Options{MaxConcurrentReconciles: max(o.Concurrency, 1)}
}

// withDefaults returns a copy of o with defaults applied.
func (o Options) withDefaults() Options {
	if o.MetricsAddr == "" {
		o.MetricsAddr = ":8080"
	}
	if o.ProbeAddr == "" {
		o.ProbeAddr = ":8081"
	}
	if o.LeaderElectionID == "" {
		o.LeaderElectionID = "dask-operator.kubernetes.dask.org"
	}
	if o.LeaderElectionNamespace == "" {
		o.LeaderElectionNamespace = o.Namespace
	}
	if o.CRDTimeout == 0 {
		o.CRDTimeout = 60 * time.Second
	}
	if o.Concurrency == 0 {
		o.Concurrency = 4
	}
	o.Scheduler = o.Scheduler.withDefaults()
	return o
}

// NewScheme returns a scheme with the built-in kinds, CRDs and Dask kinds.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, daskv1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// RBAC, a Role in the operator's namespace (the kustomize base's and, for
// the chart, the release's): leader election's lease, by its name once it
// exists (LeaderElectionID's default), and the core/v1 "became leader" event.
// +kubebuilder:rbac:roleName=dask-operator-leader-election,namespace=dask-operator,groups=coordination.k8s.io,resources=leases,verbs=create
// +kubebuilder:rbac:roleName=dask-operator-leader-election,namespace=dask-operator,groups=coordination.k8s.io,resources=leases,resourceNames=dask-operator.kubernetes.dask.org,verbs=get;update
// +kubebuilder:rbac:roleName=dask-operator-leader-election,namespace=dask-operator,groups="",resources=events,verbs=create

// NewManager returns a manager running the four Dask controllers, with
// health and readiness checks and a metrics endpoint. It does not install
// CRDs; see InstallCRDs and Run.
func NewManager(cfg *rest.Config, opts Options) (ctrl.Manager, error) {
	opts = opts.withDefaults()
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	mo := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: opts.MetricsAddr},
		HealthProbeBindAddress:  opts.ProbeAddr,
		LeaderElection:          opts.LeaderElection,
		LeaderElectionID:        opts.LeaderElectionID,
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
	}
	if opts.Namespace != "" {
		mo.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{opts.Namespace: {}}}
	}
	mgr, err := ctrl.NewManager(cfg, mo)
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(context.Background(), &daskv1.DaskAutoscaler{}, indexAutoscalerCluster, func(o client.Object) []string {
		return []string{o.(*daskv1.DaskAutoscaler).Spec.Cluster}
	}); err != nil {
		return nil, fmt.Errorf("indexing autoscalers: %w", err)
	}
	if err := idx.IndexField(context.Background(), &daskv1.DaskWorkerGroup{}, indexWorkerGroupCluster, func(o client.Object) []string {
		return []string{o.(*daskv1.DaskWorkerGroup).Spec.Cluster}
	}); err != nil {
		return nil, fmt.Errorf("indexing worker groups: %w", err)
	}
	deps := Deps{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder(FieldOwner),
		Scheduler: opts.Scheduler,
		Slow:      &SlowSchedulers{},

		KopfFinalizerGrace: opts.KopfFinalizerGrace,
	}
	co := ControllerOptions{Concurrency: opts.Concurrency}
	for _, c := range []interface {
		SetupWithManager(ctrl.Manager, ControllerOptions) error
	}{
		&ClusterReconciler{Deps: deps},
		&WorkerGroupReconciler{Deps: deps},
		&JobReconciler{Deps: deps},
		&AutoscalerReconciler{Deps: deps},
	} {
		if err := c.SetupWithManager(mgr, co); err != nil {
			return nil, fmt.Errorf("setting up %T: %w", c, err)
		}
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("informers", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("informer caches not synced")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return mgr, nil
}

// Run installs or upgrades the CRDs, then runs the operator until ctx ends.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	opts = opts.withDefaults()
	if !opts.SkipCRDInstall {
		src := opts.CRDs
		if src == nil {
			src = EmbeddedCRDs()
		}
		scheme, err := NewScheme()
		if err != nil {
			return err
		}
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			return err
		}
		if err := InstallCRDs(ctx, c, src, opts.CRDTimeout); err != nil {
			return err
		}
	}
	mgr, err := NewManager(cfg, opts)
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}
