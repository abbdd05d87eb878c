package reconciler

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
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

// merged returns the union of maps, later maps' keys winning: the
// operator's own labels come last, over the user's.
func merged(ms ...map[string]string) map[string]string {
	n := 0
	for _, m := range ms {
		n += len(m)
	}
	out := make(map[string]string, n)
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// ignoredAnnotationPrefixes are the annotations of a Dask resource its
// children do not inherit: kopf's bookkeeping (Dask's own operator writes
// it on every resource it handles) and kubectl's (last-applied-configuration
// is a copy of the whole resource). Dask's operator skips the same two.
var ignoredAnnotationPrefixes = []string{"kopf.zalando.org", "kubectl.kubernetes.io"}

// ownAnnotations are this operator's bookkeeping on the objects it writes;
// a child of a child (a job's cluster's scheduler) does not inherit them.
var ownAnnotations = []string{AnnotationSpecHash, AnnotationRetiring}

// inherited is the metadata every child of obj inherits: all of obj's
// labels and its annotations except the ignored ones, with t's (the
// template's spec.*.metadata) laid over them, as Dask's operator does.
func inherited(obj metav1.Object, t daskv1.Metadata) daskv1.Metadata {
	ann := make(map[string]string, len(obj.GetAnnotations())+len(t.Annotations))
	for k, v := range obj.GetAnnotations() {
		if slices.Contains(ownAnnotations, k) || slices.ContainsFunc(ignoredAnnotationPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			continue
		}
		ann[k] = v
	}
	maps.Copy(ann, t.Annotations)
	md := daskv1.Metadata{Labels: merged(obj.GetLabels(), t.Labels), Annotations: ann}
	if len(md.Labels) == 0 {
		md.Labels = nil
	}
	if len(md.Annotations) == 0 {
		md.Annotations = nil
	}
	return md
}

// LabelIstioInject is Istio's per-pod sidecar switch. The operator sets it
// to "false" on scheduler, worker and runner pods (as Dask's operator does:
// an injected sidecar keeps a finished runner Pod running and sits between
// the scheduler and its workers), unless the user's template sets it.
const LabelIstioInject = "sidecar.istio.io/inject"

// withoutIstio adds LabelIstioInject=false to a pod template's labels
// unless they name it.
func withoutIstio(pt *corev1.PodTemplateSpec) {
	if _, ok := pt.Labels[LabelIstioInject]; ok {
		return
	}
	if pt.Labels == nil {
		pt.Labels = map[string]string{}
	}
	pt.Labels[LabelIstioInject] = "false"
}

// maxLabelValue is the longest label value Kubernetes accepts.
const maxLabelValue = 63

// labelValue returns name as a label value: unchanged up to 63 characters,
// else its first 52 and a hash of the whole (so names too long for a label,
// which could never be created before, now get workers).
func labelValue(name string) string {
	if len(name) <= maxLabelValue {
		return name
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	return name[:52] + "-" + strconv.FormatUint(h.Sum64(), 36)
}

// maxClusterName is the longest DaskCluster name whose children's names
// fit Kubernetes' 63-character limit for Services ("<name>-scheduler").
const maxClusterName = 63 - len("-scheduler")

// validateClusterName reports why name cannot name a DaskCluster's
// children, or nil. Dask's operator applies the same rule: an RFC 1123
// label (lower-case letters, digits and '-', starting and ending with a
// letter or digit, so no dots) of at most maxClusterName characters.
func validateClusterName(name string) error {
	if len(name) > maxClusterName {
		return fmt.Errorf("the name is %d characters long; a DaskCluster's name must be at most %d (its scheduler Service is <name>-scheduler, at most 63)", len(name), maxClusterName)
	}
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return fmt.Errorf("a DaskCluster's name must be lower-case letters, digits and '-', starting and ending with a letter or digit, without dots (it names Services and labels): %s", strings.Join(errs, "; "))
	}
	return nil
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
// scheduler pod spec, unchanged apart from metadata: dc's own labels and
// annotations with spec.scheduler.metadata's over them, and the operator's
// labels over both.
func schedulerDeployment(dc *daskv1.DaskCluster) *appsv1.Deployment {
	s := dc.Spec.Scheduler.DeepCopy()
	return oneReplica(SchedulerName(dc.Name), dc.Namespace, inherited(dc, s.Metadata), nil, schedulerLabels(dc.Name), s.Spec)
}

// withSchedulerAPI turns on the scheduler's HTTP API: the scheduler
// container (the one named "scheduler", else the first) gets
// EnvSchedulerHTTPRoutes unless its env already names that variable. It
// also opts the pod out of Istio (withoutIstio). It is applied outside the
// spec hash (see ensureWith), so schedulers created before the operator set
// these keep running untouched until their next change.
func withSchedulerAPI(d *appsv1.Deployment) {
	withoutIstio(&d.Spec.Template)
	cs := d.Spec.Template.Spec.Containers
	if len(cs) == 0 {
		return
	}
	i := max(slices.IndexFunc(cs, func(c corev1.Container) bool { return c.Name == "scheduler" }), 0)
	if !slices.ContainsFunc(cs[i].Env, func(e corev1.EnvVar) bool { return e.Name == EnvSchedulerHTTPRoutes }) {
		cs[i].Env = append(cs[i].Env, corev1.EnvVar{Name: EnvSchedulerHTTPRoutes, Value: DefaultSchedulerHTTPRoutes})
	}
}

// withWorkerDefaults is the workers' counterpart of withSchedulerAPI,
// applied outside the spec hash for the same reason: it opts the pod out of
// Istio.
func withWorkerDefaults(d *appsv1.Deployment) {
	withoutIstio(&d.Spec.Template)
}

// oneReplica builds a single-replica Deployment selecting sel, whose object
// and pod template carry md's labels (under sel's) and annotations; the
// object alone also carries extra's labels, under all others.
func oneReplica(name, namespace string, md daskv1.Metadata, extra, sel map[string]string, spec corev1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   namespace,
			Labels:      merged(extra, md.Labels, sel),
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

// schedulerService builds the scheduler Service of dc from the user's
// service spec, with the scheduler Deployment's metadata. The user's
// selector is kept, as Dask's operator does; an empty one selects dc's
// scheduler pods.
func schedulerService(dc *daskv1.DaskCluster) *corev1.Service {
	s := dc.Spec.Scheduler.DeepCopy()
	spec := s.Service
	if len(spec.Selector) == 0 {
		spec.Selector = schedulerLabels(dc.Name)
	}
	md := inherited(dc, s.Metadata)
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:        SchedulerName(dc.Name),
			Namespace:   dc.Namespace,
			Labels:      merged(md.Labels, schedulerLabels(dc.Name)),
			Annotations: md.Annotations,
		},
		Spec: spec,
	}
}

// defaultWorkerGroup builds dc's default worker group with replicas workers
// (the cluster's own count, clamped by any autoscaler). Its metadata is
// dc's with spec.worker.metadata over it; its workers inherit that in turn.
func defaultWorkerGroup(dc *daskv1.DaskCluster, replicas int32) *daskv1.DaskWorkerGroup {
	w := dc.Spec.Worker.DeepCopy()
	w.Replicas = replicas
	name := DefaultWorkerGroupName(dc.Name)
	md := inherited(dc, w.Metadata)
	return &daskv1.DaskWorkerGroup{
		TypeMeta: metav1.TypeMeta{APIVersion: daskv1.GroupVersion.String(), Kind: "DaskWorkerGroup"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: dc.Namespace,
			Labels: merged(md.Labels, map[string]string{
				LabelCluster:     dc.Name,
				LabelWorkerGroup: labelValue(name),
				LabelComponent:   ComponentWorkerGroup,
			}),
			Annotations: md.Annotations,
		},
		Spec: daskv1.DaskWorkerGroupSpec{Cluster: dc.Name, Worker: *w},
	}
}

// workerGroupSelector selects every worker Deployment (and pod) of wg.
func workerGroupSelector(wg *daskv1.DaskWorkerGroup) map[string]string {
	return map[string]string{
		LabelCluster:     labelValue(wg.Spec.Cluster),
		LabelWorkerGroup: labelValue(wg.Name),
		LabelComponent:   ComponentWorker,
	}
}

// workerDeployment builds worker i of wg: one replica of the user's worker
// pod spec with the scheduler address and worker name injected. Its
// metadata is wg's own with spec.worker.metadata over it; the Deployment
// object also carries clusterLabels (its cluster's labels) under those, as
// Dask's operator labels worker Deployments with their cluster's labels.
func workerDeployment(wg *daskv1.DaskWorkerGroup, i int, schedulerAddr string, clusterLabels map[string]string) *appsv1.Deployment {
	name := WorkerName(wg.Name, i)
	w := wg.Spec.Worker.DeepCopy()
	sel := workerGroupSelector(wg)
	sel[LabelWorker] = labelValue(name)
	injectEnv(&w.Spec, []corev1.EnvVar{
		{Name: EnvSchedulerAddress, Value: schedulerAddr},
		{Name: EnvWorkerName, Value: name},
	})
	return oneReplica(name, wg.Namespace, inherited(wg, w.Metadata), clusterLabels, sel, w.Spec)
}

// jobCluster builds the DaskCluster of job j: j's labels and annotations
// with spec.cluster.metadata's over them.
func jobCluster(j *daskv1.DaskJob) *daskv1.DaskCluster {
	c := j.Spec.Cluster.DeepCopy()
	md := inherited(j, c.Metadata)
	return &daskv1.DaskCluster{
		TypeMeta: metav1.TypeMeta{APIVersion: daskv1.GroupVersion.String(), Kind: "DaskCluster"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        j.Name,
			Namespace:   j.Namespace,
			Labels:      merged(md.Labels, map[string]string{LabelCluster: j.Name, LabelComponent: ComponentCluster}),
			Annotations: md.Annotations,
		},
		Spec: c.Spec,
	}
}

// runnerPod builds the runner Pod of job j, with j's labels and
// annotations and spec.job.metadata's over them. A pod spec without a
// restart policy (stored before the CRD defaulted it) gets OnFailure, the
// CRD's default and Dask's: a runner that fails is retried in place.
func runnerPod(j *daskv1.DaskJob) *corev1.Pod {
	t := j.Spec.Job.DeepCopy()
	spec := t.Spec
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyOnFailure
	}
	injectEnv(&spec, []corev1.EnvVar{{
		Name:  EnvSchedulerAddress,
		Value: SchedulerAddress(j.Namespace, j.Name, &j.Spec.Cluster.Spec.Scheduler.Service),
	}})
	md := inherited(j, t.Metadata)
	pt := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{
		Labels: merged(md.Labels, map[string]string{LabelCluster: j.Name, LabelComponent: ComponentJobRunner}),
	}}
	withoutIstio(&pt)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        RunnerName(j.Name),
			Namespace:   j.Namespace,
			Labels:      pt.Labels,
			Annotations: md.Annotations,
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
	// Legacy: made by Dask's operator and adopted (isLegacyWorker); Index
	// means nothing.
	Legacy bool
}

// pickRetirees chooses n workers to retire: workers that are not ready go
// first (they do no work yet), then those Dask's operator made (by name),
// then the highest indices (the newest). The result is deterministic for a
// given input.
func pickRetirees(workers []workerInfo, n int) []string {
	ws := slices.Clone(workers)
	slices.SortFunc(ws, func(a, b workerInfo) int {
		if a.Ready != b.Ready {
			if !a.Ready {
				return -1
			}
			return 1
		}
		if a.Legacy != b.Legacy {
			if a.Legacy {
				return -1
			}
			return 1
		}
		if a.Legacy {
			return strings.Compare(a.Name, b.Name)
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
