package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// TestVersions checks that the embedded bundles are exactly the releases versions.txt pins,
// a contiguous run of minors from 1.12 (the oldest the Python tool ships) that reaches at
// least 1.37.
func TestVersions(t *testing.T) {
	pins := readPins(t)
	got := Versions()
	if len(got) != len(pins) {
		t.Fatalf("Versions() = %v, but versions.txt pins %v", got, pins)
	}
	for i, v := range got {
		if want := fmt.Sprintf("1.%d", 12+i); v != want {
			t.Fatalf("Versions() = %v, want contiguous minors from 1.12", got)
		}
		b, err := Load(v)
		if err != nil {
			t.Fatal(err)
		}
		if src := b.Source(); src.KubernetesVersion != pins[i] {
			t.Errorf("bundle %s is built from %s, but versions.txt pins %s", v, src.KubernetesVersion, pins[i])
		}
	}
	if compareMinor(Latest(), "1.37") < 0 || Latest() != got[len(got)-1] {
		t.Errorf("Latest() = %q", Latest())
	}
	got[0] = "mutated"
	if Versions()[0] != "1.12" {
		t.Error("Versions returned shared state")
	}
}

// readPins returns the releases of versions.txt in file order.
func readPins(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("versions.txt")
	if err != nil {
		t.Fatal(err)
	}
	var pins []string
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			pins = append(pins, line)
		}
	}
	return pins
}

func TestCanonical(t *testing.T) {
	for _, in := range []string{"1.21", "1.21.1", "v1.21.14", "v1.21", "1.21.99"} {
		got, err := Canonical(in)
		if err != nil || got != "1.21" {
			t.Errorf("Canonical(%q) = %q, %v; want 1.21", in, got, err)
		}
	}
	for _, in := range []string{"", "1", "v", "1.", "1.21.", "1.021", "x1.21", "1.21.1.1", "1.21-rc.1", "2.21", "1.11", "1.99", "vv1.21", " 1.21"} {
		got, err := Canonical(in)
		if !errors.Is(err, ErrUnknownVersion) {
			t.Errorf("Canonical(%q) = %q, %v; want ErrUnknownVersion", in, got, err)
			continue
		}
		if !strings.Contains(err.Error(), "1.12, 1.13") || !strings.Contains(err.Error(), Latest()) {
			t.Errorf("Canonical(%q) error does not list the versions: %v", in, err)
		}
	}
	if _, err := Load("1.11"); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("Load(1.11) error = %v, want ErrUnknownVersion", err)
	}
}

// TestEmbedded checks every embedded bundle: it validates, and holds what the resolver
// relies on, including the list-map key defaults Kubernetes applies.
func TestEmbedded(t *testing.T) {
	for _, v := range Versions() {
		t.Run(v, func(t *testing.T) {
			b, err := Load("v" + v + ".0")
			if err != nil {
				t.Fatal(err)
			}
			if b.Version() != v {
				t.Errorf("Version() = %q", b.Version())
			}
			if err := b.Validate(); err != nil {
				t.Fatal(err)
			}
			src := b.Source()
			if !strings.HasPrefix(src.KubernetesVersion, "v"+v+".") || src.Module != "k8s.io/kubernetes@"+src.KubernetesVersion {
				t.Errorf("Source() = %+v", src)
			}
			if _, ok := src.SHA256["api/openapi-spec/swagger.json"]; !ok {
				t.Errorf("no SHA-256 of swagger.json in %v", src.SHA256)
			}
			wantBorrowed := compareMinor(v, "1.23") < 0
			if (src.DefaultsFrom != "") != wantBorrowed || (wantBorrowed && !strings.HasPrefix(src.DefaultsFrom, "v1.23.")) {
				t.Errorf("DefaultsFrom = %q", src.DefaultsFrom)
			}

			pod := definition(t, b, "io.k8s.api.core.v1.PodSpec")
			if pod["properties"].(map[string]any)["containers"] == nil {
				t.Error("PodSpec has no containers")
			}
			wantDefault(t, b, "io.k8s.api.core.v1.ContainerPort", "protocol", "TCP")
			wantDefault(t, b, "io.k8s.api.core.v1.ServicePort", "protocol", "TCP")
			if compareMinor(v, "1.34") >= 0 {
				wantDefault(t, b, "io.k8s.api.core.v1.LocalObjectReference", "name", "")
			}
			names := b.Names()
			if len(names) < 500 || !b.Has(names[0]) || !b.Has(names[len(names)-1]) {
				t.Errorf("Names() has %d names", len(names))
			}
		})
	}
	// EndpointPort (core/v1 and discovery/v1) is documented as defaulting to TCP, but no
	// release's v3 documents publish that default, and a bundle never invents one.
}

func definition(t *testing.T, b *Bundle, name string) map[string]any {
	t.Helper()
	data, err := b.Definition(name)
	if err != nil {
		t.Fatal(err)
	}
	var def map[string]any
	if err := json.Unmarshal(data, &def); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return def
}

func wantDefault(t *testing.T, b *Bundle, name, property string, want any) {
	t.Helper()
	props, _ := definition(t, b, name)["properties"].(map[string]any)
	prop, _ := props[property].(map[string]any)
	if got, ok := prop["default"]; !ok || got != want {
		t.Errorf("%s: %s.%s default = %#v (present %v), want %#v", b.Version(), name, property, got, ok, want)
	}
}

func TestNoDefinition(t *testing.T) {
	b, err := Load(Latest())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"io.k8s.api.core.v1.PodSpecX", "", "PodSpec", "../manifest.json", "io.k8s.api.core.v1.PodSpec/"} {
		if _, err := b.Definition(name); !errors.Is(err, ErrNoDefinition) {
			t.Errorf("Definition(%q) error = %v, want ErrNoDefinition", name, err)
		}
		if b.Has(name) {
			t.Errorf("Has(%q) = true", name)
		}
	}
	// Definition returns fresh bytes.
	a, _ := b.Definition("io.k8s.api.core.v1.PodSpec")
	a[0] = 'X'
	if c, _ := b.Definition("io.k8s.api.core.v1.PodSpec"); c[0] != '{' {
		t.Error("Definition returned shared bytes")
	}
}

func TestLoadConcurrent(t *testing.T) {
	l := &loader{bundles: embedded, pool: sharedPool}
	versions := l.index().versions
	results := make([][]*Bundle, 8)
	var wg sync.WaitGroup
	for g := range results {
		wg.Go(func() {
			for _, v := range versions[len(versions)-4:] {
				b, err := l.load(v)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := b.Definition("io.k8s.api.core.v1.PodSpec"); err != nil {
					t.Error(err)
				}
				results[g] = append(results[g], b)
			}
		})
	}
	wg.Wait()
	for g := 1; g < len(results); g++ {
		for i := range results[g] {
			if results[g][i] != results[0][i] {
				t.Fatalf("goroutine %d got a different *Bundle for %s", g, versions[len(versions)-4+i])
			}
		}
	}
}

// fixture writes a small bundle with bundlefmt.Write, the generator's writer.
func fixture(t testing.TB, defs map[string]string) []byte {
	t.Helper()
	return fixtureObjects(t, defs, nil)
}

// fixtureObjects is fixture with a manifest classifying property-less objects.
func fixtureObjects(t testing.TB, defs map[string]string, objects map[string]Object) []byte {
	t.Helper()
	t.Helper()
	raw := map[string][]byte{}
	for k, v := range defs {
		raw[k] = []byte(v)
	}
	m := bundlefmt.Manifest{
		KubernetesVersion: "v1.99.3",
		Module:            "k8s.io/kubernetes@v1.99.3",
		SHA256:            map[string]string{"api/openapi-spec/swagger.json": strings.Repeat("ab", 32)},
		GoModules:         map[string]string{"k8s.io/api@v0.99.3": "h1:x"},
		Objects:           objects,
	}
	var buf bytes.Buffer
	if err := bundlefmt.Write(&buf, m, raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFixtureRoundTrip(t *testing.T) {
	defs := map[string]string{
		"a.B":   `{"type": "object", "properties": {"c": {"$ref": "#/definitions/a.B.c"}}}`,
		"a.B.c": `{"type":"string","description":"<b> & more"}`,
		"a.Bc":  `{"type":"integer","default":1e400}`,
	}
	first := fixture(t, defs)
	if second := fixture(t, defs); !bytes.Equal(first, second) {
		t.Fatal("writing the same bundle twice gave different bytes")
	}
	l := &loader{bundles: []embeddedBundle{{"1.99", first}, {"README", nil}}}
	if got := l.index().versions; len(got) != 1 || got[0] != "1.99" {
		t.Fatalf("versions = %v", got)
	}
	b, err := l.load("v1.99.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.Names(), " "); got != "a.B a.B.c a.Bc" {
		t.Errorf("Names() = %s", got)
	}
	// Compact, keys sorted, numbers as written, descriptions apart.
	for name, want := range map[string][2]string{
		"a.B":   {`{"properties":{"c":{"$ref":"#/definitions/a.B.c"}},"type":"object"}`, ""},
		"a.B.c": {`{"type":"string"}`, `{"":"<b> & more"}`},
		"a.Bc":  {`{"default":1e400,"type":"integer"}`, ""},
	} {
		got, err := b.Definition(name)
		if err != nil || string(got) != want[0] {
			t.Errorf("Definition(%s) = %s, %v; want %s", name, got, err, want[0])
		}
		descs, err := b.Descriptions(name)
		if err != nil || string(descs) != want[1] || (want[1] == "") != (descs == nil) {
			t.Errorf("Descriptions(%s) = %q, %v; want %q", name, descs, err, want[1])
		}
	}

	dangling := fixture(t, map[string]string{"a.B": `{"items":{"$ref":"#/definitions/a.Missing"}}`, "a.C": `{"$ref":"other.json#/x"}`})
	l = &loader{bundles: []embeddedBundle{{"1.99", dangling}}}
	if b, err = l.load("1.99"); err != nil {
		t.Fatal(err)
	}
	err = b.Validate()
	if !errors.Is(err, ErrNoDefinition) || !strings.Contains(err.Error(), "a.Missing") || !strings.Contains(err.Error(), "other.json") {
		t.Errorf("Validate() = %v, want the dangling and the non-local $ref", err)
	}
}

// TestValidateObjects: every property-less object must be classified, and its definition
// must say what its classification does.
func TestValidateObjects(t *testing.T) {
	load := func(defs map[string]string, objects map[string]Object) error {
		t.Helper()
		l := &loader{bundles: []embeddedBundle{{"1.99", fixtureObjects(t, defs, objects)}}}
		b, err := l.load("1.99")
		if err != nil {
			t.Fatal(err)
		}
		return b.Validate()
	}
	decl := "k8s.io/api@v0.99.3/x/types.go:1"
	if err := load(map[string]string{"a.E": `{"type":"object"}`, "a.J": `{"x-kubernetes-preserve-unknown-fields":true}`},
		map[string]Object{"a.E": {Kind: ObjectEmpty, Decl: decl}, "a.J": {Kind: ObjectArbitrary, Decl: decl}}); err != nil {
		t.Errorf("classified bundle: %v", err)
	}
	for _, c := range []struct {
		defs    map[string]string
		objects map[string]Object
		want    string
	}{
		{map[string]string{"a.E": `{"type":"object"}`}, nil, "a.E: a property-less object the manifest does not classify"},
		{map[string]string{"a.J": `{}`}, map[string]Object{"a.J": {Kind: ObjectArbitrary, Decl: decl}}, "a.J: arbitrary JSON without x-kubernetes-preserve-unknown-fields"},
		{map[string]string{"a.E": `{}`}, map[string]Object{"a.E": {Kind: ObjectEmpty, Decl: decl}}, "a.E: an empty struct must be a plain type: object"},
		{map[string]string{"a.E": `{"type":"object"}`}, map[string]Object{"a.E": {Kind: "guess", Decl: decl}, "a.X": {Kind: ObjectEmpty, Decl: decl}}, `manifest object a.E: kind "guess"`},
		{map[string]string{"a.E": `{"type":"object"}`}, map[string]Object{"a.E": {Kind: ObjectEmpty, Decl: decl}, "a.X": {Kind: ObjectEmpty, Decl: decl}}, "manifest object a.X: no such definition"},
	} {
		if err := load(c.defs, c.objects); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: Validate() = %v, want %q", c.defs, c.objects, err, c.want)
		}
	}
}

func TestCorrupt(t *testing.T) {
	good := fixture(t, map[string]string{"a.B": `{}`})
	otherVersion := bytes.Clone(good)
	otherVersion[7] = 2
	for name, data := range map[string][]byte{
		"empty":     nil,
		"truncated": good[:len(good)/2],
		"garbage":   []byte("not a bundle at all, not a bundle at all"),
		"format 2":  otherVersion,
	} {
		l := &loader{bundles: []embeddedBundle{{"1.99", data}}}
		if _, err := l.load("1.99"); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
	}
	// A flipped bit in a chunk passes Load and reads (the chunk's CRC-32 is not summed on
	// every read: see bundlefmt.Reader), but not Validate.
	bad := bytes.Clone(good)
	bad[len(bad)-2] ^= 0x10
	l := &loader{bundles: []embeddedBundle{{"1.99", bad}}}
	b, err := l.load("1.99")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "CRC-32") {
		t.Errorf("Validate of a corrupt chunk: %v", err)
	}
	// Names out of order pass Load too (it checks the frame, not the 900 names: see
	// bundlefmt.Open), but not Validate, which the tests run on every embedded bundle.
	l = &loader{bundles: []embeddedBundle{{"1.99", fixtureSwapped(t)}}}
	if b, err = l.load("1.99"); err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "not sorted") {
		t.Errorf("Validate of a bundle with names out of order: %v", err)
	}
}

// fixtureSwapped is a bundle whose names are out of order.
func fixtureSwapped(t *testing.T) []byte {
	data := fixture(t, map[string]string{"a.B": `{}`, "a.C": `{}`})
	i := bytes.Index(data, []byte("a.B\na.C\n"))
	if i < 0 {
		t.Fatal("no names in the fixture")
	}
	copy(data[i:], "a.C\na.B\n")
	return data
}

// BenchmarkLoad measures the first Load of a version, in a fresh cache each time.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		l := &loader{bundles: embedded, pool: sharedPool}
		if _, err := l.load("1.30"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDefinition measures reading one definition from a loaded bundle.
func BenchmarkDefinition(b *testing.B) {
	bundle, err := Load("1.30")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bundle.Definition("io.k8s.api.core.v1.PodSpec"); err != nil {
			b.Fatal(err)
		}
	}
}
