package reconciler

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Labels the operator puts on every object it creates.
const (
	LabelCluster     = "dask.org/cluster-name"
	LabelWorkerGroup = "dask.org/workergroup-name"
	LabelComponent   = "dask.org/component"
	LabelWorker      = "dask.org/worker-name"
)

// Values of LabelComponent.
const (
	ComponentScheduler   = "scheduler"
	ComponentWorker      = "worker"
	ComponentWorkerGroup = "workergroup"
	ComponentJobRunner   = "job-runner"
	ComponentCluster     = "cluster"
)

// Environment variables injected into worker and runner containers unless
// the user's container already sets them.
const (
	EnvSchedulerAddress = "DASK_SCHEDULER_ADDRESS"
	EnvWorkerName       = "DASK_WORKER_NAME"
)

// DefaultSchedulerPort is the Dask scheduler's comm port, used when the
// scheduler Service names no better candidate.
const DefaultSchedulerPort = 8786

// SchedulerName is the name of a cluster's scheduler Deployment and Service.
func SchedulerName(cluster string) string { return cluster + "-scheduler" }

// DefaultWorkerGroupName is the name of the worker group a DaskCluster owns.
func DefaultWorkerGroupName(cluster string) string { return cluster + "-default" }

// WorkerName is the name of worker i's Deployment in group wg.
func WorkerName(wg string, i int) string { return wg + "-worker-" + strconv.Itoa(i) }

// RunnerName is the name of a DaskJob's runner Pod.
func RunnerName(job string) string { return job + "-runner" }

// workerIndex parses the index out of a WorkerName; ok is false for names
// the operator did not make.
func workerIndex(wg, name string) (int, bool) {
	rest, found := strings.CutPrefix(name, wg+"-worker-")
	if !found {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || strconv.Itoa(i) != rest {
		return 0, false
	}
	return i, true
}

// SchedulerAddress returns the address workers and clients reach the
// scheduler of cluster at, through its Service.
func SchedulerAddress(namespace, cluster string, svc *corev1.ServiceSpec) string {
	return fmt.Sprintf("tcp://%s.%s.svc:%d", SchedulerName(cluster), namespace, schedulerPort(svc))
}

// schedulerPort picks the comm port of the scheduler Service: the port named
// tcp-comm, else the one numbered 8786, else the first, else 8786.
func schedulerPort(svc *corev1.ServiceSpec) int32 {
	if svc == nil || len(svc.Ports) == 0 {
		return DefaultSchedulerPort
	}
	for _, p := range svc.Ports {
		if p.Name == "tcp-comm" {
			return p.Port
		}
	}
	for _, p := range svc.Ports {
		if p.Port == DefaultSchedulerPort {
			return p.Port
		}
	}
	return svc.Ports[0].Port
}

// merged returns base with extra's keys laid over it; the operator's own
// labels (extra) win over the user's.
func merged(base, extra map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(extra))
	maps.Copy(out, base)
	maps.Copy(out, extra)
	return out
}

// injectEnv adds each name=value of env to every container that does not set
// name already, keeping the container's own order and entries.
func injectEnv(spec *corev1.PodSpec, env []corev1.EnvVar) {
	for i := range spec.Containers {
		c := &spec.Containers[i]
		for _, e := range env {
			if !slices.ContainsFunc(c.Env, func(have corev1.EnvVar) bool { return have.Name == e.Name }) {
				c.Env = append(c.Env, e)
			}
		}
	}
}

// schedulerLabels selects a cluster's scheduler pods.
func schedulerLabels(cluster string) map[string]string {
	return map[string]string{LabelCluster: cluster, LabelComponent: ComponentScheduler}
}

// schedulerDeployment builds the scheduler Deployment of dc from the user's
// scheduler pod spec, unchanged apart from labels.
func schedulerDeployment(dc *DaskCluster) *appsv1.Deployment {
	s := dc.Spec.Scheduler.DeepCopy()
	return oneReplica(SchedulerName(dc.Name), dc.Namespace, s.Metadata, schedulerLabels(dc.Name), s.Spec)
}

// withSchedulerAPI turns on the scheduler's HTTP API: the scheduler
// container (the one named "scheduler", else the first) gets
// EnvSchedulerHTTPRoutes unless its env already names that variable. It is
// applied outside the spec hash (see ensureWith), so schedulers created
// before the operator set it keep running untouched until their next change.
func withSchedulerAPI(d *appsv1.Deployment) {
	cs := d.Spec.Template.Spec.Containers
	if len(cs) == 0 {
		return
	}
	i := max(slices.IndexFunc(cs, func(c corev1.Container) bool { return c.Name == "scheduler" }), 0)
	if !slices.ContainsFunc(cs[i].Env, func(e corev1.EnvVar) bool { return e.Name == EnvSchedulerHTTPRoutes }) {
		cs[i].Env = append(cs[i].Env, corev1.EnvVar{Name: EnvSchedulerHTTPRoutes, Value: DefaultSchedulerHTTPRoutes})
	}
}

// oneReplica builds a single-replica Deployment selecting sel, whose object
// and pod template carry md's labels (under sel's) and annotations.
func oneReplica(name, namespace string, md Metadata, sel map[string]string, spec corev1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   namespace,
			Labels:      merged(md.Labels, sel),
			Annotations: md.Annotations,
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      merged(md.Labels, sel),
					Annotations: maps.Clone(md.Annotations),
				},
				Spec: spec,
			},
		},
	}
}

// schedulerService builds the scheduler Service of dc from the user's service
// spec; only the selector is the operator's.
func schedulerService(dc *DaskCluster) *corev1.Service {
	s := dc.Spec.Scheduler.DeepCopy()
	spec := s.Service
	spec.Selector = schedulerLabels(dc.Name)
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:        SchedulerName(dc.Name),
			Namespace:   dc.Namespace,
			Labels:      merged(s.Metadata.Labels, schedulerLabels(dc.Name)),
			Annotations: s.Metadata.Annotations,
		},
		Spec: spec,
	}
}

// defaultWorkerGroup builds dc's default worker group with replicas workers
// (the cluster's own count, clamped by any autoscaler).
func defaultWorkerGroup(dc *DaskCluster, replicas int32) *DaskWorkerGroup {
	w := dc.Spec.Worker.DeepCopy()
	w.Replicas = replicas
	name := DefaultWorkerGroupName(dc.Name)
	return &DaskWorkerGroup{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "DaskWorkerGroup"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: dc.Namespace,
			Labels: map[string]string{
				LabelCluster:     dc.Name,
				LabelWorkerGroup: name,
				LabelComponent:   ComponentWorkerGroup,
			},
		},
		Spec: DaskWorkerGroupSpec{Cluster: dc.Name, Worker: *w},
	}
}

// workerGroupSelector selects every worker Deployment (and pod) of wg.
func workerGroupSelector(wg *DaskWorkerGroup) map[string]string {
	return map[string]string{
		LabelCluster:     wg.Spec.Cluster,
		LabelWorkerGroup: wg.Name,
		LabelComponent:   ComponentWorker,
	}
}

// workerDeployment builds worker i of wg: one replica of the user's worker
// pod spec with the scheduler address and worker name injected.
func workerDeployment(wg *DaskWorkerGroup, i int, schedulerAddr string) *appsv1.Deployment {
	name := WorkerName(wg.Name, i)
	w := wg.Spec.Worker.DeepCopy()
	sel := workerGroupSelector(wg)
	sel[LabelWorker] = name
	injectEnv(&w.Spec, []corev1.EnvVar{
		{Name: EnvSchedulerAddress, Value: schedulerAddr},
		{Name: EnvWorkerName, Value: name},
	})
	return oneReplica(name, wg.Namespace, w.Metadata, sel, w.Spec)
}

// jobCluster builds the DaskCluster of job j.
func jobCluster(j *DaskJob) *DaskCluster {
	c := j.Spec.Cluster.DeepCopy()
	return &DaskCluster{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "DaskCluster"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        j.Name,
			Namespace:   j.Namespace,
			Labels:      merged(c.Metadata.Labels, map[string]string{LabelCluster: j.Name, LabelComponent: ComponentCluster}),
			Annotations: c.Metadata.Annotations,
		},
		Spec: c.Spec,
	}
}

// runnerPod builds the runner Pod of job j. A pod spec without a restart
// policy gets Never, so the job can finish.
func runnerPod(j *DaskJob) *corev1.Pod {
	t := j.Spec.Job.DeepCopy()
	spec := t.Spec
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyNever
	}
	injectEnv(&spec, []corev1.EnvVar{{
		Name:  EnvSchedulerAddress,
		Value: SchedulerAddress(j.Namespace, j.Name, &j.Spec.Cluster.Spec.Scheduler.Service),
	}})
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        RunnerName(j.Name),
			Namespace:   j.Namespace,
			Labels:      merged(t.Metadata.Labels, map[string]string{LabelCluster: j.Name, LabelComponent: ComponentJobRunner}),
			Annotations: t.Metadata.Annotations,
		},
		Spec: spec,
	}
}

// clamp bounds n to [lo, hi]; when lo > hi the upper bound wins.
func clamp(n, lo, hi int32) int32 {
	return min(max(n, lo), hi)
}

// workerInfo is what retirement decisions look at.
type workerInfo struct {
	Name  string
	Index int
	Ready bool
}

// pickRetirees chooses n workers to retire: workers that are not ready go
// first (they do no work yet), then the highest indices (the newest). The
// result is deterministic for a given input.
func pickRetirees(workers []workerInfo, n int) []string {
	ws := slices.Clone(workers)
	slices.SortFunc(ws, func(a, b workerInfo) int {
		if a.Ready != b.Ready {
			if !a.Ready {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.Index, a.Index)
	})
	n = min(max(n, 0), len(ws))
	out := make([]string, 0, n)
	for _, w := range ws[:n] {
		out = append(out, w.Name)
	}
	return out
}

// freeIndices returns the n lowest indices not in used.
func freeIndices(used map[int]bool, n int) []int {
	out := make([]int, 0, n)
	for i := 0; len(out) < n; i++ {
		if !used[i] {
			out = append(out, i)
		}
	}
	return out
}

// selectorString renders a label set as a selector string for status.
func selectorString(set map[string]string) string {
	return labels.SelectorFromSet(set).String()
}
