package crdvalidate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// builtinsForTest returns k8s-crd-resolver-builtins as validate finds it
// ($K8S_CRD_RESOLVER_BUILTINS, which `make test` sets to the one it
// builds). Without it the test is skipped, but under K8S_CRD_RESOLVER_CI=1
// it fails: CI must judge with the apiserver's hand-written validation.
func builtinsForTest(t *testing.T) *HandWritten {
	t.Helper()
	h, err := FindBuiltins(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if h == nil || h.off {
		if os.Getenv("K8S_CRD_RESOLVER_CI") == "1" {
			t.Fatalf("%s not found: set $%s (make test builds it: make builtins)", BuiltinsBinary, BuiltinsEnv)
		}
		t.Skipf("%s not found: set $%s to run this (make builtins builds it)", BuiltinsBinary, BuiltinsEnv)
	}
	return h
}

// handWrittenFiles judges content (one file) with h for the minor.
func handWrittenFiles(t *testing.T, h *HandWritten, minor, content string) project.ValidationResult {
	t.Helper()
	res, _, err := Files(t.Context(), []Input{{Name: "in.yaml", Content: []byte(content)}}, Options{KubernetesVersion: minor, HandWritten: h})
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

const handWrittenObjects = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx
          imagePullPolicy: Sometimes
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: web
      image: nginx
      env:
        - {name: A, value: "1"}
        - {name: A, value: "2"}
---
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: csr
spec:
  request: aGVsbG8=
  signerName: example.com/x
`

// TestHandWrittenVerdicts: with the binary, a refusal of its hand-written
// rules stands at its line, a warning of the apiserver is a warning at its
// line (not a refusal), a kind it does not judge keeps the schema-only
// note saying so, and an older target minor is judged by the schema with
// a note per kind naming the version the binary links.
func TestHandWrittenVerdicts(t *testing.T) {
	h := builtinsForTest(t)
	defer h.Close()
	wantLinkedVerdicts(t, handWrittenFiles(t, h, "", handWrittenObjects))
	wantOtherMinorVerdicts(t, handWrittenFiles(t, h, "1.36", handWrittenObjects))
}

// wantLinkedVerdicts checks the verdicts on handWrittenObjects for the
// minor the binary links.
func wantLinkedVerdicts(t *testing.T, res project.ValidationResult) {
	t.Helper()
	if len(res.Problems) != 1 || res.Problems[0].Line != 16 || res.Problems[0].Field != "spec.template.spec.containers[0].imagePullPolicy" || !strings.Contains(res.Problems[0].Message, `Unsupported value: "Sometimes"`) {
		t.Errorf("problems %v, want imagePullPolicy refused at line 16", res.Problems)
	}
	var envWarned, csrNote bool
	for _, w := range res.Warnings {
		switch {
		case w.Line == 28 && w.Field == "spec.containers[0].env[1]" && strings.Contains(w.Message, `hides previous definition of "A"`):
			envWarned = true
		case strings.Contains(w.Message, "CertificateSigningRequest: judged by its OpenAPI schema") && strings.HasSuffix(w.Message, BuiltinsBinary+" does not judge this kind"):
			csrNote = true
		case strings.Contains(w.Message, "judged by its OpenAPI schema"):
			t.Errorf("a schema-only note for a kind the binary judged: %v", w)
		}
	}
	if !envWarned || !csrNote {
		t.Errorf("want the duplicate env warning at line 28 and the CSR's schema-only note: %v", res.Warnings)
	}
}

// wantOtherMinorVerdicts checks the verdicts on handWrittenObjects for
// 1.36, a minor the binary does not link.
func wantOtherMinorVerdicts(t *testing.T, res project.ValidationResult) {
	t.Helper()
	// By the schema: imagePullPolicy has no enum there (and the duplicate
	// env name is refused as a duplicate list-map key, which the
	// apiserver only warns about: what the schema judge cannot tell).
	for _, p := range res.Problems {
		if p.Field != "spec.containers[0].env[1]" {
			t.Errorf("1.36, by the schema: problem %v, want only the duplicate env key", p)
		}
	}
	notes := 0
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "judged by its OpenAPI schema for Kubernetes 1.36 only") && strings.Contains(w.Message, "links Kubernetes v1.37.2's and judges that minor only") {
			notes++
		}
	}
	if notes != 3 {
		t.Errorf("1.36: %d schema-only notes naming the binary's minor, want one per kind (3): %v", notes, res.Warnings)
	}
}

// wrapBuiltins writes dir/name, a script that runs the binary real and
// logs each start of it ("start ARGS") and its end ("exit N") to
// dir/name.log; when older, it refuses, as a binary older than --hello
// does (exit 2, the usage), anything but --version or --serve alone.
func wrapBuiltins(t *testing.T, dir, name, real string, older bool) (path, log string) {
	t.Helper()
	path, log = filepath.Join(dir, name), filepath.Join(dir, name+".log")
	refuse := ""
	if older {
		refuse = `*) echo "usage: k8s-crd-resolver-builtins --version | --serve" >&2; echo "exit 2" >> '` + log + `'; exit 2;;`
	}
	script := "#!/bin/sh\n" +
		"echo \"start $*\" >> '" + log + "'\n" +
		"case \"$*\" in --version|--serve) ;; " + refuse + " esac\n" +
		"'" + real + "' \"$@\"\ncode=$?\n" +
		"echo \"exit $code\" >> '" + log + "'\nexit $code\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

// starts is the log of wrapBuiltins, one entry a line.
func starts(t *testing.T, log string) string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Join(strings.Split(strings.TrimSpace(string(b)), "\n"), "; ")
}

// TestHandWrittenOneProcess: a run starts the binary once, `--serve
// --hello`, learns its version from the hello and has the objects judged
// by that process; for a minor it does not link the process is ended (its
// input closed, its exit 0 waited for) before the run returns. A binary
// older than --hello refuses the flag at once and is asked as before,
// `--version` then `--serve`, with the same verdicts.
func TestHandWrittenOneProcess(t *testing.T) {
	real := builtinsForTest(t).Path()
	for _, c := range []struct {
		name          string
		older         bool
		minor         string
		during, after string // the log once the run returned, and once closed
	}{
		{"linked", false, "", "start --serve --hello", "start --serve --hello; exit 0"},
		{"other minor", false, "1.36", "start --serve --hello; exit 0", "start --serve --hello; exit 0"},
		{"older, linked", true, "", "start --serve --hello; exit 2; start --version; exit 0; start --serve", "start --serve --hello; exit 2; start --version; exit 0; start --serve; exit 0"},
		{"older, other minor", true, "1.36", "start --serve --hello; exit 2; start --version; exit 0", "start --serve --hello; exit 2; start --version; exit 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, log := wrapBuiltins(t, t.TempDir(), BuiltinsBinary, real, c.older)
			h := NewHandWritten(path)
			res := handWrittenFiles(t, h, c.minor, handWrittenObjects)
			if c.minor == "" {
				wantLinkedVerdicts(t, res)
			} else {
				wantOtherMinorVerdicts(t, res)
			}
			if got := starts(t, log); got != c.during {
				t.Errorf("once the run returned: %q, want %q", got, c.during)
			}
			h.Close()
			if got := starts(t, log); got != c.after {
				t.Errorf("once closed: %q, want %q", got, c.after)
			}
		})
	}
}

// TestHandWrittenFailureIsNoPass: a binary that answers garbage, or dies,
// or cannot say its version (with or without --hello), or says nothing at
// all, makes each built-in object a problem naming it and how to install
// it, never a pass.
func TestHandWrittenFailureIsNoPass(t *testing.T) {
	dir := t.TempDir()
	const older = "[ $# = 1 ] || { echo usage >&2; exit 2; }\n"
	const hello = `echo '{"version": "v1.37.2"}'` + "\n"
	for name, script := range map[string]string{
		"garbage":       older + "case \"$1\" in --version) echo v1.37.2;; --serve) read line; echo 'not json';; esac\n",
		"dies":          older + "case \"$1\" in --version) echo v1.37.2;; --serve) echo boom >&2; exit 3;; esac\n",
		"version":       "echo 'hello'\n",
		"older version": older + "echo 'hello'\n",
		"hello garbage": hello + "read line; echo 'not json'\n",
		"hello dies":    hello + "echo boom >&2; exit 3\n",
		"hello no json": "echo v1.37.2; read line\n",
		"hello 1.37":    `echo '{"version": "1.37"}'; read line` + "\n",
		"silent":        "exit 0\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
				t.Fatal(err)
			}
			h := NewHandWritten(path)
			defer h.Close()
			res := handWrittenFiles(t, h, "", handWrittenObjects)
			if len(res.Problems) < 3 {
				t.Fatalf("problems %v, want one per object", res.Problems)
			}
			for _, p := range res.Problems {
				if !strings.Contains(p.Message, path) || !strings.Contains(p.Message, BuiltinsInstall) {
					t.Errorf("the problem does not name the binary %s and how to install it: %v", path, p)
				}
			}
		})
	}
}

// TestFindBuiltins: $K8S_CRD_RESOLVER_BUILTINS names the binary, none
// turns it off, and a path that is no executable file is an error.
func TestFindBuiltins(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == BuiltinsEnv {
				return v
			}
			return ""
		}
	}
	if h, err := FindBuiltins(env(BuiltinsNone)); h == nil || !h.off || err != nil {
		t.Errorf("none: %v, %v; want one turned off, and no error", h, err)
	}
	missing := filepath.Join(t.TempDir(), "nothing")
	if _, err := FindBuiltins(env(missing)); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v, want an error naming it", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if h, err := FindBuiltins(env(exe)); err != nil || h == nil || h.Path() != exe {
		t.Errorf("an executable: %v, %v", h, err)
	}
}
