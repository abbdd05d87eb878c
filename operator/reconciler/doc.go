// Package reconciler is a small Dask operator on controller-runtime. It
// consumes the CRDs compiled from templates/ (embedded from operator/crds/,
// dist/'s CRDs with Kubernetes' descriptions) and turns DaskCluster, DaskWorkerGroup, DaskJob
// and DaskAutoscaler objects (their Go types: package api/v1, imported as
// daskv1) into Deployments, Services and Pods built from the user's own pod
// templates.
//
// # Install
//
// InstallCRDs applies the CRDs with server-side apply (field manager
// dask-operator, forced: Helm never upgrades CRDs, so the operator does) and
// waits until each is Established. Run does that, then starts the manager.
//
// # Reconcile
//
// Each kind has one reconciler; each takes its client.Client (and the rest of
// Deps) as fields, so tests build them around any client.
//
//	DaskCluster     -> <name>-scheduler Deployment and Service, <name>-default DaskWorkerGroup
//	DaskWorkerGroup -> <group>-worker-<i> Deployments, one replica each
//	DaskJob         -> DaskCluster <name> and runner Pod <name>-runner
//	DaskAutoscaler  -> status only; ClusterReconciler applies its choice
//
// Every child carries a controller owner reference (deleting a parent lets
// the garbage collector delete its children), the labels dask.org/cluster-name,
// dask.org/component (and dask.org/workergroup-name on workers), and the
// annotation kubernetes.dask.org/spec-hash: a hash of what the operator last
// wrote. Reconciles are level-triggered and idempotent; when the hash of the
// desired child matches, nothing is written. Updates retry on conflict after
// re-reading from the apiserver, not the cache. Status is written with merge
// patches on the status subresource, only when it changed, on every way out
// of a reconcile (deferred patchStatus).
//
// As in dask-kubernetes' operator, children inherit their resource's labels
// and annotations (not kopf.zalando.org* and kubectl.kubernetes.io*
// annotations), with the template's spec.*.metadata over them (inherited);
// a DaskWorkerGroup or DaskAutoscaler a user creates for an existing
// cluster is adopted by it (adopt); a cluster name its children cannot
// carry gets phase Error, and nothing is created (validateClusterName).
// Phases have Dask's meanings: Created (accepted), Pending (children
// created), Running (the scheduler Service is usable); the scheduler
// Deployment's availability is condition SchedulerAvailable.
//
// # Scale
//
// The default worker group's replicas are the cluster's spec.worker.replicas,
// or, once a DaskAutoscaler naming the cluster has changed the count, the
// autoscaler's choice (status.desiredWorkers) clamped to its [minimum,
// maximum]; the cluster reconciler is the only writer. The autoscaler polls
// the scheduler's adaptive target and decides, from the group's replicas as
// they stand, with decideScale, paced as Dask's controller paces: scale up
// at once; scale down only after a cool-down since the last change, and by
// at most a quarter of the group (at least one) per decision. A round whose
// scheduler cannot be asked changes nothing. New workers take the lowest
// free indices.
//
// # Talk to the scheduler
//
// SchedulerClient speaks the scheduler's HTTP API (net/http, per-request
// timeouts, bounded retries with backoff). The scheduler is tenant code: no
// redirect is followed, no answer body is repeated in errors, answers are
// bounded, an ExternalName Service is refused, the scheduler is reached at
// its Service's cluster IP (SchedulerOptions.URL overrides that), all calls
// of one reconcile share a CallBudget, and a scheduler that uses one up
// cools off (SlowSchedulers). The scheduler container
// gets EnvSchedulerHTTPRoutes, which turns the API on, unless it sets it.
//
// Scale-down is graceful: the workers to retire (not ready first, then the
// highest indices) are marked with AnnotationRetiring, the scheduler is asked
// to retire them (POST /api/v1/retire_workers), and each Deployment is
// deleted once the scheduler no longer lists its worker, or, with a Warning
// event, after RetireTimeout (decideRetire).
//
// A cluster with spec.idleTimeout is deleted, after an event, once its
// scheduler has been idle that long: by the scheduler's check_idle, else by
// polling its task counts (decideIdleFromCounts); status.idleDetection says
// which, or that neither is served.
//
// # Observe
//
// NewManager serves /healthz and /readyz (informers synced) on ProbeAddr and
// the controller-runtime Prometheus metrics on MetricsAddr, and records
// events.k8s.io events for failures and phase changes.
package reconciler
