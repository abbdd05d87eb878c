package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// corpusSchema: a schema the validator is built from, and where it is from.
type corpusSchema struct {
	name   string
	schema *spec.Schema
}

// quickCorpus is every version's schema of the CRDs this repository holds
// (dist/, operator/crds/, the golden compile cases' outputs, the resource
// cases' CRDs, kubectl-validate's test CRDs, testdata/quick-keywords.yaml
// with every keyword quickSchema mirrors) and of every built-in kind of the newest minor and of 1.16
// and 1.12 (compiled from their definitions, as validate judges them).
func quickCorpus(t *testing.T) []corpusSchema {
	t.Helper()
	var files []string
	for _, glob := range []string{"../../dist/*.yaml", "../../operator/crds/*.yaml", "../../testdata/compile/*/want.yaml", "../../testdata/resources/*.yaml", "../../testdata/kubectl-validate/crds/*.yaml", "testdata/quick-keywords.yaml"} {
		more, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	var out []corpusSchema
	add := func(name string, crd *CRD) {
		if errs := crd.Validate(t.Context()); len(errs) > 0 {
			return // a golden case the apiserver refuses: no resource is judged against it
		}
		for _, ns := range crd.schemas() {
			_, s, err := apiservervalidation.NewSchemaValidator(ns.schema)
			if err != nil {
				t.Fatalf("%s %s: %v", name, ns.path, err)
			}
			out = append(out, corpusSchema{name + " " + ns.path, s})
			if strings.HasSuffix(name, "quick-keywords.yaml") {
				// Each of its schemas on its own too: in one object,
				// one wrong value hides what the others would ask.
				for path, sub := range subschemas(ns.path, s) {
					out = append(out, corpusSchema{name + " " + path, sub})
				}
			}
		}
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for doc := range bytes.SplitSeq(src, []byte("\n---\n")) {
			if !bytes.Contains(doc, []byte("kind: CustomResourceDefinition")) {
				continue
			}
			raw, err := yaml.YAMLToJSON(doc)
			if err != nil {
				continue
			}
			if crd, err := DecodeJSON(raw); err == nil {
				add(f, crd)
			}
		}
	}

	for _, minor := range []string{schemas.Latest(), "1.16", "1.12"} {
		for _, def := range builtinKinds(t, minor) {
			add(minor+" "+def, compileDefinition(t, minor, def))
		}
	}
	// Schemas no structural CRD may have (the validator is built from
	// any), for the keywords quickSchema leaves to it and the type
	// validator's rules for a format without a type.
	for i, raw := range rawQuickSchemas {
		var s spec.Schema
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		out = append(out, corpusSchema{fmt.Sprintf("rawQuickSchemas[%d] quick-keywords", i), &s})
	}
	if len(out) < 300 {
		t.Fatalf("%d schemas: the corpus is missing", len(out))
	}
	return out
}

var rawQuickSchemas = []string{
	`{"type": "array", "uniqueItems": true, "items": {"type": "integer"}}`,
	`{"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}`,
	`{"type": "array", "items": {"type": "integer"}, "additionalItems": false}`,
	`{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}`,
	`{"type": "object", "patternProperties": {"^x": {"type": "integer"}}}`,
	`{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "dependencies": {"a": ["b"]}}`,
	`{"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": 10}]}`,
	`{"type": "integer", "not": {"minimum": 2}}`,
	`{"format": "date-time"}`,
	`{"format": "int32"}`,
	`{"type": "string", "format": "int32"}`,
	`{"type": ["integer", "string"], "format": "int64"}`,
	`{"type": "number", "format": "int32"}`,
}

// subschemas gives every schema below s, by where it is.
func subschemas(path string, s *spec.Schema) map[string]*spec.Schema {
	out := map[string]*spec.Schema{}
	var walk func(path string, s *spec.Schema)
	walk = func(path string, s *spec.Schema) {
		out[path] = s
		for name, p := range s.Properties {
			walk(path+".properties."+name, &p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(path+".items", s.Items.Schema)
		}
		if a := s.AdditionalProperties; a != nil && a.Schema != nil {
			walk(path+".additionalProperties", a.Schema)
		}
		for i := range s.AllOf {
			walk(fmt.Sprintf("%s.allOf[%d]", path, i), &s.AllOf[i])
		}
		for i := range s.AnyOf {
			walk(fmt.Sprintf("%s.anyOf[%d]", path, i), &s.AnyOf[i])
		}
	}
	walk(path, s)
	delete(out, path)
	return out
}

// builtinKinds lists the definitions of the minor that are kinds (have
// x-kubernetes-group-version-kind).
func builtinKinds(t *testing.T, minor string) []string {
	t.Helper()
	bundle, err := schemas.Load(minor)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var buf []byte
	for _, name := range bundle.Names() {
		buf, err = bundle.AppendDefinition(buf[:0], name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(buf, []byte(`"x-kubernetes-group-version-kind"`)) && !strings.HasSuffix(name, "List") {
			kinds = append(kinds, name)
		}
	}
	return kinds
}

// compileDefinition compiles a CRD whose schema is the definition def.
func compileDefinition(t *testing.T, minor, def string) *CRD {
	t.Helper()
	apiVersion, where := "apiextensions.k8s.io/v1", `"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"$ref":%q}}}]`
	if schemas.CompareMinors(minor, "1.16") < 0 {
		apiVersion, where = "apiextensions.k8s.io/v1beta1", `"versions":[{"name":"v1","served":true,"storage":true}],"validation":{"openAPIV3Schema":{"$ref":%q}}`
	}
	src := fmt.Sprintf(`{"apiVersion":%q,"kind":"CustomResourceDefinition","metadata":{"name":"things.example.com"},
"spec":{"group":"example.com","names":{"kind":"Thing","plural":"things"},"scope":"Namespaced",`+where+`}}`, apiVersion, def)
	c, err := resolver.New(resolver.Options{KubeVersion: minor, RemoveDescriptions: true, Recursion: resolver.RecursionPreserve, WorkDir: "/", AllowRemovedAPI: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compile("thing.json", []byte(src))
	if err != nil {
		t.Fatalf("%s %s: %v", minor, def, err)
	}
	crd, err := Decode(res.Documents[0].Object())
	if err != nil {
		t.Fatalf("%s %s: %v", minor, def, err)
	}
	return crd
}

// TestQuickSchemaAgrees: wherever quickSchema says the apiserver's schema
// validator finds no error, it finds none. Values are made from each
// schema of the corpus (its properties, enums, formats, bounds, int-or-
// string, nullable), most of them meant to be valid, the rest with one
// value anywhere swapped for another of any kind, so that both answers
// are asked often; the test also fails if quickSchema says yes to too
// few of the values the validator accepts (it would then save nothing).
func TestQuickSchemaAgrees(t *testing.T) {
	corpus := quickCorpus(t)
	perSchema := 40
	if testing.Short() {
		perSchema = 10
	}
	var yes, accepted, refused int
	keywords := false
	for i, c := range corpus {
		validator := apiservervalidation.NewSchemaValidatorFromOpenAPI(c.schema)
		q := compileQuick(c.schema)
		rng := rand.New(rand.NewPCG(47, uint64(i)))
		values := perSchema
		if strings.Contains(c.name, "quick-keywords") {
			values *= 20 // every keyword: many ways to be wrong
			keywords = true
		}
		for n := range values {
			g := &valueMaker{rng: rng, wild: n%2 == 1}
			v := g.value(c.schema, 0)
			errs := apiservervalidation.ValidateCustomResource(nil, v, validator)
			quick := q.valid(v)
			if len(errs) == 0 {
				accepted++
			} else {
				refused++
			}
			if quick {
				yes++
				if len(errs) > 0 {
					js, _ := json.Marshal(v)
					t.Errorf("%s: quickSchema says valid, the validator: %v\nvalue: %s", c.name, errs, js)
				}
			}
		}
	}
	if !keywords {
		t.Fatal("testdata/quick-keywords.yaml is not in the corpus")
	}
	t.Logf("%d schemas: %d values the validator accepts (quickSchema knows %d), %d it refuses", len(corpus), accepted, yes, refused)
	if refused < accepted/4 || yes < accepted*3/4 {
		t.Errorf("quickSchema knew %d of %d accepted values, and %d were refused: the values do not ask both questions", yes, accepted, refused)
	}
}

// valueMaker makes a value for a schema: valid, as far as it knows the
// schema; with wild, one value in some is of any other kind.
type valueMaker struct {
	rng  *rand.Rand
	wild bool
}

var (
	quickStrings = []string{"", "a", "abc-123", "Always", "TCP", "1", "10Gi", "500m", "0.5", "2024-01-01T00:00:00Z", "2024-01-01",
		"a@example.com", "example.com", "192.168.0.1", "::1", "10.0.0.0/8", "00:11:22:33:44:55", "http://example.com/x",
		"123e4567-e89b-12d3-a456-426614174000", "aGVsbG8=", "1h30m", "not valid!", strings.Repeat("x", 64), strings.Repeat("y", 254), "ünïcödé"}
	quickNumbers = []any{int64(0), int64(1), int64(-1), int64(2), int64(80), int64(65536), int64(math.MaxInt32), int64(math.MaxInt32) + 1,
		int64(math.MinInt32) - 1, int64(1) << 53, int64(math.MaxInt64), 0.0, 2.0, 0.5, -1.5, 1e21, 3.5e38, 1e300}
	quickWild = []any{nil, true, "x", int64(3), 2.5, []any{}, []any{"a"}, map[string]any{}, map[string]any{"k": "v"}}
)

func (g *valueMaker) pick(n int) int { return g.rng.IntN(n) }

func (g *valueMaker) value(s *spec.Schema, depth int) any {
	if g.wild && g.pick(12) == 0 {
		return quickWild[g.pick(len(quickWild))]
	}
	if s.Nullable && g.pick(10) == 0 {
		return nil
	}
	if len(s.Enum) > 0 && g.pick(5) > 0 {
		return s.Enum[g.pick(len(s.Enum))]
	}
	if len(s.AnyOf) > 0 && g.pick(2) == 0 {
		return g.value(&s.AnyOf[g.pick(len(s.AnyOf))], depth)
	}
	typ := ""
	switch {
	case len(s.Type) > 0:
		typ = s.Type[g.pick(len(s.Type))]
	case len(s.Properties) > 0 || s.AdditionalProperties != nil:
		typ = "object"
	case s.Items != nil:
		typ = "array"
	default:
		return quickWild[g.pick(len(quickWild))]
	}
	switch typ {
	case "object":
		m := map[string]any{}
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if slices.Contains(s.Required, name) || depth < 6 && g.pick(3) == 0 {
				p := s.Properties[name]
				m[name] = g.value(&p, depth+1)
			}
		}
		if a := s.AdditionalProperties; a != nil && a.Schema != nil && depth < 6 {
			for i := range g.pick(3) {
				m[fmt.Sprintf("key%d", i)] = g.value(a.Schema, depth+1)
			}
		}
		if g.wild && g.pick(8) == 0 {
			m["unknownField"] = "x"
		}
		if n := s.MaxProperties; n != nil && *n <= 16 && g.pick(2) == 0 {
			for i := range int(*n) + 1 - len(m) {
				m[fmt.Sprintf("extra%d", i)] = "x"
			}
		}
		return m
	case "array":
		var a []any
		if s.Items != nil && s.Items.Schema != nil && depth < 6 {
			for range g.pick(3) {
				a = append(a, g.value(s.Items.Schema, depth+1))
			}
		}
		for _, n := range []*int64{s.MinItems, s.MaxItems} {
			if n != nil && *n <= 16 && s.Items != nil && s.Items.Schema != nil && g.pick(2) == 0 {
				a = a[:0]
				for range max(int(*n)+g.pick(3)-1, 0) {
					a = append(a, g.value(s.Items.Schema, depth+1))
				}
			}
		}
		if a == nil {
			a = []any{}
		}
		return a
	case "string":
		for _, n := range []*int64{s.MinLength, s.MaxLength} {
			if n != nil && *n <= 1<<12 && g.pick(2) == 0 {
				return strings.Repeat("a", max(int(*n)+g.pick(3)-1, 0))
			}
		}
		return quickStrings[g.pick(len(quickStrings))]
	case "integer", "number":
		for _, b := range []*float64{s.Minimum, s.Maximum} {
			if b != nil && g.pick(3) == 0 {
				if typ == "integer" && *b == math.Trunc(*b) && math.Abs(*b) < 1<<53 {
					return int64(*b) + int64(g.pick(3)) - 1
				}
				return *b + float64(g.pick(3)) - 1
			}
		}
		return quickNumbers[g.pick(len(quickNumbers))]
	case "boolean":
		return g.pick(2) == 0
	}
	return nil
}

// TestQuickSchemaKnowsValidResources: for the valid Dask resources of
// testdata/resources/cases, as Create hands them to the schema validator
// (pruned, defaulted), quickSchema knows the answer: the validator is not
// run for what users commonly write.
func TestQuickSchemaKnowsValidResources(t *testing.T) {
	crds := map[string]*CRD{}
	files, _ := filepath.Glob("../../dist/dask*.yaml")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := yaml.YAMLToJSON(src)
		if err != nil {
			t.Fatal(err)
		}
		crd, err := DecodeJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		crds[crd.Internal.Spec.Names.Kind] = crd
	}
	cases, _ := filepath.Glob("../../testdata/resources/cases/*.yaml")
	judged := 0
	for _, f := range cases {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(src, []byte("# want: valid\n")) {
			continue
		}
		var obj map[string]any
		if err := yaml.Unmarshal(src, &obj); err != nil {
			t.Fatal(err)
		}
		crd := crds[fmt.Sprint(obj["kind"])]
		if crd == nil {
			continue
		}
		verdict, err := crd.Create(t.Context(), obj, CreateOptions{})
		if err != nil || len(verdict.Errors) > 0 {
			t.Fatalf("%s: %v %v", f, err, verdict.Errors)
		}
		pr, err := crd.prepare("v1")
		if err != nil {
			t.Fatal(err)
		}
		if !pr.quick.valid(verdict.Object) {
			t.Errorf("%s: quickSchema does not know that it is valid", f)
		}
		judged++
	}
	if judged < 2 {
		t.Errorf("%d valid Dask resources judged", judged)
	}
}
