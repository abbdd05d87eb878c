package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phases of a DaskCluster, with the meaning dask-kubernetes' operator gives
// them (its KubeCluster client waits for Running), in the order a healthy
// cluster passes them. How far the scheduler and workers really are lives in
// status.conditions (ConditionSchedulerAvailable).
const (
	PhaseCreated = "Created" // accepted; the operator has seen it
	PhasePending = "Pending" // its children are created; the scheduler Service is not usable yet
	PhaseRunning = "Running" // the scheduler Service is usable (a LoadBalancer has an ingress)
	PhaseError   = "Error"   // the cluster cannot be built (an invalid name); nothing was created
)

// Condition types of a DaskCluster's status.conditions.
const (
	// ConditionSchedulerAvailable is True once the scheduler Deployment has
	// an available replica (what phase Running meant before the operator
	// followed Dask's phases).
	ConditionSchedulerAvailable = "SchedulerAvailable"
)

// Job states of a DaskJob (status.jobStatus).
const (
	JobCreated     = "JobCreated"
	ClusterCreated = "ClusterCreated"
	JobRunning     = "Running"
	JobSuccessful  = "Successful"
	JobFailed      = "Failed"
)

// Metadata is the labels/annotations-only metadata a template may carry onto
// the objects made from it (templates/definitions.yaml#/definitions/Metadata).
// +kubebuilder:object:generate=true
type Metadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// WorkerSpec describes the workers of a worker group. Replicas has no
// omitempty: 0 is a real request and must not fall back to the CRD default.
// +kubebuilder:object:generate=true
type WorkerSpec struct {
	Replicas int32          `json:"replicas"`
	Metadata Metadata       `json:"metadata,omitzero"`
	Spec     corev1.PodSpec `json:"spec"`
}

// SchedulerSpec describes the scheduler Deployment and its Service.
// +kubebuilder:object:generate=true
type SchedulerSpec struct {
	Metadata Metadata           `json:"metadata,omitzero"`
	Spec     corev1.PodSpec     `json:"spec"`
	Service  corev1.ServiceSpec `json:"service"`
}

// DaskClusterSpec is the spec of a DaskCluster.
// +kubebuilder:object:generate=true
type DaskClusterSpec struct {
	IdleTimeout int64         `json:"idleTimeout,omitempty"`
	Scheduler   SchedulerSpec `json:"scheduler"`
	Worker      WorkerSpec    `json:"worker"`
}

// DaskClusterStatus is the observed state of a DaskCluster.
// +kubebuilder:object:generate=true
type DaskClusterStatus struct {
	Phase              string `json:"phase,omitempty"`
	Workers            int32  `json:"workers,omitempty"`
	ReadyWorkers       int32  `json:"readyWorkers,omitempty"`
	SchedulerAddress   string `json:"schedulerAddress,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	// IdleSince is when the scheduler was last seen to become idle; unset
	// while it is busy, or when idle timeout is off or cannot be checked.
	IdleSince *metav1.Time `json:"idleSince,omitempty"`
	// IdleDetection says how spec.idleTimeout is checked: one of the
	// Idle* constants; unset when spec.idleTimeout is 0.
	IdleDetection string `json:"idleDetection,omitempty"`
	// Conditions say how far the cluster's components are (types:
	// ConditionSchedulerAvailable).
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Values of DaskClusterStatus.IdleDetection.
const (
	// IdleCheckIdle: the scheduler serves /api/v1/check_idle and says
	// itself since when it is idle.
	IdleCheckIdle = "CheckIdle"
	// IdleTaskCounts: the scheduler has no check_idle (distributed before
	// 2023.4); the operator polls /json/counts.json and counts the scheduler
	// idle from the first poll that sees no task processing, waiting or
	// unrunnable and no change in its task counts since the poll before.
	IdleTaskCounts = "TaskCounts"
	// IdleUnsupported: the scheduler serves neither route; the cluster is
	// never deleted for idleness.
	IdleUnsupported = "Unsupported"
)

// DaskCluster is a Dask scheduler plus its default worker group.
// +kubebuilder:object:generate=true
// +kubebuilder:object:root=true
type DaskCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DaskClusterSpec   `json:"spec"`
	Status DaskClusterStatus `json:"status,omitzero"`
}

// DaskClusterList is a list of DaskClusters.
// +kubebuilder:object:generate=true
// +kubebuilder:object:root=true
type DaskClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DaskCluster `json:"items"`
}

// DaskWorkerGroupSpec is the spec of a DaskWorkerGroup.
// +kubebuilder:object:generate=true
type DaskWorkerGroupSpec struct {
	Cluster string     `json:"cluster"`
	Worker  WorkerSpec `json:"worker"`
}

// DaskWorkerGroupStatus is the observed state of a DaskWorkerGroup.
// +kubebuilder:object:generate=true
type DaskWorkerGroupStatus struct {
	Replicas           int32  `json:"replicas,omitempty"`
	ReadyReplicas      int32  `json:"readyReplicas,omitempty"`
	Selector           string `json:"selector,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

// DaskWorkerGroup is a set of workers joined to a DaskCluster's scheduler.
// +kubebuilder:object:generate=true
// +kubebuilder:object:root=true
type DaskWorkerGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DaskWorkerGroupSpec   `json:"spec"`
	Status DaskWorkerGroupStatus `json:"status,omitzero"`
}

// DaskWorkerGroupList is a list of DaskWorkerGroups.
// +kubebuilder:object:generate=true
// +kubebuilder:object:root=true
type DaskWorkerGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DaskWorkerGroup `json:"items"`
}

// JobTemplate describes the runner Pod of a DaskJob.
// +kubebuilder:object:generate=true
type JobTemplate struct {
	Metadata Metadata       `json:"metadata,omitzero"`
	Spec     corev1.PodSpec `json:"spec"`
}

// ClusterTemplate describes the DaskCluster a DaskJob creates.
// +kubebuilder:object:generate=true
type ClusterTemplate struct {
	Metadata Metadata        `json:"metadata,omitzero"`
	Spec     DaskClusterSpec `json:"spec"`
}

// DaskJobSpec is the spec of a DaskJob.
// +kubebuilder:object:generate=true
type DaskJobSpec struct {
	Job     JobTemplate     `json:"job"`
	Cluster ClusterTemplate `json:"cluster"`
}

// DaskJobStatus is the observed state of a DaskJob.
// +kubebuilder:object:generate=true
type DaskJobStatus struct {
	JobStatus          string       `json:"jobStatus,omitempty"`
	ClusterName        string       `json:"clusterName,omitempty"`
	JobRunnerPodName   string       `json:"jobRunnerPodName,omitempty"`
	StartTime          *metav1.Time `json:"startTime,omitempty"`
	EndTime            *metav1.Time `json:"endTime,omitempty"`
	ObservedGeneration int64        `json:"observedGeneration,omitempty"`
}

// DaskJob is a runner Pod plus the DaskCluster it submits work to.
// +kubebuilder:object:generate=true
// +kubebuilder:object:root=true
type DaskJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DaskJobSpec   `json:"spec"`
	Status DaskJobStatus `json:"status,omitzero"`
}

// DaskJobList is a list of DaskJobs.
// +kubebuilder:object:generate=true
// +kubebuilder:object:root=true
type DaskJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DaskJob `json:"items"`
}

// DaskAutoscalerSpec bounds the default worker group of Cluster.
// +kubebuilder:object:generate=true
type DaskAutoscalerSpec struct {
	Cluster string `json:"cluster"`
	Minimum int32  `json:"minimum"`
	Maximum int32  `json:"maximum"`
}

// DaskAutoscalerStatus is the observed state of a DaskAutoscaler.
// +kubebuilder:object:generate=true
type DaskAutoscalerStatus struct {
	// DesiredWorkers is the worker count the autoscaler last chose for the
	// default worker group; meaningful once LastScaleTime is set.
	DesiredWorkers int32 `json:"desiredWorkers,omitempty"`
	// LastScaleTime is when DesiredWorkers last changed, to the
	// microsecond: the cool-down counts from it, and a time kept to the
	// second would end a cool-down up to a second early.
	LastScaleTime *metav1.MicroTime `json:"lastScaleTime,omitempty"`
	// SchedulerTarget is the last adaptive target the scheduler reported,
	// before bounds and cool-down; unset until it first answered.
	SchedulerTarget *int32 `json:"schedulerTarget,omitempty"`
	// SchedulerTargetTime is when the scheduler first reported
	// SchedulerTarget's value.
	SchedulerTargetTime *metav1.Time `json:"schedulerTargetTime,omitempty"`
	ObservedGeneration  int64        `json:"observedGeneration,omitempty"`
}

// DaskAutoscaler scales a DaskCluster's default worker group to the
// scheduler's adaptive target, within [Minimum, Maximum] workers.
// +kubebuilder:object:generate=true
// +kubebuilder:object:root=true
type DaskAutoscaler struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DaskAutoscalerSpec   `json:"spec"`
	Status DaskAutoscalerStatus `json:"status,omitzero"`
}

// DaskAutoscalerList is a list of DaskAutoscalers.
// +kubebuilder:object:generate=true
// +kubebuilder:object:root=true
type DaskAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DaskAutoscaler `json:"items"`
}
