// Command schemagen regenerates the embedded Kubernetes OpenAPI bundles of package schemas.
//
// It reads the releases pinned in versions.txt (one "vMAJOR.MINOR.PATCH" a line), downloads
// each k8s.io/kubernetes module through the Go module proxy into a private temporary module
// cache, and writes data/<minor>.bundle from api/openapi-spec/swagger.json plus the defaults of
// api/openapi-spec/v3/*.json and what the Go source of the staging modules the definitions
// come from (k8s.io/api, ... at v0.MINOR.PATCH, into the same cache) declares: see "What the
// Go types say" in package schemas. Releases are processed one at a time and nothing is cached
// between runs. It lives in the tools module (tools/go.mod), so the compiler module's
// `go install ./...` (what pre-commit runs) never builds it; run it from the schemas
// directory, as the Makefile does:
//
//	make schemas               # rebuild every pinned release (ONLY=1.30 rebuilds one)
//	make schemas-add MINOR=1.38  # pin the newest patch of a new minor and build it
//	make schemas-bump          # re-pin every minor to its newest patch, rebuild changes
//	go -C tools build -o ../bin/tools/ ./schemagen && (cd schemas && ../bin/tools/schemagen -list 1.37)
//	go -C tools build -o ../bin/tools/ ./schemagen && (cd schemas && ../bin/tools/schemagen -pool)
//	                           # only pool the bundles in data/ again (no download)
//	make schemas-repack        # write data/ anew from the definitions it holds (no download)
//
// Every bundle holds its release's definitions as published (with the additions above),
// each split losslessly into its structure and its descriptions (bundlefmt.Write). Every run
// ends by moving the structures and descriptions of every bundle into data/shared.pool,
// each distinct byte string once (bundlefmt.BuildPool), and writing bundles.go.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// poolFile is the shared pool of the bundles' structures and descriptions, in the output
// directory (see bundlefmt.BuildPool).
const poolFile = "shared" + bundlefmt.PoolSuffix

// defaultsMinor is the oldest minor that publishes OpenAPI v3 documents; older minors borrow
// its defaults.
const defaultsMinor = 23

func main() {
	var (
		versionsFile = flag.String("versions", "versions.txt", "file pinning one release per minor")
		outDir       = flag.String("out", "data", "directory of the bundles")
		embedFile    = flag.String("embed", "bundles.go", "Go file to write that embeds every bundle in -out (relative paths; empty: none)")
		only         = flag.String("only", "", "comma-separated minors to rebuild (default: all pinned)")
		add          = flag.String("add", "", "minor to pin at its newest patch and build, e.g. 1.38")
		bump         = flag.Bool("bump", false, "re-pin every minor to its newest patch and rebuild those that changed")
		list         = flag.String("list", "", "print the definition names of the bundle of this minor (in -out) and exit")
		poolOnly     = flag.Bool("pool", false, "build nothing: pool the bundles in -out again and write the embed file")
		repackOnly   = flag.Bool("repack", false, "fetch nothing: write the bundles in -out anew from the definitions they hold, and pool them again")
	)
	flag.Parse()
	if *poolOnly || *repackOnly {
		g := &generator{outDir: *outDir, log: os.Stderr}
		run := g.pool
		if *repackOnly {
			run = g.repack
		}
		err := run()
		if err == nil {
			err = writeEmbedList(*embedFile, *outDir)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if *list != "" {
		if err := listDefinitions(os.Stdout, filepath.Join(*outDir, *list+bundlefmt.Suffix)); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "gen: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	if n := btoi(*only != "") + btoi(*add != "") + btoi(*bump); n > 1 {
		fmt.Fprintln(os.Stderr, "gen: -only, -add and -bump exclude each other")
		os.Exit(2)
	}
	g := &generator{versionsFile: *versionsFile, outDir: *outDir, embedFile: *embedFile, log: os.Stderr}
	if err := g.run(*only, *add, *bump); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// listDefinitions prints the definition names of the bundle in file, one a line.
func listDefinitions(w io.Writer, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	p, err := readPool(filepath.Dir(file))
	if err != nil {
		return err
	}
	rd, err := bundlefmt.OpenPooled(data, p)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for _, name := range rd.Names() {
		fmt.Fprintln(w, name)
	}
	return nil
}

type generator struct {
	versionsFile, outDir, embedFile string
	log                             io.Writer
	donor                           *defaultsDonor // loaded on first need
	newest                          int            // the newest pinned minor
}

func (g *generator) run(only, add string, bump bool) error {
	pins, err := readPins(g.versionsFile)
	if err != nil {
		return err
	}
	var todo []int // minors to build
	switch {
	case add != "":
		minor, err := parseMinorArg(add)
		if err != nil {
			return err
		}
		v, err := g.newestPatch(minor, pins[minor])
		if err != nil {
			return err
		}
		fmt.Fprintf(g.log, "1.%d: newest patch is %s\n", minor, v)
		pins[minor] = v
		todo = []int{minor}
	case bump:
		for _, minor := range slices.Sorted(maps.Keys(pins)) {
			v, err := g.newestPatch(minor, pins[minor])
			if err != nil {
				return err
			}
			if v != pins[minor] {
				fmt.Fprintf(g.log, "1.%d: %s -> %s\n", minor, pins[minor], v)
				pins[minor] = v
				todo = append(todo, minor)
			} else {
				fmt.Fprintf(g.log, "1.%d: %s is current\n", minor, v)
			}
		}
		// Releases without v3 documents borrow the defaults of 1.23: rebuild them with it.
		if slices.Contains(todo, defaultsMinor) {
			for minor := range pins {
				if minor < defaultsMinor && !slices.Contains(todo, minor) {
					todo = append(todo, minor)
				}
			}
			slices.Sort(todo)
		}
	case only != "":
		for _, s := range strings.Split(only, ",") {
			minor, err := parseMinorArg(strings.TrimSpace(s))
			if err != nil {
				return err
			}
			if _, ok := pins[minor]; !ok {
				return fmt.Errorf("1.%d is not pinned in %s (use -add)", minor, g.versionsFile)
			}
			todo = append(todo, minor)
		}
	default:
		todo = slices.Sorted(maps.Keys(pins))
	}
	if donorVersion, ok := pins[defaultsMinor]; ok {
		g.donor = &defaultsDonor{Version: donorVersion}
	}
	g.newest = slices.Max(slices.Collect(maps.Keys(pins)))
	start := time.Now()
	for i, minor := range todo {
		fmt.Fprintf(g.log, "[%d/%d] %s\n", i+1, len(todo), pins[minor])
		if err := g.buildOne(minor, pins[minor]); err != nil {
			return fmt.Errorf("%s: %w", pins[minor], err)
		}
	}
	// Every bundle's structures and descriptions, those just built and the others, pooled.
	if err := g.pool(); err != nil {
		return err
	}
	// Pins change only once their bundles are built, so versions.txt never names a release
	// whose bundle is missing.
	if add != "" || bump {
		if err := writePins(g.versionsFile, pins); err != nil {
			return err
		}
	}
	if err := writeEmbedList(g.embedFile, g.outDir); err != nil {
		return err
	}
	fmt.Fprintf(g.log, "done: %d bundle(s) in %s\n", len(todo), time.Since(start).Round(time.Second))
	return nil
}

func (g *generator) buildOne(minor int, version string) error {
	t0 := time.Now()
	r, cleanup, err := fetchRelease(version, true, g.log)
	if err != nil {
		return err
	}
	defer cleanup()
	var donor *defaultsDonor
	if len(r.V3) == 0 {
		if minor >= defaultsMinor {
			return fmt.Errorf("no OpenAPI v3 documents under %s", v3Dir)
		}
		if donor, err = g.defaultsDonor(); err != nil {
			return err
		}
	}
	data, st, err := build(r, donor)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(g.outDir, 0o755); err != nil {
		return err
	}
	out := filepath.Join(g.outDir, fmt.Sprintf("1.%d%s", minor, bundlefmt.Suffix))
	if err := writeFileAtomic(out, data); err != nil {
		return err
	}
	fmt.Fprintf(g.log, "  wrote %s: %d definitions, %d defaults copied, %d v3 conflicts, %d KiB, %s\n",
		out, st.Definitions, st.Defaults, st.Conflicts, len(data)>>10, time.Since(t0).Round(100*time.Millisecond))
	st.Go.log(g.log)
	return nil
}

// pool moves the structures and descriptions of every bundle in the output directory into
// the shared pool (bundlefmt.BuildPool, newest minor first) and rewrites the bundles to read
// from it. What it writes depends only on the definitions the bundles hold: a bundle just
// built (self-contained) and one pooled before are read alike. Bundles of another format
// are refused.
func (g *generator) pool() error {
	files, readers, err := openBundles(g.outDir)
	if err != nil {
		return err
	}
	slices.Reverse(files)
	slices.Reverse(readers)
	shared, out, err := bundlefmt.BuildPool(readers)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(g.outDir, poolFile), shared); err != nil {
		return err
	}
	for i, file := range files {
		if err := writeFileAtomic(file, out[i]); err != nil {
			return err
		}
	}
	fmt.Fprintf(g.log, "pooled %d bundles: %s, %d KiB\n", len(files), poolFile, len(shared)>>10)
	return nil
}

// openBundles opens every bundle in dir, oldest minor first, with the shared pool there (if
// any), and returns their files and readers.
func openBundles(dir string) ([]string, []*bundlefmt.Reader, error) {
	minors, err := bundleMinors(dir)
	if err != nil {
		return nil, nil, err
	}
	pool, err := readPool(dir)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	var readers []*bundlefmt.Reader
	for _, m := range minors {
		file := filepath.Join(dir, m+bundlefmt.Suffix)
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, err
		}
		rd, err := bundlefmt.OpenPooled(data, pool)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		files = append(files, file)
		readers = append(readers, rd)
	}
	return files, readers, nil
}

// readPool opens the shared pool in dir; nil when there is none yet (every bundle holds its
// own chunks).
func readPool(dir string) (*bundlefmt.Pool, error) {
	data, err := os.ReadFile(filepath.Join(dir, poolFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return bundlefmt.OpenPool(data)
}

// defaultsDonor fetches, once per run, the v3 schemas that releases before 1.23 borrow.
func (g *generator) defaultsDonor() (*defaultsDonor, error) {
	if g.donor == nil {
		return nil, fmt.Errorf("1.%d is not pinned; it supplies the defaults of older releases", defaultsMinor)
	}
	if g.donor.Schemas != nil {
		return g.donor, nil
	}
	fmt.Fprintf(g.log, "  borrowing defaults from %s\n", g.donor.Version)
	r, cleanup, err := fetchRelease(g.donor.Version, false, g.log)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	schemas, _, err := v3Schemas(r.V3)
	if err != nil {
		return nil, err
	}
	if len(schemas) == 0 {
		return nil, fmt.Errorf("%s has no OpenAPI v3 schemas", g.donor.Version)
	}
	g.donor.Schemas = schemas
	g.donor.SHA256 = map[string]string{}
	for p, data := range r.V3 {
		g.donor.SHA256[r.module()+"/"+p] = sha256Hex(data)
	}
	return g.donor, nil
}

// readPins reads versions.txt: one "v1.MINOR.PATCH" a line; '#' starts a comment.
func readPins(file string) (map[int]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pins := map[int]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		minor, _, err := parseRelease(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		if prev, dup := pins[minor]; dup {
			return nil, fmt.Errorf("%s:%d: %s pins 1.%d again (already %s)", file, n, line, minor, prev)
		}
		pins[minor] = line
	}
	return pins, sc.Err()
}

func writePins(file string, pins map[int]string) error {
	var b strings.Builder
	b.WriteString("# The k8s.io/kubernetes release embedded for each minor; see schemas/doc.go.\n")
	b.WriteString("# Edited by `make schemas-add MINOR=1.X` and `make schemas-bump` (tools/schemagen).\n")
	for _, minor := range slices.Sorted(maps.Keys(pins)) {
		b.WriteString(pins[minor] + "\n")
	}
	return writeFileAtomic(file, []byte(b.String()))
}

// parseRelease parses "v1.MINOR.PATCH".
func parseRelease(v string) (minor, patch int, err error) {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if !strings.HasPrefix(v, "v") || len(parts) != 3 || parts[0] != "1" {
		return 0, 0, fmt.Errorf("%q is not a release like v1.30.14", v)
	}
	minor, err1 := strconv.Atoi(parts[1])
	patch, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || minor < 0 || patch < 0 {
		return 0, 0, fmt.Errorf("%q is not a release like v1.30.14", v)
	}
	return minor, patch, nil
}

// parseMinorArg parses "1.38" or "v1.38".
func parseMinorArg(s string) (int, error) {
	major, minor, ok := strings.Cut(strings.TrimPrefix(s, "v"), ".")
	n, err := strconv.Atoi(minor)
	if !ok || major != "1" || err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a minor like 1.38", s)
	}
	return n, nil
}

func writeFileAtomic(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".gen-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), file)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeEmbedList writes file, the Go source that embeds every bundle in dir as a []byte:
// package schemas reads a bundle where it lies in the binary (an embed.FS file can only be
// read by copying).
func writeEmbedList(file, dir string) error {
	if file == "" {
		return nil
	}
	minors, err := bundleMinors(dir)
	if err != nil {
		return err
	}
	src, err := embedListSource(minors, filepath.ToSlash(dir))
	if err != nil {
		return err
	}
	return writeFileAtomic(file, src)
}

// bundleMinors lists the minors of the bundles in dir, oldest first.
func bundleMinors(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var minors []string
	for _, e := range entries {
		if m, ok := strings.CutSuffix(e.Name(), bundlefmt.Suffix); ok && e.Type().IsRegular() {
			if _, err := parseMinorArg(m); err == nil {
				minors = append(minors, m)
			}
		}
	}
	slices.SortFunc(minors, func(a, b string) int {
		x, _ := parseMinorArg(a)
		y, _ := parseMinorArg(b)
		return x - y
	})
	return minors, nil
}

// embedListSource is the source of bundles.go for minors, their files in dir (a slash path
// relative to package schemas).
func embedListSource(minors []string, dir string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by tools/schemagen. DO NOT EDIT.\n\npackage schemas\n\nimport _ \"embed\"\n")
	for _, m := range minors {
		fmt.Fprintf(&b, "\n//go:embed %s\nvar bundle%s []byte\n", path.Join(dir, m+bundlefmt.Suffix), strings.ReplaceAll(m, ".", "_"))
	}
	fmt.Fprintf(&b, "\n// sharedPool holds the structures and descriptions of every bundle.\n//\n//go:embed %s\nvar sharedPool []byte\n", path.Join(dir, poolFile))
	b.WriteString("\n// embedded lists the bundles, oldest first.\nvar embedded = []embeddedBundle{\n")
	for _, m := range minors {
		fmt.Fprintf(&b, "\t{%q, bundle%s},\n", m, strings.ReplaceAll(m, ".", "_"))
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
