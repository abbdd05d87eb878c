package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const module = "k8s.io/kubernetes"

// maxGap is how many consecutive unserved patch versions end a probe for the newest patch.
const maxGap = 5

// workspace is an empty temporary module with a private module cache, so downloads never
// touch the user's cache and everything is deleted afterwards.
type workspace struct {
	dir string
}

func newWorkspace() (*workspace, error) {
	dir, err := os.MkdirTemp("", "schemas-gen-*")
	if err != nil {
		return nil, err
	}
	w := &workspace{dir: dir}
	mod := filepath.Join(dir, "mod")
	if err := os.Mkdir(mod, 0o755); err != nil {
		w.close()
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module schemasgen\n"), 0o644); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *workspace) close() { _ = os.RemoveAll(w.dir) }

// goCmd runs the go command in the workspace module and returns its stdout.
func (w *workspace) goCmd(args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join(w.dir, "mod")
	cmd.Env = append(os.Environ(),
		"GOMODCACHE="+filepath.Join(w.dir, "modcache"),
		"GOFLAGS=-modcacherw",
		"GOWORK=off",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &goError{args: args, err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.Bytes(), nil
}

type goError struct {
	args   []string
	err    error
	stderr string
}

func (e *goError) Error() string {
	return fmt.Sprintf("go %s: %v: %s", strings.Join(e.args, " "), e.err, e.stderr)
}

func (e *goError) Unwrap() error { return e.err }

// notFound reports whether the go command failed because the proxy does not serve the
// version (as opposed to a network or local failure, which must not end a probe silently).
func (e *goError) notFound() bool {
	for _, s := range []string{"not available", "not found", "unknown revision", "invalid version", "404", "410"} {
		if strings.Contains(e.stderr, s) {
			return true
		}
	}
	return false
}

// fetchRelease downloads one k8s.io/kubernetes release and reads its OpenAPI documents, then
// downloads the Go modules its definitions come from (withGo). The downloads stay until the
// returned cleanup runs.
func fetchRelease(version string, withGo bool, log io.Writer) (_ *release, cleanup func(), err error) {
	w, err := newWorkspace()
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	r, err := w.fetchOpenAPI(version, log)
	if err != nil {
		return nil, nil, err
	}
	if withGo {
		if r.Go, err = w.fetchGo(r, log); err != nil {
			return nil, nil, err
		}
	}
	return r, w.close, nil
}

// fetchGo downloads, at the versions matching the release, the Go modules the swagger
// definitions name: io.k8s.api.* -> k8s.io/api, io.k8s.apimachinery.* -> k8s.io/apimachinery,
// ... (see downloadStaging for the versions).
func (w *workspace) fetchGo(r *release, log io.Writer) (*goSource, error) {
	paths, err := definitionModules(r.Swagger)
	if err != nil {
		return nil, err
	}
	minor, patch, err := parseRelease(r.Version)
	if err != nil {
		return nil, err
	}
	var mods []goModule
	t0 := time.Now()
	var total int64
	for _, path := range paths {
		// Before 1.15 the staging modules have no go.mod of their own: their source is part
		// of the k8s.io/kubernetes module, the release itself.
		if dir := filepath.Join(r.dir, "staging", "src", filepath.FromSlash(path)); r.dir != "" && isDir(dir) && !isFile(filepath.Join(dir, "go.mod")) {
			mods = append(mods, goModule{Path: path, Version: r.Version, Sum: r.ModuleSum, Dir: dir,
				Label: r.module() + "/staging/src/" + path})
			continue
		}
		info, err := w.downloadStaging(path, minor, patch)
		if err != nil {
			return nil, fmt.Errorf("the Go source of the definitions: %w", err)
		}
		if info.Version != fmt.Sprintf("v0.%d.%d", minor, patch) {
			fmt.Fprintf(log, "  %s: the proxy serves no v0.%d.%d; reading %s (patch releases keep the API)\n", path, minor, patch, info.Version)
		}
		if st, err := os.Stat(info.Zip); err == nil {
			total += st.Size()
		}
		mods = append(mods, goModule{Path: path, Version: info.Version, Sum: info.Sum, Dir: info.Dir})
	}
	var list []string
	for _, m := range mods {
		list = append(list, m.label())
	}
	fmt.Fprintf(log, "  Go source: %s (%d MiB downloaded in %s)\n", strings.Join(list, " "), total>>20, time.Since(t0).Round(100*time.Millisecond))
	return newGoSource(mods), nil
}

// downloadStaging downloads a Kubernetes staging module at the version of release 1.minor.patch.
// Kubernetes tags them v0.MINOR.PATCH, older releases also kubernetes-1.MINOR.PATCH; the module
// proxy serves neither for some patches (k8s.io/api v0.18.20), and then the newest served
// patch below is taken, as hack/fidelity.sh does: patch releases do not change the API types.
func (w *workspace) downloadStaging(path string, minor, patch int) (*downloadInfo, error) {
	tries := []string{fmt.Sprintf("v0.%d.%d", minor, patch), fmt.Sprintf("kubernetes-1.%d.%d", minor, patch)}
	for p := patch - 1; p >= 0 && p >= patch-maxStagingGap; p-- {
		tries = append(tries, fmt.Sprintf("v0.%d.%d", minor, p))
	}
	var first error
	for _, v := range tries {
		info, err := w.download(path, v)
		var ge *goError
		if err == nil || !errors.As(err, &ge) || !ge.notFound() {
			return info, err
		}
		if first == nil {
			first = err
		}
	}
	return nil, fmt.Errorf("%w (nor any of %s)", first, strings.Join(tries[1:], ", "))
}

// maxStagingGap is how many patches below a release downloadStaging tries.
const maxStagingGap = 8

type downloadInfo struct {
	Version, Dir, Sum, Zip, Error string
}

func (w *workspace) download(path, version string) (*downloadInfo, error) {
	out, err := w.goCmd("mod", "download", "-json", path+"@"+version)
	var info downloadInfo
	if jerr := json.Unmarshal(out, &info); err != nil {
		// go mod download -json reports why on stdout.
		var ge *goError
		if jerr == nil && info.Error != "" && errors.As(err, &ge) && ge.stderr == "" {
			ge.stderr = info.Error
		}
		return nil, err
	} else if jerr != nil {
		return nil, fmt.Errorf("go mod download: %w", jerr)
	}
	if info.Error != "" || info.Dir == "" {
		return nil, fmt.Errorf("go mod download %s@%s: %s", path, version, info.Error)
	}
	return &info, nil
}

// definitionModules lists the Go modules the definitions of a swagger document are declared
// in: io.k8s.<module>.* -> k8s.io/<module>. Aliases (a definition that is only a $ref, such
// as 1.12's deprecated io.k8s.kubernetes.pkg.api.v1.*) have no declaration to read.
func definitionModules(swagger []byte) ([]string, error) {
	var doc struct {
		Definitions map[string]map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(swagger, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", swaggerPath, err)
	}
	set := map[string]bool{}
	for n, d := range doc.Definitions {
		if _, ref := d["$ref"]; ref {
			if _, props := d["properties"]; !props {
				continue
			}
		}
		rest, ok := strings.CutPrefix(n, "io.k8s.")
		seg, _, _ := strings.Cut(rest, ".")
		if !ok || seg == "" {
			return nil, fmt.Errorf("%s: definition %s is not under io.k8s: no Go module to read it from", swaggerPath, n)
		}
		set["k8s.io/"+seg] = true
	}
	return slices.Sorted(maps.Keys(set)), nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// fetchOpenAPI downloads one k8s.io/kubernetes release and reads its OpenAPI documents.
func (w *workspace) fetchOpenAPI(version string, log io.Writer) (*release, error) {
	t0 := time.Now()
	info, err := w.download(module, version)
	if err != nil {
		return nil, err
	}
	var zipSize int64
	if st, err := os.Stat(info.Zip); err == nil {
		zipSize = st.Size()
	}
	fmt.Fprintf(log, "  downloaded %s@%s (%d MiB) in %s\n", module, version, zipSize>>20, time.Since(t0).Round(100*time.Millisecond))

	r := &release{Version: version, ModuleSum: info.Sum, V3: map[string][]byte{}, dir: info.Dir}
	if r.Swagger, err = os.ReadFile(filepath.Join(info.Dir, filepath.FromSlash(swaggerPath))); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(info.Dir, filepath.FromSlash(v3Dir)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		p := v3Dir + "/" + e.Name()
		if e.IsDir() || !isV3Doc(p) {
			continue
		}
		if r.V3[p], err = os.ReadFile(filepath.Join(info.Dir, filepath.FromSlash(p))); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// newestPatch finds the newest patch release of 1.minor that the module proxy serves. The
// proxy's version list is incomplete and some patches are missing from it (v1.16.11 and
// v1.16.14 are, v1.16.15 is not), so it starts at the newest listed patch (or .0) and probes
// upward until maxGap consecutive patches are not served.
// A pinned release (floor, may be empty) is a known lower bound that shortens the probe.
func (g *generator) newestPatch(minor int, floor string) (string, error) {
	w, err := newWorkspace()
	if err != nil {
		return "", err
	}
	defer w.close()
	prefix := fmt.Sprintf("v1.%d.", minor)
	patch := 0
	if m, p, err := parseRelease(floor); err == nil && m == minor {
		patch = p
	}
	out, err := w.goCmd("list", "-m", "-versions", module)
	if err != nil {
		return "", err
	}
	for _, v := range strings.Fields(string(out))[1:] {
		// parseRelease rejects pre-releases such as v1.38.0-beta.0.
		if _, p, err := parseRelease(v); err == nil && strings.HasPrefix(v, prefix) && p > patch {
			patch = p
		}
	}
	exists := func(patch int) (bool, error) {
		_, err := w.goCmd("list", "-m", "-json", fmt.Sprintf("%s@%s%d", module, prefix, patch))
		var ge *goError
		switch {
		case err == nil:
			return true, nil
		case errors.As(err, &ge) && ge.notFound():
			return false, nil
		default:
			return false, err
		}
	}
	ok, err := exists(patch)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("the module proxy serves no %s%d", prefix, patch)
	}
	for next, misses := patch+1, 0; misses < maxGap; next++ {
		ok, err := exists(next)
		if err != nil {
			return "", err
		}
		if ok {
			patch, misses = next, 0
		} else {
			misses++
		}
	}
	return fmt.Sprintf("%s%d", prefix, patch), nil
}
