package crdvalidate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// wantIn names, per case, a fragment every problem list must hold: the
// point of the case, checked even when the golden file is rewritten.
var wantIn = map[string]string{
	"ref-left-in":                 "$ref",
	"listmap-key-without-default": "protocol",
	"missing-type":                "type",
	"valid":                       "",
}

// TestGolden validates each testdata/validate/<case>/crd.yaml and compares
// the report with want.txt (go test ./... -update rewrites it).
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/validate/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, "crd.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res := Document(t.Context(), project.ValidationDoc{Name: "crd.yaml", Content: string(src), KubernetesVersion: "1.30"})
			var b strings.Builder
			for _, p := range res.Problems {
				fmt.Fprintf(&b, "error: %s\n", p)
			}
			for _, p := range res.Warnings {
				fmt.Fprintf(&b, "warning: %s\n", p)
			}
			golden.Check(t, filepath.Join(dir, "want.txt"), []byte(b.String()))
			frag, known := wantIn[name]
			if !known {
				t.Fatalf("add case %q to wantIn", name)
			}
			if frag == "" {
				if len(res.Problems) > 0 {
					t.Errorf("a valid CRD has problems: %v", res.Problems)
				}
				return
			}
			found := false
			for _, p := range res.Problems {
				found = found || strings.Contains(p.String(), frag)
			}
			if !found {
				t.Errorf("no problem mentions %q: %v", frag, res.Problems)
			}
		})
	}
}

func TestNotACRD(t *testing.T) {
	for _, src := range []string{"", "definitions: {}\n", "- a\n", "a: [\n"} {
		res := Document(t.Context(), project.ValidationDoc{Name: "x.yaml", Content: src})
		if len(res.Problems) == 0 {
			t.Errorf("%q: no problem reported", src)
		}
	}
}
