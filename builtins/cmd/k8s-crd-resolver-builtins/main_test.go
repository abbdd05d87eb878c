package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestServeHello: with --hello, the first line is the hello, naming the
// version --version prints (the k8s.io/kubernetes go.mod requires), and
// then each request is answered in order, as without it.
func TestServeHello(t *testing.T) {
	var version bytes.Buffer
	if code := run([]string{"--version"}, strings.NewReader(""), &version, os.Stderr); code != 0 {
		t.Fatalf("--version: exit %d", code)
	}
	want := strings.TrimSpace(version.String())
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^(?:require )?\s*k8s\.io/kubernetes ` + regexp.QuoteMeta(want) + `$`).Match(gomod) {
		t.Fatalf("--version printed %q, not the k8s.io/kubernetes go.mod requires", want)
	}

	requests := `{"object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ok"}}}
{"object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Not_A_Name"}}}
{"object": {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}}}
`
	var out, stderr bytes.Buffer
	if code := run([]string{"--serve", "--hello"}, strings.NewReader(requests), &out, &stderr); code != 0 {
		t.Fatalf("--serve --hello: exit %d: %s", code, stderr.String())
	}
	lines := bufio.NewScanner(&out)
	lines.Buffer(nil, 1<<20)
	var got []string
	for lines.Scan() {
		got = append(got, lines.Text())
	}
	if len(got) != 4 {
		t.Fatalf("%d lines, want the hello and three answers:\n%s", len(got), strings.Join(got, "\n"))
	}
	var h struct{ Version string }
	if err := json.Unmarshal([]byte(got[0]), &h); err != nil || h.Version != want {
		t.Errorf("first line %s (%v), want {\"version\":%q}", got[0], err, want)
	}
	type answer struct {
		Served, Valid bool
		Reason        string
	}
	wantAnswers := []answer{{true, true, ""}, {true, false, "Invalid"}, {false, false, ""}}
	for i, line := range got[1:] {
		var a answer
		if err := json.Unmarshal([]byte(line), &a); err != nil || a != wantAnswers[i] {
			t.Errorf("answer %d: %s (%v), want %+v", i+1, line, err, wantAnswers[i])
		}
	}

	// Without --hello the answers are the same lines, and no hello.
	var plain bytes.Buffer
	if code := run([]string{"--serve"}, strings.NewReader(requests), &plain, os.Stderr); code != 0 || plain.String() != strings.Join(got[1:], "\n")+"\n" {
		t.Errorf("--serve: exit %d, output\n%s\nwant the answers of --serve --hello without its hello", code, plain.String())
	}
}

// TestUsage: anything else (--hello alone, flags in another order, more
// flags) is refused at once with the usage, exit 2: a companion that
// asks an older binary for --serve --hello learns so before it sends
// anything, and falls back to --version and --serve.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"--hello"}, {"--hello", "--serve"}, {"--serve", "--hello", "--hello"}, {"--serve", "--bogus"}} {
		var out, stderr bytes.Buffer
		if code := run(args, strings.NewReader(`{"object": {}}`), &out, &stderr); code != 2 || out.Len() != 0 || !strings.HasPrefix(stderr.String(), "usage: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and the usage on stderr only", args, code, out.String(), stderr.String())
		}
	}
}
