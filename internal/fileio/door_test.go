package fileio

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Which identifiers of which packages may be used outside the door.
//
// For the packages whose purpose is files and system calls (os,
// syscall, golang.org/x/sys/unix and windows, io/ioutil) the list is of
// what IS allowed: anything else, including whatever a Go release adds
// (os.CopyFS came in 1.23, os.Root in 1.24), fails the test until it is
// classified here. That makes the list complete by construction: no
// os.MkdirTemp, os.Chmod, os.Chtimes, syscall.Openat, unix.Mknod or
// os.NewFile (and with it every *os.File method on a raw descriptor) can
// be missed. For other packages a few named functions that open, create
// or list files are forbidden.
//
// Names are matched by the imported package path, never by the
// identifier, so `import xos "os"` is the same as `import "os"`; a dot
// import of a watched package, cgo (import "C") and //go:linkname are
// refused outright, since they reach the same functions without a
// selector.
//
// Running a program (os/exec) is not a file operation the test can see;
// the CLI runs only its validation companion, plugins found on PATH, and
// git (internal/gitobj: what a ref holds, read from git's object store,
// through ReadFrom's size limit like any other input).
var (
	// allowedOS: process state, streams given by the caller, errors,
	// types, and metadata reads (Stat, Lstat, Readlink) that open nothing.
	allowedOS = set("Args", "Exit", "Getenv", "LookupEnv", "Environ", "Expand", "ExpandEnv",
		"Getwd", "Executable", "Hostname", "Getpid", "Getppid", "Getuid", "Geteuid", "Getgid", "Getegid", "Getpagesize",
		"Stdin", "Stdout", "Stderr", "Signal", "Interrupt", "Kill",
		"Stat", "Lstat", "Readlink", "SameFile", "IsPathSeparator", "PathSeparator", "PathListSeparator", "DevNull",
		"TempDir", "UserHomeDir", "UserCacheDir", "UserConfigDir",
		"IsExist", "IsNotExist", "IsPermission", "IsTimeout",
		"ErrExist", "ErrNotExist", "ErrPermission", "ErrClosed", "ErrInvalid", "ErrDeadlineExceeded", "ErrNoDeadline", "ErrProcessDone",
		"File", "FileInfo", "FileMode", "DirEntry", "PathError", "LinkError", "SyscallError", "Process", "ProcessState")
	// allowedSys: signals, errno values and types, in syscall and x/sys.
	allowedSys = set("Signal", "Errno", "Stat_t", "Getpid", "Getuid", "Kill")
	allowed    = map[string]map[string]bool{
		"os":                       allowedOS,
		"syscall":                  allowedSys,
		"golang.org/x/sys/unix":    allowedSys,
		"golang.org/x/sys/windows": allowedSys,
		"io/ioutil":                set("ReadAll", "Discard", "NopCloser"),
	}
	forbidden = map[string]map[string]bool{
		"path/filepath":   set("Walk", "WalkDir", "Glob"), // directory listings, as os.ReadDir
		"plugin":          set("Open"),
		"archive/zip":     set("OpenReader"),
		"debug/elf":       set("Open"),
		"debug/macho":     set("Open", "OpenFat"),
		"debug/pe":        set("Open"),
		"debug/plan9obj":  set("Open"),
		"debug/buildinfo": set("ReadFile"),
		"net":             set("ListenUnix", "ListenUnixgram"), // create a socket file
	}
	// fileMethods: methods of *os.File that change or list the file
	// (the streams os.Stdin/Stdout/Stderr are the caller's, but not to be
	// truncated or chmodded).
	fileMethods = set("Chmod", "Chown", "Truncate", "Chdir", "ReadDir", "Readdir", "Readdirnames", "SyscallConn", "Fd")
)

// knownSites are uses of a forbidden identifier outside the door, each
// with its reason; a site that no longer exists fails the test, so the
// list cannot outlive its reasons.
var knownSites = map[string]string{
	"project/project.go: path/filepath.Glob":    "output discovery lists directories; every file found is read through a Reader, which re-checks confinement on the opened handle",
	"project/project.go: path/filepath.WalkDir": "the same, for ** patterns (WalkDir does not follow symlinks)",
	"project/migrate.go: path/filepath.WalkDir": "migrate lists the project's YAML files; each is read and rewritten through the door",
	"project/plan.go: path/filepath.WalkDir":    "orphans lists the project's YAML files; the first line of each is read through the Writer's door, and a removal goes through it",
	"cmd/projects.go: path/filepath.WalkDir":    "build and check list the directories below the working directory for projects' configuration files; each is opened by project.Open through the door",
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// allowedSysName is allowedSys plus the SIG* and E* constants.
func allowedSysName(name string) bool {
	if allowedSys[name] || strings.HasPrefix(name, "SIG") {
		return true
	}
	return len(name) > 1 && name[0] == 'E' && strings.ToUpper(name) == name && unicode.IsUpper(rune(name[1]))
}

// doorViolation is one use of a file-touching identifier.
type doorViolation struct {
	Pos   token.Position
	Ident string // import path + "." + name, or what was refused
}

// doorViolations lists what f uses that opens, creates, modifies, lists
// or removes a file without the door.
func doorViolations(fset *token.FileSet, f *ast.File) []doorViolation {
	var out []doorViolation
	add := func(n ast.Node, ident string) {
		out = append(out, doorViolation{Pos: fset.Position(n.Pos()), Ident: ident})
	}
	names := map[string]string{} // local name -> import path, for watched packages
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		if p == "C" {
			add(imp, `import "C"`)
			continue
		}
		_, a := allowed[p]
		_, fb := forbidden[p]
		if !a && !fb {
			continue
		}
		local := path.Base(p)
		if imp.Name != nil {
			local = imp.Name.Name
		}
		switch local {
		case "_":
			continue
		case ".":
			add(imp, "dot import of "+p)
			continue
		}
		names[local] = p
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:linkname") {
				add(c, "//go:linkname")
			}
		}
	}
	pkgOf := func(x ast.Expr) (string, bool) {
		id, ok := x.(*ast.Ident)
		if !ok {
			return "", false
		}
		p, ok := names[id.Name]
		return p, ok
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if p, ok := pkgOf(sel.X); ok {
			name := sel.Sel.Name
			bad := forbidden[p][name]
			switch p {
			case "os", "io/ioutil":
				bad = !allowed[p][name]
			case "syscall", "golang.org/x/sys/unix", "golang.org/x/sys/windows":
				bad = !allowedSysName(name)
			}
			if bad {
				add(sel, p+"."+name)
			}
			return true
		}
		// os.Stdout.Chmod and the like: a method on a package-level *os.File.
		if inner, ok := sel.X.(*ast.SelectorExpr); ok {
			if p, ok := pkgOf(inner.X); ok && p == "os" && fileMethods[sel.Sel.Name] {
				add(sel, "os."+inner.Sel.Name+"."+sel.Sel.Name)
			}
		}
		// (*os.File).Truncate, os.Root.OpenFile: method expressions.
		x := sel.X
		for {
			if pe, ok := x.(*ast.ParenExpr); ok {
				x = pe.X
				continue
			}
			if se, ok := x.(*ast.StarExpr); ok {
				x = se.X
				continue
			}
			break
		}
		if inner, ok := x.(*ast.SelectorExpr); ok && (inner.Sel.Name == "File" || inner.Sel.Name == "Root") {
			if p, ok := pkgOf(inner.X); ok && p == "os" {
				add(sel, "method expression os."+inner.Sel.Name+"."+sel.Sel.Name)
			}
		}
		return true
	})
	return out
}

// TestOneDoor fails when code outside this package opens, creates,
// writes, lists, renames or removes a file itself instead of going
// through a Reader or a Writer. Tests, and the tools that only developers
// run, are exempt (each listed with its reason).
func TestOneDoor(t *testing.T) {
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
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if _, ok := exempt[rel]; ok || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		checked++
		for _, v := range doorViolations(fset, f) {
			site := rel + ": " + v.Ident
			if _, ok := knownSites[site]; ok {
				seen[site] = true
				continue
			}
			t.Errorf("%s:%d:%d: %s: read and write files through internal/fileio (Reader, Writer), or classify it in door_test.go", rel, v.Pos.Line, v.Pos.Column, v.Ident)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked only %d files; is the test running in internal/fileio?", checked)
	}
	for site := range knownSites {
		if !seen[site] {
			t.Errorf("knownSites: %q is used nowhere any more; remove it", site)
		}
	}
}

// TestOneDoorCatches is the test of TestOneDoor: each fixture reaches a
// file without the door and must be reported; the clean one must not.
func TestOneDoorCatches(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // idents reported, in order
	}{
		{"aliased os", `import xos "os"; func f() { xos.WriteFile("x", nil, 0) }`, []string{"os.WriteFile"}},
		{"aliased os as another package's name", `import filepath "os"; func f() { filepath.Remove("x") }`, []string{"os.Remove"}},
		{"os beyond the old list", `import "os"; func f() { os.MkdirTemp("", ""); os.CopyFS("d", nil); os.Chmod("x", 0); os.Chown("x", 0, 0); os.Lchown("x", 0, 0); os.Chtimes("x", t0, t0); os.Truncate("x", 0); os.Link("a", "b"); os.Symlink("a", "b"); os.CreateTemp("", "") }`,
			[]string{"os.MkdirTemp", "os.CopyFS", "os.Chmod", "os.Chown", "os.Lchown", "os.Chtimes", "os.Truncate", "os.Link", "os.Symlink", "os.CreateTemp"}},
		{"a function value", `import "os"; var rm = os.RemoveAll`, []string{"os.RemoveAll"}},
		{"raw descriptor", `import "os"; func f() { os.NewFile(3, "x").Truncate(0) }`, []string{"os.NewFile"}},
		{"method expression", `import "os"; var tr = (*os.File).Truncate`, []string{"method expression os.File.Truncate"}},
		{"method on a stream", `import "os"; func f() { os.Stdout.Chmod(0) }`, []string{"os.Stdout.Chmod"}},
		{"syscall", `import "syscall"; func f() { syscall.Openat(0, "x", 0, 0); syscall.Creat("x", 0); syscall.Mkfifo("x", 0); syscall.Mknod("x", 0, 0) }`,
			[]string{"syscall.Openat", "syscall.Creat", "syscall.Mkfifo", "syscall.Mknod"}},
		{"aliased unix", `import u "golang.org/x/sys/unix"; func f() { u.Unlinkat(0, "x", 0); u.Renameat2(0, "a", 0, "b", 0) }`,
			[]string{"golang.org/x/sys/unix.Unlinkat", "golang.org/x/sys/unix.Renameat2"}},
		{"ioutil", `import "io/ioutil"; func f() { ioutil.TempDir("", "") }`, []string{"io/ioutil.TempDir"}},
		{"listing", `import fp "path/filepath"; func f() { fp.Glob("*") }`, []string{"path/filepath.Glob"}},
		{"dot import", `import . "os"; func f() { Remove("x") }`, []string{"dot import of os"}},
		{"cgo", `import "C"; func f() { C.unlink(nil) }`, []string{`import "C"`}},
		{"linkname", "import _ \"unsafe\"\n//go:linkname open os.Open\nfunc open(string) (any, error)", []string{"//go:linkname"}},
		{"clean", `import ("os"; "syscall"; fp "path/filepath"); func f() { os.Stat("x"); os.Exit(syscall.ENOENT.Error() == ""); _ = syscall.SIGTERM; fp.Join("a"); os.Stderr.Write(nil) }`, nil},
		{"not the os package", `import os "example.com/os"; func f() { os.Remove("x") }`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "fixture.go", "package p\n"+tc.src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range doorViolations(fset, f) {
				got = append(got, v.Ident)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("reported %q, want %q", got, tc.want)
			}
		})
	}
}
