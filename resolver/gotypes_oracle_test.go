package resolver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// goTypesTemplate embeds types whose Go declarations carry validation markers (1.37) and
// property-less objects of both kinds.
const goTypesTemplate = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gotypes.example.com
spec:
  group: example.com
  names: {kind: GoTypes, plural: gotypes}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              pod: {$ref: io.k8s.api.core.v1.PodSpec}
              job: {$ref: io.k8s.api.batch.v1.JobSpec}
              subresourceStatus: {$ref: io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresourceStatus}
              raw: {$ref: io.k8s.apimachinery.pkg.runtime.RawExtension}
          status:
            type: object
            properties:
              conditions:
                type: array
                items: {$ref: io.k8s.apimachinery.pkg.apis.meta.v1.Condition}
`

func admitGoTypes(t *testing.T, crd *oracle.CRD, doc string) *oracle.Admission {
	t.Helper()
	var cr map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(doc), &cr))
	adm, err := crd.Admit(t.Context(), "v1", cr)
	require.NoError(t, err)
	return adm
}

// TestGoTypesOracle: the constraints the 1.37 Go types declare are enforced by the
// apiserver's own validation of a custom resource, each error naming its field; values
// within them pass; an empty struct prunes what is written under it, arbitrary JSON keeps it.
func TestGoTypesOracle(t *testing.T) {
	crd := compileOracleCRD(t, resolver.Options{KubeVersion: "1.37", RemoveDescriptions: true}, goTypesTemplate)

	valid := admitGoTypes(t, crd, `
apiVersion: example.com/v1
kind: GoTypes
metadata: {name: ok}
spec:
  pod:
    containers: [{name: c, image: busybox}]
    evictionResponders:
    - {name: example.com/drain, priority: 100000}
    - {name: b, priority: 0}
  job:
    template: {spec: {containers: [{name: c}]}}
    scheduling:
      resourceClaims: [{name: a}, {name: b}, {name: c}, {name: d}]
      schedulingPolicy: {gang: {minCount: 1}}
      schedulingConstraints: {topology: [{key: zone}]}
  raw: {anything: [1, 2]}
status:
  conditions:
  - {type: Ready, status: "True", reason: AllGood, message: fine, lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 0}
`)
	require.Empty(t, valid.Errors)
	require.Empty(t, valid.Pruned)

	responders := make([]string, 11)
	for i := range responders {
		responders[i] = "{name: r" + string(rune('a'+i)) + ", priority: 1}"
	}
	invalid := admitGoTypes(t, crd, `
apiVersion: example.com/v1
kind: GoTypes
metadata: {name: bad}
spec:
  pod:
    containers: [{name: c}]
    evictionResponders: [`+strings.Join(responders, ", ")+`]
  job:
    template: {spec: {containers: [{name: c}], evictionResponders: [{name: "", priority: 100001}, {name: x, priority: -1}]}}
    scheduling:
      resourceClaims: [{name: a}, {name: b}, {name: c}, {name: d}, {name: Not_A_Name}]
      schedulingPolicy: {gang: {minCount: 0}}
      schedulingConstraints: {topology: [{key: zone}, {key: rack}]}
  subresourceStatus: {junk: 1}
  raw: {kept: true}
status:
  conditions:
  - {type: "bad type!", status: "Maybe", reason: "", message: m, lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: -1}
`)
	var got []string
	for _, e := range invalid.Errors {
		got = append(got, e.Field+": "+e.Type.String())
	}
	want := []string{
		"spec.pod.evictionResponders: Too many",
		"spec.job.template.spec.evictionResponders[0].name: Invalid value",
		"spec.job.template.spec.evictionResponders[0].priority: Invalid value",
		"spec.job.template.spec.evictionResponders[1].priority: Invalid value",
		"spec.job.scheduling.resourceClaims: Too many",
		"spec.job.scheduling.resourceClaims[4].name: Invalid value",
		"spec.job.scheduling.schedulingPolicy.gang.minCount: Invalid value",
		"spec.job.scheduling.schedulingConstraints.topology: Too many",
		"status.conditions[0].type: Invalid value",
		"status.conditions[0].status: Unsupported value",
		"status.conditions[0].reason: Invalid value",
		"status.conditions[0].observedGeneration: Invalid value",
	}
	for _, w := range want {
		require.Contains(t, got, w, "all errors:\n%s", invalid.Errors.ToAggregate())
	}
	// The empty struct prunes, as Kubernetes does; arbitrary JSON keeps what it holds.
	require.Equal(t, []string{"spec.subresourceStatus.junk"}, invalid.Pruned)
	require.Equal(t, map[string]any{"kept": true}, invalid.Object["spec"].(map[string]any)["raw"])
}
