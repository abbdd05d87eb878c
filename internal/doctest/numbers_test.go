package doctest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// compactJSONSizes compiles this repository's templates as build does and
// returns the compact-JSON size of each output file (relative to the
// repository root), as the size guard measures it.
func compactJSONSizes(t *testing.T) map[string]int {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := project.Open(abs, project.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := proj.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{}
	for _, o := range outs {
		if len(o.JSONSizes) != 1 {
			continue
		}
		for _, path := range o.Template.Outputs {
			rel, err := filepath.Rel(abs, path)
			if err != nil {
				t.Fatal(err)
			}
			sizes[filepath.ToSlash(rel)] = int(o.JSONSizes[0])
		}
	}
	return sizes
}

// comma writes n with thousands separators, as the docs do.
func comma(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestDocNumbers: the numbers the user pages give about this repository's
// own outputs (sizes of the Dask CRDs, the corpus of custom resources) are
// today's, so a change of the templates or the bundles that moves one fails
// here instead of leaving the page stale.
func TestDocNumbers(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(root, "docs", "validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(page)), " ")
	sizes := compactJSONSizes(t)
	for _, tc := range []struct{ file, want string }{
		{"dist/daskjob.yaml", "daskjob: %s bytes of JSON"},
		{"operator/crds/daskjob.yaml", "daskjob %s,"},
		{"operator/crds/daskcluster.yaml", "daskcluster %s,"},
		{"operator/crds/daskworkergroup.yaml", "daskworkergroup %s bytes"},
	} {
		size, ok := sizes[tc.file]
		if !ok {
			t.Fatalf("no template compiles to %s (outputs: %v)", tc.file, sizes)
		}
		want := fmt.Sprintf(tc.want, comma(size))
		if !strings.Contains(text, want) {
			t.Errorf("docs/validation.md: want %q (%s today)", want, tc.file)
		}
	}

	cases, err := filepath.Glob(filepath.Join(root, "testdata", "resources", "cases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	page, err = os.ReadFile(filepath.Join(root, "docs", "validating.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`validate's on all (\d+)`).FindSubmatch(page)
	if m == nil || string(m[1]) != fmt.Sprint(len(cases)) {
		t.Errorf("docs/validating.md: want \"validate's on all %d\" (the corpus holds %d cases), found %q", len(cases), len(cases), m)
	}
}

// helmSecretLimit is the most a Secret's data may hold (the apiserver's
// MaxSecretSize), which bounds a Helm release.
const helmSecretLimit = 1 << 20

// helmChartShare is the share of a Helm release Secret (in whole percent,
// rounded down) that the files of charts/dask-operator alone take, with
// crds/ replaced by the files of crdsDir when it is not "": Helm stores a
// release as the base64 of its JSON gzipped at the best compression, and
// the JSON holds every file of the chart as {"name", "data"} with the data
// in base64. The rendered manifest, values and metadata come on top, so a
// release takes at least this.
func helmChartShare(t *testing.T, crdsDir string) int {
	t.Helper()
	type file struct {
		Name string `json:"name"`
		Data []byte `json:"data"`
	}
	var files []file
	chart := filepath.Join(root, "charts", "dask-operator")
	err := filepath.WalkDir(chart, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(chart, path)
		rel = filepath.ToSlash(rel)
		if crdsDir != "" && strings.HasPrefix(rel, "crds/") {
			path = filepath.Join(root, crdsDir, filepath.Base(rel))
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, file{rel, data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(map[string]any{"chart": map[string]any{"files": files}})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(js); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodedLen(gz.Len()) * 100 / helmSecretLimit
}

// TestDocHelmShare: docs/validation.md's share of Helm's release Secret that
// the chart would take with Kubernetes' descriptions kept (operator/crds/)
// and as it is (dist/'s CRDs), both today's.
func TestDocHelmShare(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(root, "docs", "validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(page)), " ")
	with, fitted := helmChartShare(t, filepath.Join("operator", "crds")), helmChartShare(t, "")
	want := fmt.Sprintf("the chart's files alone would fill %d%% of it with every description kept, %d%% as fitted", with, fitted)
	if !strings.Contains(text, want) {
		t.Errorf("docs/validation.md: want %q", want)
	}
}

// TestOperatorPageCounts: the breaking changes docs/operator.md counts for
// a switch from older CRDs (this repository's templates compiled for 1.25,
// the oldest minor they compile for) are those of
// testdata/diff-dask/1.25-1.37.txt, the report cmd's TestDiffDask keeps
// current, so neither drifts from the other.
func TestOperatorPageCounts(t *testing.T) {
	report, err := os.ReadFile(filepath.Join(root, "testdata", "diff-dask", "1.25-1.37.txt"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^  (\w+)s\.kubernetes\.dask\.org v1: (\d+) breaking`).FindAllSubmatch(report, -1) {
		counts[string(m[1])] = string(m[2])
	}
	for _, kind := range []string{"daskcluster", "daskjob", "daskworkergroup"} {
		if counts[kind] == "" {
			t.Fatalf("testdata/diff-dask/1.25-1.37.txt has no breaking count for %s (found %v)", kind, counts)
		}
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "operator.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(page)), " ")
	want := fmt.Sprintf("it counts %s for daskcluster, %s for daskjob, %s for daskworkergroup", counts["daskcluster"], counts["daskjob"], counts["daskworkergroup"])
	if !strings.Contains(text, want) {
		t.Errorf("docs/operator.md: want %q (testdata/diff-dask/1.25-1.37.txt today)", want)
	}
}
