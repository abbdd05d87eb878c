// Package v1 holds the API types of the Dask custom resources,
// kubernetes.dask.org/v1: DaskCluster, DaskWorkerGroup, DaskJob and
// DaskAutoscaler, as dask-kubernetes' operator defines them (their schemas
// are compiled from templates/, not generated from these types), with the
// deep copies controller-gen generates (zz_generated.deepcopy.go, `make
// generate`) and AddToScheme, from which the operator builds its scheme.
// +groupName=kubernetes.dask.org
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of the Dask custom resources.
var GroupVersion = schema.GroupVersion{Group: "kubernetes.dask.org", Version: "v1"}

// AddToScheme registers the Dask kinds (and their lists) in a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&DaskCluster{}, &DaskClusterList{},
		&DaskWorkerGroup{}, &DaskWorkerGroupList{},
		&DaskJob{}, &DaskJobList{},
		&DaskAutoscaler{}, &DaskAutoscalerList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
