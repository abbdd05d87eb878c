// Package reconciler is a small Dask operator on controller-runtime. It
// consumes the CRDs compiled from templates/ (embedded from operator/crds/,
// the same bytes as dist/) and turns DaskCluster, DaskWorkerGroup, DaskJob
// and DaskAutoscaler objects into
// Deployments, Services and Pods built from the user's own pod templates.
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
//	DaskAutoscaler  -> status only; ClusterReconciler applies its bounds
//
// Every child carries a controller owner reference (deleting a parent lets
// the garbage collector delete its children), the labels dask.org/cluster-name,
// dask.org/component (and dask.org/workergroup-name on workers), and the
// annotation kubernetes.dask.org/spec-hash: a hash of what the operator last
// wrote. Reconciles are level-triggered and idempotent; when the hash of the
// desired child matches, nothing is written. Updates retry on conflict after
// re-reading from the apiserver, not the cache. Status is written with merge
// patches on the status subresource, only when it changed.
//
// # Scale
//
// The default worker group's replicas are the cluster's spec.worker.replicas
// clamped to [minimum, maximum] of a DaskAutoscaler naming the cluster; the
// cluster reconciler is the only writer. Scaling down retires workers whose
// Deployment has no available replica first, then the highest indices; new
// workers take the lowest free indices.
//
// # Observe
//
// NewManager serves /healthz and /readyz (informers synced) on ProbeAddr and
// the controller-runtime Prometheus metrics on MetricsAddr, and records
// events.k8s.io events for failures and phase changes.
package reconciler
