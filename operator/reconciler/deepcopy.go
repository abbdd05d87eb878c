package reconciler

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"maps"

	"k8s.io/apimachinery/pkg/runtime"
)

// Hand-written deep copies; every pointer, map and slice is copied, so a
// copy may be edited without touching the informer cache's object.

// DeepCopyInto copies m into out.
func (m *Metadata) DeepCopyInto(out *Metadata) {
	out.Labels = maps.Clone(m.Labels)
	out.Annotations = maps.Clone(m.Annotations)
}

// DeepCopyInto copies w into out.
func (w *WorkerSpec) DeepCopyInto(out *WorkerSpec) {
	out.Replicas = w.Replicas
	w.Metadata.DeepCopyInto(&out.Metadata)
	w.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopyInto copies s into out.
func (s *SchedulerSpec) DeepCopyInto(out *SchedulerSpec) {
	s.Metadata.DeepCopyInto(&out.Metadata)
	s.Spec.DeepCopyInto(&out.Spec)
	s.Service.DeepCopyInto(&out.Service)
}

// DeepCopyInto copies s into out.
func (s *DaskClusterSpec) DeepCopyInto(out *DaskClusterSpec) {
	out.IdleTimeout = s.IdleTimeout
	s.Scheduler.DeepCopyInto(&out.Scheduler)
	s.Worker.DeepCopyInto(&out.Worker)
}

// DeepCopyInto copies c into out.
func (c *DaskCluster) DeepCopyInto(out *DaskCluster) {
	out.TypeMeta = c.TypeMeta
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	c.Spec.DeepCopyInto(&out.Spec)
	out.Status = c.Status
	out.Status.IdleSince = c.Status.IdleSince.DeepCopy()
	if c.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(c.Status.Conditions))
		for i := range c.Status.Conditions {
			c.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

// DeepCopy returns a deep copy of c.
func (c *DaskCluster) DeepCopy() *DaskCluster {
	if c == nil {
		return nil
	}
	out := new(DaskCluster)
	c.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (c *DaskCluster) DeepCopyObject() runtime.Object { return c.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *DaskClusterList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &DaskClusterList{TypeMeta: l.TypeMeta, Items: copyItems(l.Items)}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	return out
}

// DeepCopyInto copies g into out.
func (g *DaskWorkerGroup) DeepCopyInto(out *DaskWorkerGroup) {
	out.TypeMeta = g.TypeMeta
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Cluster = g.Spec.Cluster
	g.Spec.Worker.DeepCopyInto(&out.Spec.Worker)
	out.Status = g.Status
}

// DeepCopy returns a deep copy of g.
func (g *DaskWorkerGroup) DeepCopy() *DaskWorkerGroup {
	if g == nil {
		return nil
	}
	out := new(DaskWorkerGroup)
	g.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (g *DaskWorkerGroup) DeepCopyObject() runtime.Object { return g.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *DaskWorkerGroupList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &DaskWorkerGroupList{TypeMeta: l.TypeMeta, Items: copyItems(l.Items)}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	return out
}

// DeepCopyInto copies j into out.
func (j *DaskJob) DeepCopyInto(out *DaskJob) {
	out.TypeMeta = j.TypeMeta
	j.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	j.Spec.Job.Metadata.DeepCopyInto(&out.Spec.Job.Metadata)
	j.Spec.Job.Spec.DeepCopyInto(&out.Spec.Job.Spec)
	j.Spec.Cluster.Metadata.DeepCopyInto(&out.Spec.Cluster.Metadata)
	j.Spec.Cluster.Spec.DeepCopyInto(&out.Spec.Cluster.Spec)
	out.Status = j.Status
	out.Status.StartTime = j.Status.StartTime.DeepCopy()
	out.Status.EndTime = j.Status.EndTime.DeepCopy()
}

// DeepCopy returns a deep copy of j.
func (j *DaskJob) DeepCopy() *DaskJob {
	if j == nil {
		return nil
	}
	out := new(DaskJob)
	j.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (j *DaskJob) DeepCopyObject() runtime.Object { return j.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *DaskJobList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &DaskJobList{TypeMeta: l.TypeMeta, Items: copyItems(l.Items)}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	return out
}

// DeepCopyInto copies a into out.
func (a *DaskAutoscaler) DeepCopyInto(out *DaskAutoscaler) {
	out.TypeMeta = a.TypeMeta
	a.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = a.Spec
	out.Status = a.Status
	out.Status.LastScaleTime = a.Status.LastScaleTime.DeepCopy()
	out.Status.SchedulerTargetTime = a.Status.SchedulerTargetTime.DeepCopy()
	if a.Status.SchedulerTarget != nil {
		out.Status.SchedulerTarget = new(*a.Status.SchedulerTarget)
	}
}

// DeepCopy returns a deep copy of a.
func (a *DaskAutoscaler) DeepCopy() *DaskAutoscaler {
	if a == nil {
		return nil
	}
	out := new(DaskAutoscaler)
	a.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (a *DaskAutoscaler) DeepCopyObject() runtime.Object { return a.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *DaskAutoscalerList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &DaskAutoscalerList{TypeMeta: l.TypeMeta, Items: copyItems(l.Items)}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	return out
}

// DeepCopy returns a deep copy of w.
func (w *WorkerSpec) DeepCopy() *WorkerSpec {
	out := new(WorkerSpec)
	w.DeepCopyInto(out)
	return out
}

// DeepCopy returns a deep copy of s.
func (s *SchedulerSpec) DeepCopy() *SchedulerSpec {
	out := new(SchedulerSpec)
	s.DeepCopyInto(out)
	return out
}

// DeepCopy returns a deep copy of t.
func (t *JobTemplate) DeepCopy() *JobTemplate {
	out := new(JobTemplate)
	t.Metadata.DeepCopyInto(&out.Metadata)
	t.Spec.DeepCopyInto(&out.Spec)
	return out
}

// DeepCopy returns a deep copy of t.
func (t *ClusterTemplate) DeepCopy() *ClusterTemplate {
	out := new(ClusterTemplate)
	t.Metadata.DeepCopyInto(&out.Metadata)
	t.Spec.DeepCopyInto(&out.Spec)
	return out
}

// copyItems deep-copies the items of a list.
func copyItems[T any, P interface {
	*T
	DeepCopyInto(*T)
}](in []T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i := range in {
		P(&in[i]).DeepCopyInto(&out[i])
	}
	return out
}
