package schemadiff

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// panicSeeds are documents whose keywords hold maps or lists where strings are expected:
// comparing them once panicked ("comparing uncomparable type").
var panicSeeds = [][2]string{
	{crdWith("{type: object, description: {a: 1}}"), crdWith("{type: object, description: {a: 2}}")},
	{crdWith("{type: object, required: [{a: 1}]}"), crdWith("{type: object, required: [{a: 2}]}")},
	{crdWith("{type: {a: 1}, enum: [{a: [1]}], default: {b: 2}, x-kubernetes-validations: [{rule: {a: 1}}]}"), crdWith("{type: [1], enum: {a: 1}, x-kubernetes-validations: {a: 1}}")},
	{crdWith("{type: object, properties: {a: 1, b: [2]}, items: [1], additionalProperties: {x: {y: 1}}}"), crdWith("{type: object, properties: [1], items: {type: string}, x-kubernetes-list-map-keys: [{a: 1}], x-kubernetes-list-type: map}")},
}

func crdWith(schema string) string {
	return "kind: CustomResourceDefinition\nmetadata: {name: w.example.com}\nspec: {names: {kind: [1]}, scope: {a: 1}, versions: [{name: v1, served: x, subresources: [1], additionalPrinterColumns: {a: 1}, schema: {openAPIV3Schema: " + schema + "}}]}\n"
}

// seeds adds every golden case's pair and the panic seeds to add.
func seeds(t testing.TB, add func(a, b []byte)) {
	dirs, err := filepath.Glob(filepath.Join(caseDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		old, err1 := os.ReadFile(filepath.Join(dir, "old.yaml"))
		new, err2 := os.ReadFile(filepath.Join(dir, "new.yaml"))
		if err1 == nil && err2 == nil {
			add(old, new)
		}
	}
	for _, s := range panicSeeds {
		add([]byte(s[0]), []byte(s[1]))
	}
}

// FuzzCompare: any two documents compare without a panic, and so does a document against
// itself with values replaced (the mutation is chosen by the second input's bytes);
// comparing a document with itself finds nothing, the counts are those of the changes, and
// both writers print every report. `make test-root` runs it for a fixed number of
// executions (-fuzztime=Nx); `go test` runs the seeds.
func FuzzCompare(f *testing.F) {
	seeds(f, func(a, b []byte) { f.Add(a, b) })
	f.Fuzz(func(t *testing.T, a, b []byte) {
		oa, errA := Parse("a", a, 0)
		ob, errB := Parse("b", b, 0)
		if errA == nil {
			checkReport(t, Compare(oa, oa), true)
			r := rand.New(rand.NewPCG(uint64(len(b)), hashBytes(b)))
			m := mutate(oa, r, b)
			checkReport(t, Compare(oa, m), false)
			checkReport(t, Compare(m, oa), false)
		}
		if errA == nil && errB == nil {
			checkReport(t, Compare(oa, ob), false)
			checkReport(t, Compare(ob, oa), false)
		}
	})
}

// TestCompareMutations runs 2,000 seeded mutations of every golden case (the seed is
// logged): a fixed number of executions in every `go test`.
func TestCompareMutations(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	var docs [][]*CRD
	seeds(t, func(a, b []byte) {
		for _, src := range [][]byte{a, b} {
			if c, err := Parse("x", src, 0); err == nil {
				docs = append(docs, c)
			}
		}
	})
	runs := 2000
	if testing.Short() {
		runs = 300
	}
	for i := range runs {
		d := docs[i%len(docs)]
		m := mutate(d, r, nil)
		checkReport(t, Compare(d, m), false)
		checkReport(t, Compare(m, d), false)
	}
}

func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

func checkReport(t *testing.T, rep *Report, wantEmpty bool) {
	t.Helper()
	if wantEmpty && !rep.Empty() {
		t.Fatalf("a document against itself: %+v", rep.Changes)
	}
	nb := 0
	for _, c := range rep.Changes {
		if c.Breaking {
			nb++
		}
	}
	if nb != rep.Breaking || len(rep.Changes)-nb != rep.Compatible {
		t.Fatalf("counts %d/%d, changes %d with %d breaking", rep.Breaking, rep.Compatible, len(rep.Changes), nb)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	rep.WriteText(&buf, "")
}

// replacements are the values a mutation puts in place of another: every JSON kind, and
// the shapes that once panicked.
var replacements = []any{
	nil, true, false, "x", "", json.Number("1"), json.Number("-2.5"), json.Number("1e300"),
	map[string]any{}, map[string]any{"a": json.Number("1")}, []any{}, []any{map[string]any{"a": json.Number("1")}},
	[]any{"x", "y"}, []any{[]any{}}, map[string]any{"type": "string"}, "object", "array", "integer", "atomic", "map", "set",
}

// mutate returns a deep copy of crds with a few values of their specs (schemas included)
// replaced, removed or added; choices come from r (and the bytes of script, when given,
// pick the replacements).
func mutate(crds []*CRD, r *rand.Rand, script []byte) []*CRD {
	out := make([]*CRD, len(crds))
	for i, c := range crds {
		spec := deepCopy(c.Spec).(map[string]any)
		// Versions and schemas are rebuilt from the mutated spec, as Parse builds them.
		n := 1 + r.IntN(4)
		for range n {
			mutateOne(spec, r, script)
		}
		obj := map[string]any{"kind": "CustomResourceDefinition", "metadata": map[string]any{"name": c.Name}, "spec": spec}
		m, err := crdOf(obj)
		if err != nil {
			m = &CRD{Name: c.Name, Versions: map[string]map[string]any{}, Spec: spec, Entries: map[string]map[string]any{}}
		}
		out[i] = m
	}
	return out
}

func mutateOne(v any, r *rand.Rand, script []byte) {
	pick := func() any {
		i := r.IntN(len(replacements))
		if len(script) > 0 {
			i = int(script[r.IntN(len(script))]) % len(replacements)
		}
		return deepCopy(replacements[i])
	}
	for depth := 0; ; depth++ {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				x["k"] = pick()
				return
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			k := keys[r.IntN(len(keys))]
			if r.IntN(4) == 0 || depth > 30 {
				switch r.IntN(3) {
				case 0:
					delete(x, k)
				case 1:
					x[k] = pick()
				default:
					x[k+"x"] = pick()
				}
				return
			}
			v = x[k]
		case []any:
			if len(x) == 0 {
				return
			}
			i := r.IntN(len(x))
			if r.IntN(4) == 0 || depth > 30 {
				x[i] = pick()
				return
			}
			v = x[i]
		default:
			return
		}
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}
