package resolver_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/emit"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

func loadCase(t *testing.T, dir string) (golden.CompileCase, resolver.Options) {
	t.Helper()
	co, err := golden.ReadCompileCase(dir)
	require.NoError(t, err)
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	opts := resolver.Options{
		KubeVersion:          co.K8sVersion,
		RemoveDescriptions:   co.RemoveDescriptions,
		MaxDescriptionLength: co.MaxDescriptionLength,
		Recursion:            co.Recursion,
		AllowOutsideRoot:     co.AllowOutsideRoot,
		WorkDir:              abs,
		Root:                 abs,
	}
	if co.Budget != "" {
		b, err := docread.ParseSize(co.Budget)
		require.NoError(t, err)
		opts.Budget = b
	}
	if co.FitDescriptions != "" {
		f, err := docread.ParseSize(co.FitDescriptions)
		require.NoError(t, err)
		opts.FitDescriptions = f
	}
	if co.Root != "" {
		opts.Root = filepath.Join(abs, co.Root)
	}
	if co.Patch != "" {
		src, err := os.ReadFile(filepath.Join(dir, co.Patch))
		require.NoError(t, err)
		p, err := resolver.ParsePatch(co.Patch, src)
		if err != nil {
			golden.Check(t, filepath.Join(dir, "want.err"), []byte(err.Error()+"\n"))
			return co, resolver.Options{}
		}
		opts.Patch = p
	}
	return co, opts
}

// TestCompileGolden compiles every testdata/compile/<case>/ and compares
// with want.yaml (and want.warnings), or want.err for a failing case.
// Every want.yaml must also pass the apiserver's own CRD validation.
func TestCompileGolden(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/compile/*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			co, opts := loadCase(t, dir)
			if opts.WorkDir == "" {
				return // the patch itself failed, checked above
			}
			c, err := resolver.New(opts)
			if err != nil {
				golden.Check(t, filepath.Join(dir, "want.err"), []byte(err.Error()+"\n"))
				return
			}
			src, err := os.ReadFile(filepath.Join(dir, co.Template))
			require.NoError(t, err)
			res, err := c.Compile(co.Template, src)
			// The same through Parse and CompileSource, parsed within the
			// compile's budget (the parse is reused) and within another
			// (parsed again).
			for _, budget := range []resolver.Size{opts.Budget, 2 * max(opts.Budget, resolver.DefaultBudget)} {
				cs, newErr := resolver.New(opts)
				require.NoError(t, newErr)
				viaSource, errSource := resolver.CompileSource(cs, resolver.Parse(co.Template, src, budget))
				require.Equal(t, fmt.Sprint(err), fmt.Sprint(errSource), "CompileSource, parsed within %d", budget)
				if err == nil {
					want, _ := res.YAML()
					got, _ := viaSource.YAML()
					require.Equal(t, string(want), string(got), "CompileSource, parsed within %d", budget)
					require.Equal(t, fmt.Sprint(res.Warnings), fmt.Sprint(viaSource.Warnings))
				}
			}
			if err != nil {
				var list resolver.ErrorList
				require.True(t, errors.As(err, &list), "errors come back as an ErrorList: %T", err)
				for _, e := range list {
					require.NotEmpty(t, e.Pos.File, "every error names its file: %v", e)
				}
				golden.Check(t, filepath.Join(dir, "want.err"), []byte(err.Error()+"\n"))
				golden.Check(t, filepath.Join(dir, "want.yaml"), nil)
				return
			}
			got, err := res.YAML()
			require.NoError(t, err)
			golden.Check(t, filepath.Join(dir, "want.err"), nil)
			golden.Check(t, filepath.Join(dir, "want.yaml"), got)
			var warnings []byte
			for _, w := range res.Warnings {
				warnings = fmt.Appendf(warnings, "%s\n", w)
			}
			golden.Check(t, filepath.Join(dir, "want.warnings"), warnings)
			if len(warnings) == 0 && !golden.Updating() {
				golden.Check(t, filepath.Join(dir, "want.warnings"), nil)
			}

			// Deterministic: a second compile, with a fresh compiler, gives
			// the same bytes.
			c2, err := resolver.New(opts)
			require.NoError(t, err)
			res2, err := c2.Compile(co.Template, src)
			require.NoError(t, err)
			again, err := res2.YAML()
			require.NoError(t, err)
			require.True(t, bytes.Equal(got, again), "output is not deterministic")
			var streamed bytes.Buffer
			require.NoError(t, res2.WriteYAML(&streamed))
			require.Equal(t, string(got), streamed.String(), "WriteYAML and YAML differ")
			for _, d := range res.Documents {
				require.Empty(t, refsLeft(d.Object(), ""), "$ref left in the output")
			}

			checkWithOracle(t, got, res.Documents, co.K8sVersion)
		})
	}
}

// refsLeft lists the JSON pointers of $ref keywords (not properties that
// happen to be named $ref) in v.
func refsLeft(v any, ptr string) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if k == "$ref" && !strings.HasSuffix(ptr, "/properties") {
				out = append(out, ptr+"/$ref")
			}
			out = append(out, refsLeft(x, ptr+"/"+k)...)
		}
	case []any:
		for i, x := range t {
			out = append(out, refsLeft(x, fmt.Sprintf("%s/%d", ptr, i))...)
		}
	}
	return out
}

// checkWithOracle runs the apiserver's validation on compiled CRDs.
func checkWithOracle(t *testing.T, raw []byte, docs []resolver.Document, k8sVersion string) {
	t.Helper()
	require.NotEmpty(t, docs)
	for _, d := range docs {
		// Round-trip through the YAML we print, not the in-memory value.
		var obj map[string]any
		one, err := emit.YAML(d.Object())
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(one, &obj))
		crd, err := oracle.Decode(obj)
		require.NoError(t, err, "strict decode of %s", d.Name)
		v := k8sVersion
		if v == "" {
			v = "1.30"
		}
		if errs := crd.ValidateFor(t.Context(), v); len(errs) > 0 {
			var lines []string
			for _, e := range errs {
				lines = append(lines, e.Error())
			}
			t.Fatalf("the apiserver rejects %s:\n%s", d.Name, strings.Join(lines, "\n"))
		}
		if !slices.Contains([]string{"1.12", "1.13", "1.14"}, v) {
			// Before 1.15 schemas have no structural rules, nor the
			// extensions an int-or-string needs for one (ValidateFor).
			require.NoError(t, crd.Structural())
		}
		formats, err := crd.UnrecognizedFormats(v)
		require.NoError(t, err)
		require.Empty(t, formats, "unrecognized formats")
	}
	_ = raw
	_ = slices.Sort[[]string]
}

// TestCompilerReuse: one Compiler compiling many templates (as build does)
// gives each the same bytes and warnings as a fresh Compiler, whatever
// was compiled before: the shared cache never leaks one template's changes
// into another's output.
func TestCompilerReuse(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/compile/*")
	require.NoError(t, err)
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "want.yaml")); err != nil {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			co, opts := loadCase(t, dir)
			src, err := os.ReadFile(filepath.Join(dir, co.Template))
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join(dir, "want.yaml"))
			require.NoError(t, err)
			c, err := resolver.New(opts)
			require.NoError(t, err)
			// Warm the cache with other users of the same definitions (the
			// patch of a case would not apply to them).
			if co.Patch == "" {
				// A v1 template: minors serving only v1beta1 refuse it, after
				// resolving its refs (what warms the cache).
				_, err = c.Compile("fidelity.yaml", []byte(fidelityTemplate))
				if err == nil || !strings.Contains(err.Error(), "serves only apiextensions.k8s.io/v1beta1") {
					require.NoError(t, err)
				}
			}
			for range 2 {
				res, err := c.Compile(co.Template, src)
				require.NoError(t, err)
				got, err := res.YAML()
				require.NoError(t, err)
				require.Equal(t, string(want), string(got))
				var warnings []byte
				for _, w := range res.Warnings {
					warnings = fmt.Appendf(warnings, "%s\n", w)
				}
				wantWarnings, _ := os.ReadFile(filepath.Join(dir, "want.warnings"))
				require.Equal(t, string(wantWarnings), string(warnings))
			}
		})
	}
}

// TestResultFilesWithSharedCache: Result.Files lists every file a template
// reaches, also when a Compiler had resolved them for an earlier template.
func TestResultFilesWithSharedCache(t *testing.T) {
	dir, err := filepath.Abs("../testdata/compile/ref-relative-file")
	require.NoError(t, err)
	c, err := resolver.New(resolver.Options{KubeVersion: "1.30", WorkDir: dir, Root: dir})
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(dir, "templates/template.yaml"))
	require.NoError(t, err)
	want := []string{
		filepath.Join(dir, "schemas/extra.json"),
		filepath.Join(dir, "templates/shared.yaml"),
		filepath.Join(dir, "templates/template.yaml"),
	}
	for range 2 {
		res, err := c.Compile("templates/template.yaml", src)
		require.NoError(t, err)
		require.Equal(t, want, res.Files)
	}
	// A second template reaching the same files through the cache.
	other := strings.Replace(string(src), "widgets.example.com", "others.example.com", 1)
	res, err := c.Compile("templates/other.yaml", []byte(other))
	require.NoError(t, err)
	require.Equal(t, []string{want[0], filepath.Join(dir, "templates/other.yaml"), want[1]}, res.Files)
}
