package schemadiff

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// storedForm is what the apiserver stores for the CRD src (YAML, v1 or
// v1beta1) and serves as v1: decoded with its scheme's defaulting,
// converted to v1, and read back as v1 (defaulted again), as JSON.
func storedForm(t *testing.T, src string) []byte {
	t.Helper()
	scheme := runtime.NewScheme()
	apiextensionsinstall.Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	internal, _, err := codecs.UniversalDecoder().Decode([]byte(src), nil, nil)
	require.NoError(t, err)
	var v1 apiextensionsv1.CustomResourceDefinition
	require.NoError(t, scheme.Convert(internal, &v1, nil))
	v1.APIVersion, v1.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	raw, err := json.Marshal(&v1)
	require.NoError(t, err)
	obj, _, err := codecs.UniversalDecoder(apiextensionsv1.SchemeGroupVersion).Decode(raw, nil, nil)
	require.NoError(t, err)
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{} // what was written has none
	raw, err = json.Marshal(crd)
	require.NoError(t, err)
	return raw
}

// TestComparesWhatTheApiserverStores: diff compares each side as the
// apiserver stores it (its defaulting, v1beta1 converted to v1): a CRD
// against the form the apiserver's own code turns it into shows no change,
// and a v1beta1 CRD that prunes nothing (preserveUnknownFields defaulted to
// true) against a v1 form that prunes is breaking.
func TestComparesWhatTheApiserverStores(t *testing.T) {
	const schema = "{type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}"
	cases := map[string]string{
		"v1beta1, shared schema, JSONPath column, webhook": `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  validation: {openAPIV3Schema: ` + schema + `}
  additionalPrinterColumns:
  - {name: Size, type: integer, JSONPath: .spec.size}
  subresources: {status: {}}
  conversion:
    strategy: Webhook
    webhookClientConfig: {service: {name: conv, namespace: system}}
  versions:
  - {name: v1, served: true, storage: true}
  - {name: v2, served: true, storage: false}
`,
		"v1beta1, single version, no columns": `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  version: v1
  preserveUnknownFields: false
  validation: {openAPIV3Schema: ` + schema + `}
`,
		"v1, webhook service without a port": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {service: {name: conv, namespace: system, path: /convert}}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: ` + schema + `}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: ` + schema + `}}
`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			written, err := Parse("written", []byte(src), 0)
			require.NoError(t, err)
			stored, err := Parse("stored", storedForm(t, src), 0)
			require.NoError(t, err)
			for _, pair := range [][2][]*CRD{{written, stored}, {stored, written}} {
				r := Compare(pair[0], pair[1])
				var b strings.Builder
				r.WriteText(&b, "")
				require.True(t, r.Empty(), "the apiserver's stored form differs:\n%s", b.String())
			}
		})
	}
	t.Run("v1beta1 that prunes nothing against v1", func(t *testing.T) {
		src := strings.Replace(cases["v1beta1, single version, no columns"], "  preserveUnknownFields: false\n", "", 1)
		old, err := Parse("old", []byte(src), 0)
		require.NoError(t, err)
		v1 := strings.Replace(cases["v1, webhook service without a port"], "  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig: {service: {name: conv, namespace: system, path: /convert}}\n", "", 1)
		v1 = strings.Replace(v1, "  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: "+schema+"}}\n", "", 1)
		v1 = strings.Replace(v1, "  scope: Namespaced\n", "", 1)
		new, err := Parse("new", []byte(v1), 0)
		require.NoError(t, err)
		r := Compare(old, new)
		var b strings.Builder
		r.WriteText(&b, "")
		require.Contains(t, b.String(), "preserveUnknownFields")
		require.NotZero(t, r.Breaking, b.String())
	})
}
