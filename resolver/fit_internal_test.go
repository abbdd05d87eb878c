package resolver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestFitIsEager: fitting (with the template's JSON patch, as build
// compiles it) gives the same bytes, sizes and counts whether
// the definitions come from lazy entries or are resolved in full, for the
// newest minor (entries with and without descriptions), an older one
// (entries without only), 1.16 and 1.13 (no entries): the walk reads
// lazy entries only as deep as the cut, and copies only on the way to
// what it keeps.
func TestFitIsEager(t *testing.T) {
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
	for _, v := range []string{"1.37", "1.30", "1.16", "1.13"} {
		var texts [2]string
		var fits [2]DescriptionFit
		for i, eager := range []bool{false, true} {
			c, err := New(Options{KubeVersion: v, WorkDir: root, FitDescriptions: 230_000, Patch: patch})
			if err != nil {
				t.Fatal(err)
			}
			c.eager = eager
			res, err := c.Compile(filepath.Join(root, "templates", "daskjob.yaml"), src)
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
				t.Fatalf("Kubernetes %s, eager %t: JSONSize %d, compact JSON %d, limit 230,000", v, eager, d.JSONSize(), len(raw))
			}
			texts[i], fits[i] = string(out), d.Descriptions()
		}
		if texts[0] != texts[1] || fits[0] != fits[1] {
			t.Errorf("Kubernetes %s: lazy and eager fitting differ: %+v, %+v", v, fits[0], fits[1])
		}
		if fits[0].Kept == 0 || fits[0].Kept >= fits[0].Total {
			t.Errorf("Kubernetes %s: kept %d of %d, want some", v, fits[0].Kept, fits[0].Total)
		}
		t.Logf("Kubernetes %s: %+v", v, fits[0])
	}
}
