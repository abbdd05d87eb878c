package resolver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestFitAcrossMinors: fitting daskjob (with its JSON patch, as build
// compiles it) gives an exact JSONSize within the limit for the newest
// minor, an older one and 1.16, the oldest that takes Dask's templates
// (before it, their defaults are refused: minor.go),
// the same bytes from a fresh Compiler and from one whose caches another
// compile filled first (of the template without its patch), and the same
// as with the test hook that resolves everything in full.
func TestFitAcrossMinors(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "templates", "daskjob.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	patchSrc, err := os.ReadFile(filepath.Join(root, "templates", "daskjob.patch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	patch, err := ParsePatch("templates/daskjob.patch.yaml", patchSrc)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1.37", "1.30", "1.16"} {
		var texts [3]string
		var fits [3]DescriptionFit
		for i := range 3 {
			c, err := New(Options{KubeVersion: v, WorkDir: root, FitDescriptions: 230_000})
			if err != nil {
				t.Fatal(err)
			}
			if i == 2 { // the same template without its patch first
				if _, err := c.Compile(filepath.Join(root, "templates", "daskjob.yaml"), src); err != nil {
					t.Fatal(err)
				}
			}
			res, err := c.CompilePatched(filepath.Join(root, "templates", "daskjob.yaml"), src, nil, patch)
			if err != nil {
				t.Fatal(err)
			}
			out, err := res.YAML()
			if err != nil {
				t.Fatal(err)
			}
			d := res.Documents[0]
			raw, err := json.Marshal(d.Object())
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(raw)) != d.JSONSize() || d.JSONSize() > 230_000 {
				t.Fatalf("Kubernetes %s, run %d: JSONSize %d, compact JSON %d, limit 230,000", v, i, d.JSONSize(), len(raw))
			}
			texts[i], fits[i] = string(out), d.Descriptions()
		}
		if texts[0] != texts[1] || fits[0] != fits[1] || texts[0] != texts[2] || fits[0] != fits[2] {
			t.Errorf("Kubernetes %s: fresh and reused Compilers fit differently: %+v, %+v, %+v", v, fits[0], fits[1], fits[2])
		}
		if fits[0].Kept == 0 || fits[0].Kept >= fits[0].Total {
			t.Errorf("Kubernetes %s: kept %d of %d, want some", v, fits[0].Kept, fits[0].Total)
		}
		t.Logf("Kubernetes %s: %+v", v, fits[0])
	}
}

// TestFitWithoutRoomIsTheBareCompile: when not even the CRD without
// Kubernetes' descriptions fits, fitting gives that CRD, which it makes
// from the compile with descriptions (withoutKubeDescriptions): it must
// be what a compile with RemoveDescriptions gives, value and JSONSize,
// for Dask's templates with their patches over several minors and for
// the golden cases with descriptions of every origin (the author's beside
// a $ref and in local files, Kubernetes' in items, truncated).
func TestFitWithoutRoomIsTheBareCompile(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	type tc struct{ template, patch, version string }
	var cases []tc
	for _, n := range []string{"daskautoscaler", "daskcluster", "daskjob", "daskworkergroup"} {
		for _, v := range []string{"1.37", "1.30", "1.25"} { // 1.25: the oldest Dask's templates compile for
			cases = append(cases, tc{filepath.Join(root, "templates", n+".yaml"), filepath.Join(root, "templates", n+".patch.yaml"), v})
		}
	}
	for _, n := range []string{"fit-descriptions-key", "fit-descriptions-order", "norm-descriptions", "norm-max-description-length"} {
		cases = append(cases, tc{filepath.Join(root, "testdata", "compile", n, "template.yaml"), "", "1.37"})
	}
	for _, c := range cases {
		src, err := os.ReadFile(c.template)
		if err != nil {
			t.Fatal(err)
		}
		var patch *Patch
		if psrc, err := os.ReadFile(c.patch); err == nil {
			if patch, err = ParsePatch(c.patch, psrc); err != nil {
				t.Fatal(err)
			}
		}
		compile := func(opts Options) *Result {
			opts.KubeVersion, opts.WorkDir = c.version, filepath.Dir(c.template)
			cc, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cc.CompilePatched(c.template, src, nil, patch)
			if err != nil {
				t.Fatalf("%s for %s: %v", c.template, c.version, err)
			}
			return res
		}
		bare, tight := compile(Options{RemoveDescriptions: true}), compile(Options{FitDescriptions: 1})
		for i, d := range tight.Documents {
			b := bare.Documents[i]
			got, _ := json.Marshal(d.Object())
			want, _ := json.Marshal(b.Object())
			if string(got) != string(want) || d.JSONSize() != b.JSONSize() {
				t.Errorf("%s for %s, %s: without room, %d bytes (JSONSize %d); compiled without descriptions, %d (JSONSize %d)", c.template, c.version, d.Name, len(got), d.JSONSize(), len(want), b.JSONSize())
			}
		}
	}
}
