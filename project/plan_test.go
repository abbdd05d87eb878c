package project

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPlanWindow: however many outputs a project has, Plan holds the text
// of at most one per core at once (build and check used to hold every
// output's, twice when up to date), and what it stages and compares is
// each output's exact content, in two output directories, with one
// file stale, the others missing, then all unchanged and left alone.
func TestPlanWindow(t *testing.T) {
	for _, procs := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			dir := t.TempDir()
			write(t, dir, ".git/HEAD", "")
			write(t, dir, ConfigFileName, "sets:\n- templates: ['templates/*.yaml']\n  outputs: [dist, chart/crds]\n")
			const n = 40
			for i := range n {
				write(t, dir, fmt.Sprintf("templates/t%02d.yaml", i), template(fmt.Sprintf("t%02ds", i), "io.k8s.api.core.v1.ServiceSpec"))
			}
			write(t, dir, "dist/t07.yaml", string(SealedFile("templates/t07.yaml", []byte("old\n"), "1.30")))
			p, outs := openCompiled(t, dir)
			var live, most atomic.Int64
			var mu sync.Mutex
			seen := map[string]State{}
			compare := func(fs *FileStatus, o *Output, current, want []byte) {
				defer live.Add(-1)
				storeMax(&most, live.Add(1))
				if data, err := o.Bytes(); err != nil || !bytes.Equal(data, want) {
					t.Errorf("%s: Compare got other bytes than the output's (%v)", fs.Name, err)
				}
				if (fs.State == Missing) != (current == nil) {
					t.Errorf("%s: %s with %d bytes on disk", fs.Name, fs.State, len(current))
				}
				mu.Lock()
				seen[fs.Name] = fs.State
				mu.Unlock()
			}
			plan, err := p.Plan(outs, PlanOptions{Orphans: true, Stage: true, Compare: compare})
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			if plan.Peak() < 1 || plan.Peak() > procs || most.Load() > int64(procs) {
				t.Errorf("%d outputs rendered at once, %d compared at once: want at most GOMAXPROCS, %d", plan.Peak(), most.Load(), procs)
			}
			if len(plan.Files) != 2*n || len(seen) != 2*n || seen["dist/t07.yaml"] != Stale || seen["dist/t08.yaml"] != Missing {
				t.Errorf("%d files planned, %d compared, t07 %s, t08 %s", len(plan.Files), len(seen), seen["dist/t07.yaml"], seen["dist/t08.yaml"])
			}
			done, err := plan.Apply()
			if err != nil || len(done) != 2*n {
				t.Fatalf("Apply: %d done, %v", len(done), err)
			}
			old := time.Now().Add(-time.Hour)
			checkWritten(t, outs, func(path string) {
				if err := os.Chtimes(path, old, old); err != nil {
					t.Fatal(err)
				}
			})
			plan, err = p.Plan(outs, PlanOptions{Orphans: true, Stage: true, Compare: compare})
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			if done, err := plan.Apply(); err != nil || len(done) != 0 {
				t.Errorf("up to date: Apply did %d, %v", len(done), err)
			}
			for _, fs := range plan.Files {
				fi, err := os.Stat(fs.Path)
				if fs.State != Unchanged || err != nil || !fi.ModTime().Equal(old) {
					t.Errorf("up to date: %s is %s, touched: %v", fs.Name, fs.State, err)
				}
			}
			// The outputs of one Compile worker only (what file arguments may
			// keep): every worker helps.
			var some []*Output
			for i, o := range outs {
				if i%procs == 0 {
					some = append(some, o)
				}
			}
			plan, err = p.Plan(some, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Files) != 2*len(some) || plan.Peak() > procs {
				t.Errorf("a subset: %d files for %d outputs, %d rendered at once", len(plan.Files), len(some), plan.Peak())
			}
			for _, fs := range plan.Files {
				if fs.State != Unchanged {
					t.Errorf("a subset: %s is %s", fs.Name, fs.State)
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(dir, "dist")); len(entries) != n {
				t.Errorf("dist holds %d entries, want %d (no temporary file left)", len(entries), n)
			}
		})
	}
}

// TestPlanStreamsMissing: an output written to one file that is missing
// is rendered straight into its temporary file (streamMissing), and what
// lands is the output's exact content; a stale one, an unchanged one and
// one of a set with two output directories go through the buffer, as
// does every output when Compare asks for the bytes.
func TestPlanStreamsMissing(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, ConfigFileName, "sets:\n- templates: ['templates/t*.yaml']\n  outputs: [dist]\n- templates: ['templates/u*.yaml']\n  outputs: [dist2, chart/crds]\n")
	for _, name := range []string{"t0", "t1", "t2", "t3", "u0"} {
		write(t, dir, "templates/"+name+".yaml", template(name+"s", "io.k8s.api.core.v1.PodSpec"))
	}
	write(t, dir, "dist/t1.yaml", string(SealedFile("templates/t1.yaml", []byte("old\n"), "1.30")))
	p, outs := openCompiled(t, dir)
	// t2 unchanged: written as it compiles.
	for _, o := range outs {
		if o.Template.Name == "templates/t2.yaml" {
			data, err := o.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			write(t, dir, "dist/t2.yaml", string(data))
		}
	}
	plan, err := p.Plan(outs, PlanOptions{Stage: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	if got := plan.streamed.Load(); got != 2 { // t0 and t3
		t.Errorf("%d outputs streamed, want 2", got)
	}
	states := map[string]State{}
	for _, fs := range plan.Files {
		states[fs.Name] = fs.State
	}
	if states["dist/t0.yaml"] != Missing || states["dist/t1.yaml"] != Stale || states["dist/t2.yaml"] != Unchanged || states["dist2/u0.yaml"] != Missing {
		t.Errorf("states: %v", states)
	}
	if _, err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	checkWritten(t, outs, nil)
	// With Compare, nothing streams: it gets the bytes.
	if err := os.Remove(filepath.Join(dir, "dist/t0.yaml")); err != nil {
		t.Fatal(err)
	}
	var compared atomic.Int64
	plan, err = p.Plan(outs, PlanOptions{Stage: true, Compare: func(*FileStatus, *Output, []byte, []byte) { compared.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	if plan.streamed.Load() != 0 || compared.Load() != 1 {
		t.Errorf("with Compare: %d streamed, %d compared", plan.streamed.Load(), compared.Load())
	}
}

// openCompiled opens the project in dir and compiles every template.
func openCompiled(t *testing.T, dir string) (*Project, []*Output) {
	t.Helper()
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := p.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, outs
}

// checkWritten checks that every output file holds its output's bytes,
// calling then (when not nil) with each.
func checkWritten(t *testing.T, outs []*Output, then func(path string)) {
	t.Helper()
	for _, o := range outs {
		want, err := o.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range o.Template.Outputs {
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: not the output's bytes (%v)", path, err)
			}
			if then != nil {
				then(path)
			}
		}
	}
}

// TestOrphansElsewhere: outside the output directories, a generated file is
// an orphan when it bears the name of an output of the template its header
// names (what a dropped output directory leaves), whatever outs holds; a
// copy under another name, a file naming no template of the project, and
// the files of another project below are not.
func TestOrphansElsewhere(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, "templates/a.yaml", template("as", "io.k8s.api.core.v1.LocalObjectReference"))
	write(t, dir, ConfigFileName, "sets:\n  - templates: [\"templates/*.yaml\"]\n    outputs: [crds]\n")
	sealed := string(SealedFile("templates/a.yaml", []byte("x: 1\n"), "1.30"))
	write(t, dir, "dist/a.yaml", sealed)                                                           // the old output directory
	write(t, dir, "dist/old.yaml", sealed)                                                         // a copy under another name
	write(t, dir, "dist/b.yaml", string(SealedFile("templates/b.yaml", []byte("x: 1\n"), "1.30"))) // no such template here
	write(t, dir, "sub/"+ConfigFileName, "kubernetesVersion: \"1.30\"\n")
	write(t, dir, "sub/dist/a.yaml", sealed) // another project's
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Plan(nil, PlanOptions{Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fs := range plan.Files {
		got = append(got, fs.Name+" "+fs.State.String()+" "+fs.From)
	}
	if want := []string{"dist/a.yaml orphan templates/a.yaml"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan of no output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
