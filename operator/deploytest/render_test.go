package deploytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Where the deployments live, from this package's directory.
const (
	chartDir     = "../../charts/dask-operator"
	kustomizeDir = "../../deploy"
	distDir      = "../../dist"
	examplesDir  = "../../examples"
)

// kubeVersion is what the chart is rendered and linted for: the minor the
// CRDs are compiled for and the control plane runs.
const kubeVersion = "v1.37.2"

// rendered is one set of objects ready to apply.
type rendered struct {
	crds, objects []*unstructured.Unstructured
}

// all returns CRDs first, then the rest in install order.
func (r rendered) all() []*unstructured.Unstructured {
	return append(slices.Clone(r.crds), r.objects...)
}

// find returns the object of kind and name, or nil.
func (r rendered) find(kind, name string) *unstructured.Unstructured {
	for _, o := range r.all() {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// renderChart renders the chart as `helm template RELEASE charts/dask-operator
// -n NAMESPACE --include-crds --kube-version 1.37 [--set ...]` does: values
// coalesced with values.yaml, the chart's kubeVersion checked, templates
// rendered, NOTES.txt and partials dropped, manifests in Helm's install
// order, and crds/ as they are.
func renderChart(t *testing.T, release, namespace string, values map[string]any) rendered {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	kv, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	caps.KubeVersion = *kv
	if c := chrt.Metadata.KubeVersion; c != "" && !chartutil.IsCompatibleRange(c, kv.String()) {
		t.Fatalf("chart kubeVersion %q excludes %s", c, kv)
	}
	vals, err := chartutil.ToRenderValues(chrt, values, chartutil.ReleaseOptions{
		Name: release, Namespace: namespace, Revision: 1, IsInstall: true,
	}, caps)
	if err != nil {
		t.Fatalf("chart values: %v", err)
	}
	files, err := engine.Render(chrt, vals)
	if err != nil {
		t.Fatalf("rendering the chart: %v", err)
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	_, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		t.Fatalf("sorting the chart's manifests: %v", err)
	}
	var out rendered
	for _, m := range manifests {
		out.objects = append(out.objects, decode(t, m.Name, []byte(m.Content))...)
	}
	for _, crd := range chrt.CRDObjects() {
		out.crds = append(out.crds, decode(t, crd.Filename, crd.File.Data)...)
	}
	return out
}

// buildKustomize builds deploy/ as `kubectl kustomize deploy` does.
func buildKustomize(t *testing.T) rendered {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	res, err := k.Run(filesys.MakeFsOnDisk(), kustomizeDir)
	if err != nil {
		t.Fatalf("kustomize build deploy: %v", err)
	}
	y, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	var out rendered
	for _, o := range decode(t, "deploy", y) {
		if o.GetKind() == "CustomResourceDefinition" {
			out.crds = append(out.crds, o)
		} else {
			out.objects = append(out.objects, o)
		}
	}
	return out
}

// decode splits a YAML stream into objects, skipping empty documents.
func decode(t *testing.T, name string, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("%s: %v", name, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// TestChartLint runs Helm's linter with warnings as errors (`helm lint
// --strict`), with default values and with each option the values offer.
func TestChartLint(t *testing.T) {
	kv, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	for name, values := range lintCases {
		l := lint.AllWithKubeVersion(chartDir, values, "dask-operator", kv)
		if len(l.Messages) == 0 {
			t.Errorf("%s: the linter said nothing; did it find the chart?", name)
		}
		for _, m := range l.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("%s: helm lint: %v", name, m)
			}
		}
	}
}

// lintCases are the value sets the chart is linted and rendered with.
var lintCases = map[string]map[string]any{
	"defaults":       nil,
	"watchNamespace": {"watchNamespace": "analytics"},
	"minimal":        {"leaderElection": map[string]any{"enabled": false}, "metrics": map[string]any{"enabled": false}, "crds": map[string]any{"install": false}},
	"existing SA":    {"serviceAccount": map[string]any{"create": false, "name": "mine"}},
}

// TestChartCRDsAreDist: the chart's crds/ and the CRDs the kustomize base
// installs are byte for byte the compiled dist/ files (k8s-crd-resolver
// check keeps them in sync with templates/).
func TestChartCRDsAreDist(t *testing.T) {
	dist, err := filepath.Glob(filepath.Join(distDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range dist {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		want = append(want, filepath.Base(f))
		a, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(chartDir, "crds", filepath.Base(f)))
		if err != nil {
			t.Fatalf("the chart lacks %s: %v (run make dist)", filepath.Base(f), err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("charts/dask-operator/crds/%s differs from dist/; run make dist", filepath.Base(f))
		}
	}
	have, _ := filepath.Glob(filepath.Join(chartDir, "crds", "*"))
	if len(have) != len(want) || len(want) != 4 {
		t.Errorf("chart crds/ holds %d files, dist/ %d CRDs, want 4 each", len(have), len(want))
	}
	k := buildKustomize(t)
	if len(k.crds) != len(want) {
		t.Errorf("the kustomize base installs %d CRDs, want %d", len(k.crds), len(want))
	}
	for _, crd := range renderChart(t, "dask-operator", "dask-operator", nil).crds {
		kc := k.find("CustomResourceDefinition", crd.GetName())
		if kc == nil || !cmp.Equal(kc.Object, crd.Object) {
			t.Errorf("CRD %s differs between the chart and the kustomize base", crd.GetName())
		}
	}
}

// TestKustomizeMatchesChart: the kustomize base is the chart with default
// values (release dask-operator in namespace dask-operator) plus the
// namespace, apart from Helm's own labels; the same image, tag included.
func TestKustomizeMatchesChart(t *testing.T) {
	chart := renderChart(t, "dask-operator", "dask-operator", nil)
	kust := buildKustomize(t)
	key := func(o *unstructured.Unstructured) string {
		return o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
	}
	strip := func(o *unstructured.Unstructured) map[string]any {
		o = o.DeepCopy()
		labels := o.GetLabels()
		for _, l := range []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/version"} {
			delete(labels, l)
		}
		o.SetLabels(labels)
		return o.Object
	}
	have := map[string]*unstructured.Unstructured{}
	for _, o := range kust.objects {
		have[key(o)] = o
	}
	for _, o := range chart.objects {
		k, ok := have[key(o)]
		if !ok {
			t.Errorf("the kustomize base lacks the chart's %s", key(o))
			continue
		}
		delete(have, key(o))
		if d := cmp.Diff(strip(o), strip(k)); d != "" {
			t.Errorf("%s differs between the chart (-) and the kustomize base (+):\n%s", key(o), d)
		}
	}
	for k, o := range have {
		if o.GetKind() != "Namespace" {
			t.Errorf("the kustomize base has %s, which the chart does not", k)
		}
	}
	if kust.find("Namespace", "dask-operator") == nil {
		t.Error("the kustomize base does not create its namespace")
	}
}

// TestChartVariants: watchNamespace trades the ClusterRole for a Role in that
// namespace (same rules); crds.install=false drops every CRD permission and
// passes --skip-crd-install; leader election and metrics can be turned off.
func TestChartVariants(t *testing.T) {
	def := renderChart(t, "dask", "ops", nil)
	ns := renderChart(t, "dask", "ops", lintCases["watchNamespace"])
	if ns.find("ClusterRole", "dask-dask-operator") != nil || def.find("Role", "dask-dask-operator") != nil {
		t.Error("watchNamespace must replace the ClusterRole by a Role, and only then")
	}
	role, cr := ns.find("Role", "dask-dask-operator"), def.find("ClusterRole", "dask-dask-operator")
	if role == nil || cr == nil || role.GetNamespace() != "analytics" {
		t.Fatalf("Role %v, ClusterRole %v", role, cr)
	}
	if !cmp.Equal(role.Object["rules"], cr.Object["rules"]) {
		t.Error("the Role's rules differ from the ClusterRole's")
	}
	if rb := ns.find("RoleBinding", "dask-dask-operator"); rb == nil || rb.GetNamespace() != "analytics" {
		t.Error("no RoleBinding in the watched namespace")
	}
	if args := containerArgs(t, ns); !slices.Contains(args, "--namespace=analytics") {
		t.Errorf("watchNamespace: args %v lack --namespace=analytics", args)
	}

	min := renderChart(t, "dask", "ops", lintCases["minimal"])
	for _, o := range min.objects {
		if strings.HasSuffix(o.GetName(), "-crds") || strings.HasSuffix(o.GetName(), "-leader-election") || o.GetKind() == "Service" {
			t.Errorf("minimal values still render %s %s", o.GetKind(), o.GetName())
		}
	}
	args := containerArgs(t, min)
	for _, want := range []string{"--skip-crd-install", "--leader-elect=false", "--metrics-bind-address=0"} {
		if !slices.Contains(args, want) {
			t.Errorf("minimal values: args %v lack %s", args, want)
		}
	}
	if def.find("ClusterRole", "dask-dask-operator-crds") == nil {
		t.Error("default values render no CRD ClusterRole")
	}

	sa := renderChart(t, "dask", "ops", lintCases["existing SA"])
	if sa.find("ServiceAccount", "mine") != nil || sa.find("ServiceAccount", "dask-dask-operator") != nil {
		t.Error("serviceAccount.create=false still creates a ServiceAccount")
	}
	for _, o := range sa.objects {
		if strings.HasSuffix(o.GetKind(), "Binding") {
			subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
			if len(subjects) != 1 || subjects[0].(map[string]any)["name"] != "mine" {
				t.Errorf("%s %s binds %v, want the ServiceAccount mine", o.GetKind(), o.GetName(), subjects)
			}
		}
	}
}

// containerArgs returns the operator container's arguments.
func containerArgs(t *testing.T, r rendered) []string {
	t.Helper()
	for _, o := range r.objects {
		if o.GetKind() != "Deployment" {
			continue
		}
		cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		var args []string
		for _, a := range cs[0].(map[string]any)["args"].([]any) {
			args = append(args, a.(string))
		}
		return args
	}
	t.Fatal("no Deployment rendered")
	return nil
}

// TestNoWildcard: no rule of either set grants "*" (or a non-resource URL).
func TestNoWildcard(t *testing.T) {
	for name, r := range map[string]rendered{
		"chart": renderChart(t, "dask-operator", "dask-operator", nil), "kustomize": buildKustomize(t),
		"chart watchNamespace": renderChart(t, "dask-operator", "dask-operator", lintCases["watchNamespace"]),
	} {
		roles := 0
		for _, o := range r.objects {
			for _, rule := range rulesOf(t, o) {
				roles++
				for _, s := range slices.Concat(rule.APIGroups, rule.Resources, rule.Verbs, rule.ResourceNames) {
					if strings.Contains(s, "*") {
						t.Errorf("%s: %s %s grants a wildcard: %+v", name, o.GetKind(), o.GetName(), rule)
					}
				}
				if len(rule.NonResourceURLs) > 0 {
					t.Errorf("%s: %s %s grants non-resource URLs %v", name, o.GetKind(), o.GetName(), rule.NonResourceURLs)
				}
			}
		}
		if roles < 5 {
			t.Errorf("%s: only %d rules rendered", name, roles)
		}
	}
}

// rulesOf returns the rules of a ClusterRole or Role, else nothing.
func rulesOf(t *testing.T, o *unstructured.Unstructured) []rbacv1.PolicyRule {
	t.Helper()
	if o.GetKind() != "ClusterRole" && o.GetKind() != "Role" {
		return nil
	}
	var role rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
	return role.Rules
}

// String makes test failures readable.
func (r rendered) String() string {
	var b strings.Builder
	for _, o := range r.all() {
		fmt.Fprintf(&b, "%s %s/%s\n", o.GetKind(), o.GetNamespace(), o.GetName())
	}
	return b.String()
}
