package fileio

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneDoor fails when code outside this package opens, creates,
// writes, renames or removes a file itself instead of going through a
// Reader or a Writer. Tests, and the tools that only developers run, are
// exempt (each listed with its reason).
func TestOneDoor(t *testing.T) {
	forbidden := map[string]bool{
		"os.Open": true, "os.OpenFile": true, "os.ReadFile": true, "os.Create": true, "os.CreateTemp": true,
		"os.WriteFile": true, "os.Rename": true, "os.Remove": true, "os.RemoveAll": true, "os.Truncate": true,
		"os.Mkdir": true, "os.MkdirAll": true, "os.Symlink": true, "os.Link": true, "os.ReadDir": true,
		"os.DirFS": true, "os.OpenRoot": true, "os.OpenInRoot": true,
		"ioutil.ReadFile": true, "ioutil.WriteFile": true, "ioutil.ReadDir": true, "ioutil.TempFile": true,
		"syscall.Open": true, "unix.Open": true, "unix.Openat": true,
	}
	exempt := map[string]string{
		"internal/fileio": "the door itself",
		"tools/schemagen": "make schemas: reads the Kubernetes module cache and writes schemas/data, run by developers only",
		"internal/golden": "test helper: writes golden files under -update",
		"integration":     "tests",
		"operator/e2e":    "tests",
		"operator/hack":   "release tools run by developers and CI (the image builder reads built binaries, writes the image archive)",
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if _, ok := exempt[rel]; ok || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && forbidden[pkg.Name+"."+sel.Sel.Name] {
				t.Errorf("%s: %s.%s: read and write files through internal/fileio (Reader, Writer)", rel, pkg.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked only %d files; is the test running in internal/fileio?", checked)
	}
}
