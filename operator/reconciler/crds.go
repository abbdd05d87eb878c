package reconciler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CRDSource yields the CustomResourceDefinitions the operator installs, as
// unstructured objects ready for server-side apply.
type CRDSource interface {
	CRDs() ([]*unstructured.Unstructured, error)
}

// YAMLCRDs is a CRDSource over YAML documents (one or more CRDs each), such
// as the compiled files in dist/.
type YAMLCRDs map[string][]byte

// CRDs decodes every document; it fails on anything but a v1 CRD.
func (y YAMLCRDs) CRDs() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, name := range slices.Sorted(maps.Keys(y)) {
		data := y[name]
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			if gvk := u.GroupVersionKind(); gvk != apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition") {
				return nil, fmt.Errorf("%s: %s %s is not an apiextensions.k8s.io/v1 CustomResourceDefinition", name, gvk, u.GetName())
			}
			unstructured.RemoveNestedField(u.Object, "status")
			unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no CustomResourceDefinitions to install")
	}
	return out, nil
}

// RBAC, a role of its own (the chart drops it with crds.install=false): the
// operator's own CRDs and no other; server-side apply is a patch, which
// creates a missing CRD, and get waits until each is Established.
// +kubebuilder:rbac:roleName=dask-operator-crds,groups=apiextensions.k8s.io,resources=customresourcedefinitions,resourceNames=daskautoscalers.kubernetes.dask.org;daskclusters.kubernetes.dask.org;daskjobs.kubernetes.dask.org;daskworkergroups.kubernetes.dask.org,verbs=get;create;patch

// InstallCRDs creates or upgrades every CRD of src with server-side apply
// (forcing ownership, as Helm never upgrades CRDs and we must), then waits
// until each is Established, its names are accepted and discovery serves
// its kinds, or timeout passes.
// c must not read through a cache that has not started.
func InstallCRDs(ctx context.Context, c client.Client, src CRDSource, timeout time.Duration) error {
	crds, err := src.CRDs()
	if err != nil {
		return err
	}
	for _, u := range crds {
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying CRD %s: %w", u.GetName(), err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, u := range crds {
		var last error
		err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := c.Get(ctx, client.ObjectKey{Name: u.GetName()}, &crd); err != nil {
				last = err
				return false, nil
			}
			if !established(&crd) {
				last = fmt.Errorf("CRD %s not yet Established", u.GetName())
				return false, nil
			}
			// Established precedes discovery by a moment; a manager built
			// before discovery serves the kind fails to map it.
			gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					continue
				}
				if _, err := c.RESTMapper().RESTMapping(gk, v.Name); err != nil {
					last = fmt.Errorf("CRD %s not yet in discovery: %w", u.GetName(), err)
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for CRD %s: %w (last: %w)", u.GetName(), err, last)
		}
	}
	return nil
}

// established reports whether crd serves its current generation's names.
func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	var est, names bool
	for _, c := range crd.Status.Conditions {
		switch c.Type {
		case apiextensionsv1.Established:
			est = c.Status == apiextensionsv1.ConditionTrue
		case apiextensionsv1.NamesAccepted:
			names = c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return est && names
}
