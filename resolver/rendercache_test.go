package resolver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderCacheIsRenderingInPlace: the Dask templates, compiled with
// and without Kubernetes' descriptions by one Compiler (twice, so the
// second round renders from the cache the first filled), render the same
// bytes through AppendYAML and WriteYAML as EncodeYAML of their objects,
// which shares nothing; and the cache was used: the bundle's entries on
// their second use where the compile reads them (lazy.go), and mappings
// shared by $ref sites (a PodSpec's properties) where it resolves them in
// full (descriptions truncated, or kept for a minor whose bundle stores no
// entries with them).
func TestRenderCacheIsRenderingInPlace(t *testing.T) {
	files, err := filepath.Glob("../templates/dask*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatal("no templates", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		version string
		remove  bool
		max     int
		lazy    bool // the bundle stores the entries the mode reads
	}{{"1.37", false, 0, true}, {"1.37", true, 0, true}, {"1.37", false, 200, false}, {"1.30", false, 0, false}} {
		remove := mode.remove
		c, err := New(Options{KubeVersion: mode.version, WorkDir: wd, RemoveDescriptions: remove, MaxDescriptionLength: mode.max})
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			for _, f := range files {
				if strings.HasSuffix(f, ".patch.yaml") {
					continue
				}
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				res, err := c.Compile(f, src)
				if err != nil {
					t.Fatal(err)
				}
				var want []byte
				for _, d := range res.Documents {
					one, err := EncodeYAML(d.Object())
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, one...)
				}
				got, err := res.YAML()
				if err != nil {
					t.Fatal(err)
				}
				var streamed bytes.Buffer
				if err := res.WriteYAML(&streamed); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) || !bytes.Equal(streamed.Bytes(), want) {
					t.Fatalf("%+v, round %d, %s: AppendYAML same: %v, WriteYAML same: %v", mode, round, f, bytes.Equal(got, want), bytes.Equal(streamed.Bytes(), want))
				}
			}
		}
		if lazy := c.lazy != nil; lazy != mode.lazy {
			t.Errorf("%+v: entries read %v", mode, lazy)
		} else if lazy && len(c.render.entries) == 0 {
			t.Errorf("%+v: no entry was rendered from the cache", mode)
		} else if !lazy && len(c.render.text) == 0 {
			t.Errorf("%+v: no shared mapping was rendered from the cache", mode)
		}
	}
}
