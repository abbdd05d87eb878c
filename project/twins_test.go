package project_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	for _, o := range d.Objs() {
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
			outs := compileDir(t, dir)
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

// compileDir compiles the project in dir.
func compileDir(t *testing.T, dir string) []*project.Output {
	t.Helper()
	p, err := project.Open(dir, project.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := p.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIdentityTwinsAreValidatedAlike: for identity twins (twins.go), the
// apiserver's validation finds a CRD valid exactly when it finds valid
// both the CRD it is an identity twin of and its own skeleton; checked
// for each identity field, with a valid and an invalid rest, with
// identities valid and invalid. The skeleton's problems are its
// identity's: an invalid identity is found by the skeleton alone.
func TestIdentityTwinsAreValidatedAlike(t *testing.T) {
	rests := map[string]string{
		"valid rest":   edit(t),
		"invalid rest": edit(t, `{pattern: "^a"}`, `{pattern: "^a["}`),
	}
	identities := []struct {
		name  string
		edits []string
		valid bool
	}{
		{"the same identity", nil, true},
		{"other names", []string{"name: widgets.example.com", "name: gadgets.other.io", "group: example.com", "group: other.io", "{kind: Widget, plural: widgets}", "{kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList, shortNames: [gd], categories: [all]}"}, true},
		{"cluster scope", []string{"scope: Namespaced", "scope: Cluster"}, true},
		{"an unknown scope", []string{"scope: Namespaced", "scope: Everywhere"}, false},
		{"a name that is not plural.group", []string{"name: widgets.example.com", "name: widget.example.com"}, false},
		{"a group without a dot", []string{"name: widgets.example.com", "name: widgets.example", "group: example.com", "group: example"}, false},
		{"a protected group without approval", []string{"name: widgets.example.com", "name: widgets.apps.k8s.io", "group: example.com", "group: apps.k8s.io"}, false},
		{"a protected group, approved", []string{"metadata: {name: widgets.example.com}", "metadata: {name: widgets.apps.k8s.io, annotations: {api-approved.kubernetes.io: \"https://github.com/kubernetes/kubernetes/pull/1\"}}", "group: example.com", "group: apps.k8s.io"}, true},
		{"a kind equal to its listKind", []string{"{kind: Widget, plural: widgets}", "{kind: Widget, plural: widgets, listKind: Widget}"}, false},
		{"a plural in capitals", []string{"name: widgets.example.com", "name: Widgets.example.com", "plural: widgets}", "plural: Widgets}"}, false},
		{"a bad short name", []string{"{kind: Widget, plural: widgets}", "{kind: Widget, plural: widgets, shortNames: [w_1]}"}, false},
		{"a bad category", []string{"{kind: Widget, plural: widgets}", "{kind: Widget, plural: widgets, categories: [\"a b\"]}"}, false},
		{"a bad label", []string{"metadata: {name: widgets.example.com}", "metadata: {name: widgets.example.com, labels: {\"a b\": c}}"}, false},
	}
	for restName, rest := range rests {
		a := obj(t, rest)
		validA := valid(t, a)
		if validA != (restName == "valid rest") {
			t.Fatalf("%s: the apiserver finds it valid: %v", restName, validA)
		}
		for _, id := range identities {
			t.Run(restName+"/"+id.name, func(t *testing.T) {
				src := rest
				for i := 0; i < len(id.edits); i += 2 {
					if !strings.Contains(src, id.edits[i]) {
						t.Fatalf("%q not in the CRD", id.edits[i])
					}
					src = strings.Replace(src, id.edits[i], id.edits[i+1], 1)
				}
				b := obj(t, src)
				if !project.IdentityTwins(a, b) || !project.IdentityTwins(b, a) {
					t.Fatal("not identity twins")
				}
				skel := valid(t, project.Skeleton(b))
				if skel != id.valid {
					t.Fatalf("the skeleton is valid: %v, want %v", skel, id.valid)
				}
				if got, want := valid(t, b), validA && skel; got != want {
					t.Fatalf("the apiserver finds it valid: %v; the identity twin valid: %v, its skeleton: %v", got, validA, skel)
				}
			})
		}
	}
	// Never identity twins: another rest, a v1beta1 CRD.
	a := obj(t, edit(t))
	if project.IdentityTwins(a, obj(t, edit(t, "size: {type: integer}", "size: {type: integer, maximum: 3}"))) {
		t.Error("CRDs with other schemas are identity twins")
	}
	beta := obj(t, edit(t, "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"))
	if project.IdentityTwins(beta, beta) {
		t.Error("v1beta1 CRDs are identity twins")
	}
}

// TestValidateSendsSkeletons: of templates that differ only in their
// names (and own descriptions), the first is sent whole and the others as
// skeletons, in one call; an identity twin whose identity is invalid is
// then validated whole, in a second call, with its own problems; a
// warning about the first (compiled outputs have none, so the validator
// adds one) reaches every twin, naming its own CRD.
func TestValidateSendsSkeletons(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".crd-resolver.yaml", `kubernetesVersion: "1.30"
sets:
  - templates: ["*.yaml"]
    outputs: [out]
    removeDescriptions: true
`)
	spec := `{type: object, properties: {when: {type: string, description: DESC}, template: {$ref: io.k8s.api.core.v1.PodTemplateSpec}}}`
	for i, name := range []string{"a", "b", "c", "d"} {
		src := strings.Replace(readFile(t, "template.yaml"), "SPEC", strings.Replace(spec, "DESC", "kind "+name, 1), 1)
		plural := name + "widgets"
		if i == 3 {
			plural = "D_widgets" // not a DNS label
		}
		src = strings.NewReplacer("name: widgets.example.com", "name: "+plural+".example.com", "kind: Widget, plural: widgets", "kind: W"+name+", plural: "+plural).Replace(src)
		writeFile(t, dir, name+".yaml", src)
	}
	outs := compileDir(t, dir)
	v := &warnsOnWhole{}
	res, err := project.Validate(t.Context(), v, outs)
	if err != nil {
		t.Fatal(err)
	}
	// crdNames reads the root description: "mine" whole, "" for a skeleton.
	want := [][]string{{"a.yaml mine", "b.yaml ", "c.yaml ", "d.yaml "}, {"d.yaml mine"}}
	if fmt.Sprint(v.calls) != fmt.Sprint(want) {
		t.Fatalf("calls %q, want %q", v.calls, want)
	}
	for i, r := range res {
		if r.Name != outs[i].Template.Name {
			t.Fatalf("result %d names %s", i, r.Name)
		}
		if (len(r.Problems) > 0) != (i == 3) {
			t.Errorf("%s: problems %v", r.Name, r.Problems)
		}
		if i == 3 {
			continue
		}
		if len(r.Warnings) != 1 || r.Warnings[0].CRD != outs[i].CRDs[0] || r.Warnings[0].Message != "whole" {
			t.Errorf("%s: warnings %v, want the first's, naming %s", r.Name, r.Warnings, outs[i].CRDs[0])
		}
	}
}

// warnsOnWhole is inProcess adding a warning about each CRD sent whole.
type warnsOnWhole struct{ inProcess }

func (v *warnsOnWhole) Validate(ctx context.Context, docs []project.ValidationDoc) ([]project.ValidationResult, error) {
	res, err := v.inProcess.Validate(ctx, docs)
	for i, d := range docs {
		for j, o := range d.Objs() {
			var m struct {
				Metadata struct{ Name string }
			}
			if err := json.Unmarshal(o, &m); err != nil {
				return nil, err
			}
			if crdNames(d)[j] != "" {
				res[i].Warnings = append(res[i].Warnings, project.Problem{CRD: m.Metadata.Name, Message: "whole"})
			}
		}
	}
	return res, err
}
