package project_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdvalidate"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// edit returns testdata/twins/base.yaml with each old string replaced by
// its new one.
func edit(t *testing.T, oldnew ...string) string {
	t.Helper()
	s := readFile(t, "base.yaml")
	for i := 0; i < len(oldnew); i += 2 {
		if !strings.Contains(s, oldnew[i]) {
			t.Fatalf("%q not in base", oldnew[i])
		}
		s = strings.Replace(s, oldnew[i], oldnew[i+1], 1)
	}
	return s
}

// TestTwinsAreValidatedAlike: when twins says two CRDs are twins, the
// apiserver's validation finds both valid or both invalid; and each
// exception in twins.go is needed: without it, a twin would differ in
// validity from the CRD it is a twin of.
func TestTwinsAreValidatedAlike(t *testing.T) {
	base := edit(t)
	descriptions := edit(t,
		"openAPIV3Schema:\n        type: object", "openAPIV3Schema:\n        description: the root\n        type: object",
		"size: {type: integer}", "size: {type: integer, description: how many}",
		"template:\n                type: object", "template:\n                description: a template\n                type: object",
		"{type: object, properties: {labels:", "{type: object, description: nested metadata, properties: {labels:",
		"additionalProperties: {type: string}", "additionalProperties: {type: string, description: a value}",
		"items: {type: object,", "items: {type: object, description: a port,",
	)
	for _, tc := range []struct {
		name   string
		a, b   string
		twins  bool
		validA bool
		validB bool
	}{
		{name: "identical", a: base, b: base, twins: true, validA: true, validB: true},
		{name: "descriptions in properties, items, additionalProperties, the root and nested metadata", a: base, b: descriptions, twins: true, validA: true, validB: true},
		{name: "a null description", a: base, b: edit(t, "size: {type: integer}", "size: {type: integer, description: null}"), twins: true, validA: true, validB: true},
		{name: "a description in a value validation (anyOf)", a: base, b: edit(t, `{pattern: "^a"}`, `{pattern: "^a", description: "starts with a"}`), validA: true},
		{name: "a description of the root's metadata", a: base, b: edit(t, "metadata: {type: object}", "metadata: {type: object, description: the object's metadata}"), validA: true},
		{name: "a description that is not a string", a: base, b: edit(t, "size: {type: integer}", "size: {type: integer, description: 5}"), validA: true},
		{name: "anything else (an invalid pattern)", a: base, b: edit(t, `{pattern: "^a"}`, `{pattern: "^a["}`), validA: true},
		{name: "anything else (a limit)", a: base, b: edit(t, "size: {type: integer}", "size: {type: integer, maximum: 3}"), validA: true, validB: true},
		{name: "another name", a: base, b: edit(t, "name: widgets.example.com", "name: gadgets.example.com"), validA: true},
		// Two versions: the apiserver compares their schemas with each
		// other, descriptions included. In v1beta1, identical per-version
		// schemas are refused; differing only in a description, they are not.
		{name: "two versions", a: twoVersions(t, ""), b: twoVersions(t, "description: the second"), validB: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := obj(t, tc.a), obj(t, tc.b)
			if got := project.Twins(a, b); got != tc.twins {
				t.Fatalf("twins = %v, want %v", got, tc.twins)
			}
			if got := project.Twins(b, a); got != tc.twins {
				t.Fatalf("twins(b, a) = %v, want %v", got, tc.twins)
			}
			validA, validB := valid(t, a), valid(t, b)
			if validA != tc.validA || validB != tc.validB {
				t.Fatalf("the apiserver finds a valid: %v, b valid: %v; want %v, %v", validA, validB, tc.validA, tc.validB)
			}
			if tc.twins && validA != validB {
				t.Fatalf("twins of different validity")
			}
		})
	}
}

func twoVersions(t *testing.T, desc string) string {
	t.Helper()
	return strings.Replace(readFile(t, "two-versions.yaml"), "DESCRIPTION", desc, 1)
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "twins", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

func obj(t *testing.T, src string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(src), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func valid(t *testing.T, obj map[string]any) bool {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	res := crdvalidate.Document(t.Context(), project.ValidationDoc{Name: "x", Objects: []json.RawMessage{raw}})
	t.Logf("problems: %v", res.Problems)
	return len(res.Problems) == 0
}

// inProcess validates with the companion's own code, in this process, and
// records what it was asked.
type inProcess struct{ calls [][]string }

func (v *inProcess) Validate(ctx context.Context, docs []project.ValidationDoc) ([]project.ValidationResult, error) {
	var names []string
	for _, d := range docs {
		names = append(names, d.Name+" "+strings.Join(crdNames(d), ","))
	}
	v.calls = append(v.calls, names)
	return crdvalidate.Documents(ctx, docs), nil
}

func crdNames(d project.ValidationDoc) []string {
	var out []string
	for _, o := range d.Objects {
		var m struct {
			Spec struct {
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema struct {
							Description string `json:"description"`
						} `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		_ = json.Unmarshal(o, &m)
		out = append(out, m.Spec.Versions[0].Schema.OpenAPIV3Schema.Description)
	}
	return out
}

// TestValidateSendsOneTwin: of a template compiled into two sets that
// differ only in Kubernetes' descriptions, only the first output is sent
// when it is valid; when it is invalid, the second is validated too, in a
// second call, and has its own problems. Each output gets its result, in
// order.
func TestValidateSendsOneTwin(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		calls      int
		problems   bool
	}{
		{"valid", "{$ref: io.k8s.api.core.v1.PodTemplateSpec}", 1, false},
		{"invalid", `{type: object, x-kubernetes-validations: [{rule: "self.size >"}], properties: {size: {type: integer}, template: {$ref: io.k8s.api.core.v1.PodTemplateSpec}}}`, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, ".crd-resolver.yaml", `kubernetesVersion: "1.30"
sets:
  - templates: [w.yaml]
    outputs: [small]
    removeDescriptions: true
  - templates: [w.yaml]
    outputs: [large]
`)
			writeFile(t, dir, "w.yaml", strings.Replace(readFile(t, "template.yaml"), "SPEC", tc.spec, 1))
			p, err := project.Open(dir, project.Options{})
			if err != nil {
				t.Fatal(err)
			}
			outs, err := p.Compile(nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != 2 || content(t, outs[0]) == content(t, outs[1]) {
				t.Fatalf("want two outputs that differ (in descriptions), got %d", len(outs))
			}
			v := &inProcess{}
			res, err := project.Validate(t.Context(), v, outs)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.calls) != tc.calls || len(v.calls[0]) != 1 {
				t.Fatalf("calls %v, want %d, the first with one document; results %v", v.calls, tc.calls, res)
			}
			if len(res) != 2 || res[0].Name != "w.yaml" || res[1].Name != "w.yaml" {
				t.Fatalf("results %v", res)
			}
			for i, r := range res {
				if (len(r.Problems) > 0) != tc.problems {
					t.Errorf("result %d: problems %v, want problems: %v", i, r.Problems, tc.problems)
				}
			}
		})
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
