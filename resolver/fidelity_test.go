package resolver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// fidelityTemplate embeds every type the fidelity check covers.
var fidelityTemplate = crdTemplateFor("Fidelity", "fidelities",
	"spec:",
	"  type: object",
	"  properties:",
	"    pod: {$ref: io.k8s.api.core.v1.PodSpec}",
	"    podTemplate: {$ref: io.k8s.api.core.v1.PodTemplateSpec}",
	"    service: {$ref: io.k8s.api.core.v1.ServiceSpec}",
	"    job: {$ref: io.k8s.api.batch.v1.JobSpec}",
	"    deployment: {$ref: io.k8s.api.apps.v1.DeploymentSpec}",
)

// fixtureFields maps a spec field to the round-trip fixture file of
// k8s.io/api (testdata/HEAD, or an older release's testdata/v1.MINOR.0)
// and the part of it to embed.
var fixtureFields = []struct{ field, file, part string }{
	{"pod", "core.v1.Pod.json", "spec"},
	{"podTemplate", "core.v1.PodTemplate.json", "template"},
	{"service", "core.v1.Service.json", "spec"},
	{"job", "batch.v1.Job.json", "spec"},
	{"deployment", "apps.v1.Deployment.json", "spec"},
}

// apiFixtures finds the directory of round-trip fixtures and the
// Kubernetes minor they belong to. FIDELITY_API_DIR and
// FIDELITY_K8S_VERSION (set by `make fidelity`) choose another k8s.io/api
// release, and FIDELITY_FIXTURES another directory of its testdata than
// HEAD (v1.14.0: the 1.14 fixtures k8s.io/api v0.15 keeps); by default it
// is testdata/HEAD of the k8s.io/api this module builds with.
func apiFixtures(t *testing.T) (dir, minor string) {
	t.Helper()
	if dir, v := os.Getenv("FIDELITY_API_DIR"), os.Getenv("FIDELITY_K8S_VERSION"); dir != "" && v != "" {
		sub := os.Getenv("FIDELITY_FIXTURES")
		if sub == "" {
			sub = "HEAD"
		}
		return filepath.Join(dir, "testdata", sub), v
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", "k8s.io/api").Output()
	require.NoError(t, err, "locating the k8s.io/api module (go mod download)")
	fields := strings.Fields(string(out))
	require.Len(t, fields, 2, "go list output %q", out)
	var major, min int
	_, err = fmt.Sscanf(fields[1], "v0.%d.%d", &major, &min)
	require.NoError(t, err)
	return filepath.Join(fields[0], "testdata", "HEAD"), fmt.Sprintf("1.%d", major)
}

func compileFidelityCRD(t *testing.T, minor string) *oracle.CRD {
	t.Helper()
	return compileOracleCRD(t, resolver.Options{KubeVersion: minor}, fidelityTemplate)
}

// compileOracleCRD compiles a template and decodes it for the apiserver's code, checking
// that the apiserver accepts the CRD.
func compileOracleCRD(t *testing.T, opts resolver.Options, template string) *oracle.CRD {
	t.Helper()
	opts.WorkDir = t.TempDir()
	c, err := resolver.New(opts)
	require.NoError(t, err)
	res, err := c.Compile("template.yaml", []byte(template))
	require.NoError(t, err)
	out, err := res.YAML()
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, yaml.Unmarshal(out, &obj))
	crd, err := oracle.Decode(obj)
	require.NoError(t, err)
	require.Empty(t, crd.Validate(t.Context()))
	return crd
}

// TestFidelity: the fully populated round-trip fixtures of k8s.io/api,
// embedded in a custom resource of a compiled CRD, pass the apiserver's
// pruning and validation with nothing pruned, nothing rejected and nothing
// changed.
func TestFidelity(t *testing.T) {
	fixtureDir, minor := apiFixtures(t)
	t.Logf("fixtures from %s, Kubernetes %s", fixtureDir, minor)
	crd := compileFidelityCRD(t, minor)
	spec := map[string]any{}
	for _, f := range fixtureFields {
		raw, err := os.ReadFile(filepath.Join(fixtureDir, f.file))
		require.NoError(t, err)
		// Decode numbers as the apiserver does: integers stay integers.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var obj map[string]any
		require.NoError(t, dec.Decode(&obj))
		require.Contains(t, obj, f.part, f.file)
		spec[f.field] = obj[f.part]
	}
	cr := map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Fidelity",
		"metadata":   map[string]any{"name": "all-fields", "namespace": "default"},
		"spec":       spec,
	}
	adm, err := crd.Admit(t.Context(), "v1", cr)
	require.NoError(t, err)
	require.Empty(t, adm.Pruned, "fields pruned by the apiserver")
	requireOnlyFixtureInvalid(t, adm.Errors)
	// Nothing lost on the way: every value of the input is stored as is.
	var in map[string]any
	raw, _ := json.Marshal(cr)
	require.NoError(t, json.Unmarshal(raw, &in))
	require.NotEmpty(t, in["spec"].(map[string]any)["pod"], "the fixture is empty")
	storedRaw, _ := json.Marshal(adm.Object)
	var stored map[string]any
	require.NoError(t, json.Unmarshal(storedRaw, &stored))
	if missing := subsetDiff(in, stored, ""); len(missing) > 0 {
		t.Fatalf("stored object lost or changed %d values, e.g.\n%s", len(missing), strings.Join(missing[:min(len(missing), 20)], "\n"))
	}
}

// fixtureInvalid are the fixture values Kubernetes itself rejects: the round-trip fixtures
// fill every string with "<field>Value" to test serialization, not validation, and where the
// Go types declare a format (imported into the bundles) such a value does not pass it. In
// 1.37 JobSpec.scheduling.resourceClaims[] has +k8s:format=k8s-short-name on name and
// k8s-long-name on the other two (Kubernetes' generated validation of batch/v1 Job calls
// validate.ShortName/LongName on them), so a Job holding these values is refused by the
// apiserver, and so is the custom resource. Each entry is checked against the apiserver's own
// format validator (kube-openapi strfmt), so the list cannot hide an error of ours.
var fixtureInvalid = map[string]string{
	"spec.job.scheduling.resourceClaims[0].name":                      "k8s-short-name",
	"spec.job.scheduling.resourceClaims[0].resourceClaimName":         "k8s-long-name",
	"spec.job.scheduling.resourceClaims[0].resourceClaimTemplateName": "k8s-long-name",
}

// requireOnlyFixtureInvalid fails unless every validation error is a fixtureInvalid value that
// the apiserver's format validator rejects.
func requireOnlyFixtureInvalid(t *testing.T, errs field.ErrorList) {
	t.Helper()
	for _, e := range errs {
		format, ok := fixtureInvalid[e.Field]
		value, isString := e.BadValue.(string)
		if !ok || !isString || !strings.Contains(e.Detail, "must be of type "+format) || strfmt.Default.Validates(format, value) {
			t.Errorf("validation error: %v", e)
			continue
		}
		t.Logf("fixture value Kubernetes rejects too (format %s): %v", format, e)
	}
}

// subsetDiff lists the paths where want has a value that got lacks or
// holds differently.
func subsetDiff(want, got any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path + ": not an object"}
		}
		var out []string
		for k, v := range w {
			gv, ok := g[k]
			if !ok && v == nil {
				continue // null is "unset" for Kubernetes types; the apiserver drops it too
			}
			if !ok {
				out = append(out, path+"."+k+": missing")
				continue
			}
			out = append(out, subsetDiff(v, gv, path+"."+k)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{path + ": list changed"}
		}
		var out []string
		for i := range w {
			out = append(out, subsetDiff(w[i], g[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %v became %v", path, want, got)}
	}
	return nil
}

// TestBareIntegers: the values the Python tool's output rejects are
// accepted: integer ports and int-or-string fields, integer quantities.
func TestBareIntegers(t *testing.T) {
	crd := compileFidelityCRD(t, "1.30")
	var spec map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(`
pod:
  containers:
  - name: c
    image: busybox
    ports: [{containerPort: 8786}]
    resources:
      limits: {cpu: 1, memory: 1073741824}
      requests: {cpu: "500m", memory: 1Gi}
    livenessProbe:
      httpGet: {port: 8787, path: /health}
    readinessProbe:
      tcpSocket: {port: http}
service:
  ports:
  - {port: 8786, targetPort: 8786}
  - {port: 8787, targetPort: http-dashboard}
deployment:
  selector: {matchLabels: {app: x}}
  template: {metadata: {labels: {app: x}}, spec: {containers: [{name: c}]}}
  strategy:
    rollingUpdate: {maxUnavailable: 1, maxSurge: 25%}
`), &spec))
	cr := map[string]any{"apiVersion": "example.com/v1", "kind": "Fidelity", "metadata": map[string]any{"name": "ints"}, "spec": spec}
	adm, err := crd.Admit(t.Context(), "v1", cr)
	require.NoError(t, err)
	require.Empty(t, adm.Pruned)
	require.Empty(t, adm.Errors)
	// protocol is defaulted as Kubernetes itself defaults it.
	ports := adm.Object["spec"].(map[string]any)["service"].(map[string]any)["ports"].([]any)
	require.Equal(t, "TCP", ports[0].(map[string]any)["protocol"])
}

// TestDecimalQuantity pins down, so docs/refs.md stays true, what happens to
// a quantity written as a YAML decimal number (cpu: 0.5): a structural
// schema can only type a field as integer-or-string
// (x-kubernetes-int-or-string), so the apiserver rejects the JSON number
// 0.5, while "0.5" and "500m" pass.
func TestDecimalQuantity(t *testing.T) {
	crd := compileFidelityCRD(t, "1.30")
	admit := func(cpu any) *oracle.Admission {
		cr := map[string]any{"apiVersion": "example.com/v1", "kind": "Fidelity", "metadata": map[string]any{"name": "q"},
			"spec": map[string]any{"pod": map[string]any{"containers": []any{map[string]any{"name": "c",
				"resources": map[string]any{"requests": map[string]any{"cpu": cpu}}}}}}}
		adm, err := crd.Admit(t.Context(), "v1", cr)
		require.NoError(t, err)
		return adm
	}
	require.Empty(t, admit("0.5").Errors)
	require.Empty(t, admit("500m").Errors)
	require.Empty(t, admit(json.Number("2")).Errors)
	errs := admit(0.5).Errors
	require.NotEmpty(t, errs)
	require.Contains(t, errs[0].Error(), "resources.requests.cpu")
	require.Contains(t, errs.ToAggregate().Error(), "must be of type integer")
}
