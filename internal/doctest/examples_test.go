package doctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	_ "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/golden" // -update
)

// root is the repository root, relative to this package.
const root = "../.."

// block is one fenced code block of a Markdown file.
type block struct {
	line      int    // of the opening fence, 1-based
	info      string // the info string's first word: sh, yaml, text...
	directive string // "file", "output", "not-run", "use" or ""
	arg       string // the directive's argument
	body      string
}

var (
	fenceRE     = regexp.MustCompile("^( {0,3})(```+|~~~+)\\s*([^`\\s]*)")
	directiveRE = regexp.MustCompile(`^\s*<!--\s*(file|output|not-run)\s*(?::\s*(.*?))?\s*-->\s*$`)
	exitRE      = regexp.MustCompile(`#.*\bexit (\d+)\b`)
	useRE       = regexp.MustCompile(`^\s*<!--\s*use:\s*(\S+)\s+(\S+)\s+as\s+(\S+)\s*-->\s*$`)
)

// parseBlocks returns the fenced blocks of a Markdown file, each with the directive on the
// line before it.
func parseBlocks(name, text string) ([]block, error) {
	lines := strings.Split(text, "\n")
	var blocks []block
	for i := 0; i < len(lines); i++ {
		if u := useRE.FindStringSubmatch(lines[i]); u != nil {
			blocks = append(blocks, block{line: i + 1, directive: "use", arg: u[3], body: u[1] + " " + u[2]})
			continue
		}
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		b := block{line: i + 1, info: m[3]}
		if i > 0 {
			if d := directiveRE.FindStringSubmatch(lines[i-1]); d != nil {
				b.directive, b.arg = d[1], d[2]
			}
		}
		indent, fence := len(m[1]), m[2]
		var body []string
		for i++; ; i++ {
			if i == len(lines) {
				return nil, fmt.Errorf("%s:%d: unclosed code block", name, b.line)
			}
			l := lines[i]
			if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				break
			}
			for range indent {
				l = strings.TrimPrefix(l, " ")
			}
			body = append(body, l)
		}
		b.body = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, b)
	}
	return blocks, nil
}

func isShell(info string) bool {
	return slices.Contains([]string{"sh", "bash", "shell", "console"}, info)
}

// docStats counts what a script runs.
type docStats struct{ blocks, commands, outputs, notRun int }

// script turns the blocks of one Markdown file into a testscript archive;
// page returns the blocks of another file, for a use directive.
func script(name string, blocks []block, page func(string) ([]block, error)) (*txtar.Archive, docStats, error) {
	var st docStats
	a := &txtar.Archive{Comment: []byte("# generated from " + name + " by TestDocExamples\n")}
	var cmds strings.Builder
	add := func(file, content string) { a.Files = append(a.Files, txtar.File{Name: file, Data: []byte(content)}) }
	lastShell := -1 // index of the last shell block run, for an output block
	for i, b := range blocks {
		where := fmt.Sprintf("%s:%d", name, b.line)
		switch {
		case b.directive == "use":
			from, src, _ := strings.Cut(b.body, " ")
			if filepath.IsAbs(b.arg) || strings.Contains(b.arg, "..") {
				return nil, st, fmt.Errorf("%s: <!-- use: PAGE NAME as NAME --> needs a relative name, got %q", where, b.arg)
			}
			other, err := page(from)
			if err != nil {
				return nil, st, fmt.Errorf("%s: %w", where, err)
			}
			found := slices.IndexFunc(other, func(o block) bool { return o.directive == "file" && o.arg == src })
			if found < 0 {
				return nil, st, fmt.Errorf("%s: %s has no <!-- file: %s --> block", where, from, src)
			}
			file := fmt.Sprintf(".doctest/file%d", i)
			add(file, other[found].body)
			fmt.Fprintf(&cmds, "# %s\n", where)
			if dir := filepath.Dir(b.arg); dir != "." {
				fmt.Fprintf(&cmds, "mkdir %s\n", dir)
			}
			fmt.Fprintf(&cmds, "cp %s %s\n", file, b.arg)
		case b.directive == "file":
			if b.arg == "" || filepath.IsAbs(b.arg) || strings.Contains(b.arg, "..") {
				return nil, st, fmt.Errorf("%s: <!-- file: NAME --> needs a relative name, got %q", where, b.arg)
			}
			src := fmt.Sprintf(".doctest/file%d", i)
			add(src, b.body)
			fmt.Fprintf(&cmds, "# %s\n", where)
			if dir := filepath.Dir(b.arg); dir != "." {
				fmt.Fprintf(&cmds, "mkdir %s\n", dir)
			}
			fmt.Fprintf(&cmds, "cp %s %s\n", src, b.arg)
		case b.directive == "output":
			if lastShell < 0 || lastShell != i-1 {
				return nil, st, fmt.Errorf("%s: <!-- output --> must follow a shell block that runs", where)
			}
			want := fmt.Sprintf(".doctest/want%d", i)
			add(want, b.body)
			fmt.Fprintf(&cmds, "doccmp %s %s\n", want, where)
			st.outputs++
		case b.directive == "not-run":
			if !isShell(b.info) {
				return nil, st, fmt.Errorf("%s: <!-- not-run --> is for shell blocks", where)
			}
			if strings.TrimSpace(b.arg) == "" {
				return nil, st, fmt.Errorf("%s: <!-- not-run: REASON --> needs its reason", where)
			}
			st.notRun++
		case isShell(b.info):
			sh, n, err := shellScript(name, b)
			if err != nil {
				return nil, st, err
			}
			file := fmt.Sprintf(".doctest/block%d.sh", i)
			add(file, sh)
			fmt.Fprintf(&cmds, "# %s\nexec bash %s\n", where, file)
			st.blocks++
			st.commands += n
			lastShell = i
		}
	}
	a.Comment = append(a.Comment, cmds.String()...)
	return a, st, nil
}

// shellScript is the bash script of a shell block: every command's output goes to standard
// output, and its exit status is checked against the one its comment names (default 0).
func shellScript(name string, b block) (string, int, error) {
	var sh strings.Builder
	sh.WriteString("exec 2>&1\n")
	n := 0
	lines := strings.Split(strings.TrimRight(b.body, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		start := i
		cmd := lines[i]
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			cmd += "\n" + lines[i]
		}
		if strings.TrimSpace(cmd) == "" || strings.HasPrefix(strings.TrimSpace(cmd), "#") {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(cmd), "$ ") {
			return "", 0, fmt.Errorf("%s:%d: write commands without a \"$ \" prompt (output goes in a <!-- output --> block)", name, b.line+1+start)
		}
		want := 0
		if m := exitRE.FindStringSubmatch(cmd[strings.LastIndex(cmd, "\n")+1:]); m != nil {
			want, _ = strconv.Atoi(m[1])
		}
		n++
		where := fmt.Sprintf("%s:%d", name, b.line+1+start)
		fmt.Fprintf(&sh, "%s\n__rc=$?\nif [ $__rc -ne %d ]; then printf 'doctest: %%s: exit status %%s, want %d: %%s\\n' %s \"$__rc\" %s >&2; exit 1; fi\n",
			cmd, want, want, shellQuote(where), shellQuote(firstLine(cmd)))
	}
	return sh.String(), n, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// docFiles are the Markdown files whose examples run: README.md and docs/, not the
// generated command reference (docs/cli/, whose examples are cobra's Example texts).
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel == "docs/cli" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".md") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// pageBlocks returns the fenced blocks (and use directives) of a Markdown
// file of the repository.
func pageBlocks(name string) ([]block, error) {
	text, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		return nil, err
	}
	return parseBlocks(name, string(text))
}

// TestDocExamples runs every shell example of README.md and docs/ that is not marked
// not-run (see the package documentation), against the binaries of this module.
func TestDocExamples(t *testing.T) {
	bin := buildBinaries(t)
	dir := t.TempDir()
	var total docStats
	var scripts []string
	for _, name := range docFiles(t) {
		blocks, err := pageBlocks(name)
		if err != nil {
			t.Fatal(err)
		}
		a, st, err := script(name, blocks, pageBlocks)
		if err != nil {
			t.Fatal(err)
		}
		total.blocks += st.blocks
		total.commands += st.commands
		total.outputs += st.outputs
		total.notRun += st.notRun
		if st.blocks == 0 {
			continue
		}
		file := filepath.Join(dir, strings.NewReplacer("/", "-", ".md", "").Replace(name)+".txtar")
		if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, file)
	}
	t.Logf("doc examples: %d shell blocks run (%d commands, %d outputs compared), %d marked not-run, in %d files",
		total.blocks, total.commands, total.outputs, total.notRun, len(scripts))
	if total.blocks == 0 {
		t.Fatal("no doc example found")
	}
	testscript.Run(t, testscript.Params{
		Files: scripts,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+"/usr/local/bin:/usr/bin:/bin")
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"doccmp": doccmp,
		},
	})
}

// doccmp WANT WHERE compares the last command's standard output with the file WANT, in
// which a line "..." stands for any number of lines.
func doccmp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: doccmp WANT WHERE")
	}
	got := strings.Split(strings.TrimRight(ts.ReadFile("stdout"), "\n"), "\n")
	want := strings.Split(strings.TrimRight(ts.ReadFile(args[0]), "\n"), "\n")
	if msg := matchLines(want, got); msg != "" {
		// Indented: testscript folds log lines that start with "#".
		ts.Fatalf("%s: the output differs from the documented one: %s\nfull output:\n  %s", args[1], msg, strings.Join(got, "\n  "))
	}
}

// matchLines reports how got fails to match want ("" when it matches); a want line "..."
// matches any run of lines, possibly empty.
func matchLines(want, got []string) string {
	var segs [][]string
	cur := []string{}
	for _, w := range want {
		if strings.TrimSpace(w) == "..." {
			segs = append(segs, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, w)
	}
	segs = append(segs, cur)
	pos := 0
	for i, seg := range segs {
		switch {
		case i == 0: // anchored at the start
			if !hasAt(got, pos, seg) {
				return fmt.Sprintf("line %d: want %q, got %q", firstDiff(got, 0, seg)+1, at(seg, firstDiff(got, 0, seg)), at(got, firstDiff(got, 0, seg)))
			}
			pos = len(seg)
			if len(segs) == 1 && pos != len(got) {
				return fmt.Sprintf("line %d: want the end, got %q", pos+1, got[pos])
			}
		case i == len(segs)-1: // anchored at the end
			start := len(got) - len(seg)
			if start < pos || !hasAt(got, start, seg) {
				return fmt.Sprintf("the output does not end with %q", strings.Join(seg, "\n"))
			}
		default:
			found := -1
			for p := pos; p+len(seg) <= len(got); p++ {
				if hasAt(got, p, seg) {
					found = p
					break
				}
			}
			if found < 0 {
				return fmt.Sprintf("after line %d, no lines %q", pos, strings.Join(seg, "\n"))
			}
			pos = found + len(seg)
		}
	}
	return ""
}

func hasAt(got []string, pos int, seg []string) bool {
	return pos+len(seg) <= len(got) && slices.Equal(got[pos:pos+len(seg)], seg)
}

func firstDiff(got []string, pos int, seg []string) int {
	for i, s := range seg {
		if pos+i >= len(got) || got[pos+i] != s {
			return i
		}
	}
	return len(seg)
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(end)"
}

// buildBinaries builds the CLI and its companions into a temporary directory, once.
func buildBinaries(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	build := exec.CommandContext(t.Context(), "go", "build", "-o", dir+string(filepath.Separator), root, root+"/cmd/...")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the binaries: %v\n%s", err, out)
	}
	return dir
}
