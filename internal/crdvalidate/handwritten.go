package crdvalidate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// The apiserver's hand-written validation of Kubernetes' own kinds is
// linked into a binary of its own, k8s-crd-resolver-builtins (module
// builtins/, whose doc.go gives the protocol): k8s.io/kubernetes cannot be
// required by this module. When it is installed and links the target
// minor, each built-in object of a kind it judges is judged by it alone:
// its verdict is the apiserver's. Otherwise the object is judged by its
// schema, and each such kind says so (schemaOnlyNotes), naming why.

// BuiltinsBinary is the name of the binary.
const BuiltinsBinary = "k8s-crd-resolver-builtins"

// BuiltinsEnv names an environment variable that, when set, is the path of
// the binary (the Makefile sets it for the tests), or BuiltinsNone; the
// invoking user's environment is trusted.
const BuiltinsEnv = "K8S_CRD_RESOLVER_BUILTINS"

// BuiltinsNone, as $K8S_CRD_RESOLVER_BUILTINS, uses no binary: built-in
// objects are judged by their schema alone (and say so).
const BuiltinsNone = "none"

// BuiltinsInstall says how to install the binary.
const BuiltinsInstall = "make builtins in a clone of k8s-crd-resolver, or cd builtins && go install ./cmd/" + BuiltinsBinary

// FindBuiltins returns the binary validate uses: $K8S_CRD_RESOLVER_BUILTINS
// when set (none: no binary; an error when it is no executable file), else
// the one next to the running executable, else the one on PATH; nil when
// there is none. With none it returns one that is off: it judges nothing,
// and the schema-only notes say it was turned off.
func FindBuiltins(getenv func(string) string) (*HandWritten, error) {
	if p := getenv(BuiltinsEnv); p == BuiltinsNone {
		return &HandWritten{off: true}, nil
	} else if p != "" {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("$%s=%s: no executable file there (%v); unset it, or %s", BuiltinsEnv, p, err, BuiltinsInstall)
		}
		return NewHandWritten(p), nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), BuiltinsBinary)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return NewHandWritten(p), nil
		}
	}
	if p, err := exec.LookPath(BuiltinsBinary); err == nil {
		return NewHandWritten(p), nil
	}
	return nil, nil
}

// HandWritten is one k8s-crd-resolver-builtins, started once per run at
// the first object it is asked about: one process, `--serve --hello`,
// whose first line says the version it links (Version, Serves) and which
// then judges every object (Judge). When the target minor is not the one
// it links, Serves ends it. An older binary, without --hello, refuses the
// flag at once: then it is asked `--version`, and `--serve` starts at the
// first object judged. Safe for concurrent use (one request at a time).
// Close ends it. Once it failed, every later call returns the same error.
type HandWritten struct {
	path string
	off  bool // $K8S_CRD_RESOLVER_BUILTINS=none

	mu      sync.Mutex
	version string // v1.37.2, once asked
	minor   string // 1.37
	err     error
	p       *exec.Cmd
	stdin   io.WriteCloser
	in      *bufio.Writer
	outBuf  *bufio.Reader
	out     *json.Decoder
	stderr  bytes.Buffer
}

// waitDelay bounds Wait once the binary ended, should anything it started
// still hold its standard error.
const waitDelay = time.Second

// NewHandWritten returns the binary at path, not started.
func NewHandWritten(path string) *HandWritten {
	return &HandWritten{path: path}
}

// Path is where the binary is.
func (h *HandWritten) Path() string { return h.path }

// Version returns the Kubernetes version the binary links (v1.37.2) and
// its minor (1.37), learnt once: from the hello of `--serve --hello`,
// whose process then serves Judge, or, from a binary older than --hello,
// from `--version`.
func (h *HandWritten) Version() (version, minor string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.versionLocked()
}

func (h *HandWritten) versionLocked() (version, minor string, err error) {
	if h.version == "" && h.err == nil {
		older, err := h.startHello()
		if err == nil && older {
			err = h.askVersion()
		}
		h.fail(err)
	}
	return h.version, h.minor, h.err
}

// setVersion takes the version v the binary printed (what names it: "its
// hello", "--version").
func (h *HandWritten) setVersion(v, what string) error {
	var major, minor, patch int
	if _, err := fmt.Sscanf(v, "v%d.%d.%d", &major, &minor, &patch); err != nil {
		return fmt.Errorf("%s printed %q as %s, not a Kubernetes version", h.path, v, what)
	}
	h.version, h.minor = v, fmt.Sprintf("%d.%d", major, minor)
	return nil
}

func (h *HandWritten) askVersion() error {
	var stderr bytes.Buffer
	c := exec.Command(h.path, "--version")
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		if s := strings.TrimSpace(stderr.String()); s != "" {
			err = fmt.Errorf("%w: %s", err, s)
		}
		return fmt.Errorf("%s --version: %w", h.path, err)
	}
	return h.setVersion(strings.TrimSpace(string(out)), "its --version")
}

// startHello starts `--serve --hello` and reads its hello: the version, and
// a process ready for Judge. It reports older when the binary ended before
// writing anything (a binary older than --hello refuses the flag): then
// nothing runs. A hello that is no version is an error, and the binary is
// ended. The hello is waited for as an answer is (no clock: a loaded
// machine may start the binary slowly); a binary that takes --hello and
// never writes it is not one of ours.
func (h *HandWritten) startHello() (older bool, err error) {
	if err := h.start("--serve", "--hello"); err != nil {
		return false, err
	}
	// A hello is one short line: one longer than the reader's buffer is
	// no hello.
	line, err := h.outBuf.ReadSlice('\n')
	if len(line) == 0 && errors.Is(err, io.EOF) {
		h.stop()
		return true, nil
	}
	var hello struct {
		Version string `json:"version"`
	}
	if err == nil {
		err = json.Unmarshal(line, &hello)
	}
	if err != nil {
		b := bytes.TrimSpace(line)
		if len(b) > 200 {
			b = append(b[:200:200], "..."...)
		}
		err = fmt.Errorf("%s --serve --hello: its hello %q is no {\"version\": ...} line (%v)", h.path, b, err)
	} else {
		err = h.setVersion(hello.Version, "the version of its hello")
	}
	if err != nil {
		h.kill()
		return false, err
	}
	return false, nil
}

// Serves reports whether the binary judges objects for the Kubernetes
// minor ("1.37"): the one it links. When it does not, the process the
// version came from is ended (Judge would start it again).
func (h *HandWritten) Serves(minor string) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, linked, err := h.versionLocked()
	if err != nil {
		return false, err
	}
	canon, err := schemas.Canonical(minor)
	if err != nil {
		return false, err
	}
	if canon != linked {
		h.stop()
	}
	return canon == linked, nil
}

// HandVerdict is the binary's answer on one object (its protocol, builtins/doc.go).
type HandVerdict struct {
	Served   bool     `json:"served"`
	Valid    bool     `json:"valid"`
	Reason   string   `json:"reason"`
	Message  string   `json:"message"`
	Causes   []Cause  `json:"causes"`
	Warnings []string `json:"warnings"`
}

// Cause is one cause of a refusal: an apiserver status cause.
type Cause struct {
	Type    string `json:"type"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Judge judges one object (as JSON) with fieldValidation Strict, Warn or
// Ignore, by the process the version came from, or a `--serve` of its own
// (an older binary, or one Serves ended).
func (h *HandWritten) Judge(object json.RawMessage, fieldValidation string) (*HandVerdict, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.p == nil && h.version == "" {
		_, _, _ = h.versionLocked()
	}
	if h.err != nil {
		return nil, h.err
	}
	if h.p == nil {
		if h.fail(h.start("--serve")); h.err != nil {
			return nil, h.err
		}
	}
	v, err := h.exchange(object, fieldValidation)
	if err != nil {
		args := strings.Join(h.p.Args[1:], " ")
		h.kill()
		h.fail(fmt.Errorf("%s %s: %w%s", h.path, args, err, h.stderrText()))
		return nil, h.err
	}
	return v, nil
}

// fail keeps err, if any, as the error of every later call, saying how to
// install the binary anew.
func (h *HandWritten) fail(err error) {
	if err != nil {
		h.err = fmt.Errorf("%w: reinstall it (%s)", err, BuiltinsInstall)
	}
}

// start starts the binary with args, its standard input and output
// piped to h.
func (h *HandWritten) start(args ...string) error {
	h.stderr.Reset()
	h.p = exec.Command(h.path, args...)
	h.p.Stderr = &h.stderr
	h.p.WaitDelay = waitDelay
	stdin, err := h.p.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := h.p.StdoutPipe()
	if err != nil {
		return err
	}
	if err := h.p.Start(); err != nil {
		h.p = nil
		return fmt.Errorf("%s %s: %w", h.path, strings.Join(args, " "), err)
	}
	h.stdin, h.in = stdin, bufio.NewWriter(stdin)
	h.outBuf = bufio.NewReader(stdout)
	h.out = json.NewDecoder(h.outBuf)
	h.out.DisallowUnknownFields()
	return nil
}

// exchange sends one request and reads its answer.
func (h *HandWritten) exchange(object json.RawMessage, fieldValidation string) (*HandVerdict, error) {
	req, err := json.Marshal(struct {
		Object          json.RawMessage `json:"object"`
		FieldValidation string          `json:"fieldValidation,omitempty"`
	}{object, fieldValidation})
	if err != nil {
		return nil, err
	}
	if _, err := h.in.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("sending an object: %w", err)
	}
	if err := h.in.Flush(); err != nil {
		return nil, fmt.Errorf("sending an object: %w", err)
	}
	var v HandVerdict
	if err := h.out.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading its answer: %w", err)
	}
	if v.Served && !v.Valid && v.Reason == "" {
		return nil, errors.New("reading its answer: a refusal without a reason")
	}
	return &v, nil
}

// stderrText is what the binary printed on standard error, once it ended
// (and was waited for).
func (h *HandWritten) stderrText() string {
	if s := strings.TrimSpace(h.stderr.String()); s != "" {
		return ": " + s
	}
	return ""
}

// stop closes the binary's input and waits for it to end.
func (h *HandWritten) stop() {
	if h.p == nil {
		return
	}
	_ = h.stdin.Close()
	_ = h.p.Wait()
	h.p = nil
}

// kill ends the binary that failed, and waits for it.
func (h *HandWritten) kill() {
	_ = h.stdin.Close()
	_ = h.p.Process.Kill()
	_ = h.p.Wait()
	h.p = nil
}

// Close ends the binary, if it was started.
func (h *HandWritten) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stop()
}

// Field paths the apiserver's warnings start with
// ("spec.template.spec.containers[0].env[1]: hides previous definition"),
// and the field of a strict decoding error (`unknown field "spec.x"`).
var (
	warningField = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*|\[[^\]\s]*\])+): (.+)$`)
	strictField  = regexp.MustCompile(`^(?:unknown|duplicate) field "([^"]+)"$`)
)

// judgeHandWritten judges the built-in object by the binary's verdict:
// each cause a problem at its field, each warning a warning at its field
// when it names one; a refusal of the decoder is kept in r.placeDecode for
// the schema judge to place (placeDecodeRefusal). It reports false when
// the binary does not judge the object's kind (nothing is found then).
func (r *resource) judgeHandWritten(h *HandWritten, pruning string) bool {
	raw, err := json.Marshal(r.obj)
	if err != nil {
		r.problem("", "", err.Error())
		return true
	}
	fv := "Strict"
	switch pruning {
	case PruneWarn:
		fv = "Warn"
	case PruneIgnore:
		fv = "Ignore"
	}
	v, err := h.Judge(raw, fv)
	if err != nil {
		r.problem("", "", fmt.Sprintf("not judged: %v", err))
		return true
	}
	if !v.Served {
		return false
	}
	switch {
	case v.Valid:
	case v.Reason == "BadRequest" && !slices.ContainsFunc(v.Causes, func(c Cause) bool { return strictField.MatchString(c.Message) }):
		// A value the decoder refused names its field without list
		// indices, or not at all (a quantity): the schema judge places it.
		r.placeDecode = v
	default:
		r.refusedBy(v)
	}
	for _, w := range v.Warnings {
		if m := strictField.FindStringSubmatch(w); m != nil {
			r.warn(pointer(m[1]), m[1], w)
			continue
		}
		if m := warningField.FindStringSubmatch(w); m != nil {
			r.warn(pointer(m[1]), m[1], m[2])
			continue
		}
		r.warn("", "", w)
	}
	return true
}

// refusedBy adds the binary's refusal: each cause a problem at its field.
func (r *resource) refusedBy(v *HandVerdict) {
	for _, c := range v.Causes {
		r.problem(pointer(c.Field), c.Field, c.Message)
	}
	if len(v.Causes) == 0 {
		r.problem("", "", fmt.Sprintf("%s: %s", v.Reason, v.Message))
	}
}

// fieldIndex is a field path's list index or map key ([0], [name]).
var fieldIndex = regexp.MustCompile(`\[[^\]]*\]`)

// placeDecodeRefusal places the decoding refusal of the binary
// (r.placeDecode), once the schema judge judged the object: its problems
// at the refused fields (all of them when the refusal names none) stand
// for the refusal; when it found none there, the binary's own causes do.
// Either way the object is refused, as the apiserver refuses it.
func (r *resource) placeDecodeRefusal() {
	v := r.placeDecode
	var fields []string
	for _, c := range v.Causes {
		if c.Field != "" {
			fields = append(fields, c.Field)
		}
	}
	if len(fields) > 0 {
		r.problems = slices.DeleteFunc(r.problems, func(p project.Problem) bool {
			f := fieldIndex.ReplaceAllString(p.Field, "")
			return !slices.ContainsFunc(fields, func(c string) bool { return f == c || strings.HasPrefix(f, c+".") })
		})
	}
	if len(r.problems) == 0 {
		r.refusedBy(v)
	}
	r.sortFindings()
}
