// Command k8s-crd-resolver-validate runs the apiserver's own CRD validation
// (k8s.io/apiextensions-apiserver, linked as a library) on CRD files. It is
// a companion of k8s-crd-resolver, kept apart because linking the apiserver
// costs every process start-up time and memory before main (DESIGN.md),
// which a compile that validates nothing should not pay:
// `k8s-crd-resolver validate` runs it, and build and check call it once per
// run with --batch (a second time only for the twin of an invalid output).
// Its CRDs are validated on every core, with the collector off until the
// runtime's memory first reaches 128 MiB for --batch, 96 MiB for files,
// and that limit held while collections leave little live (tuneGC,
// gcTuning).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/cmd/internal/validatecli"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crash"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdvalidate"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	buildversion "github.com/k8s-crd-resolver/k8s-crd-resolver/internal/version"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// Exit codes, as for k8s-crd-resolver.
const (
	exitOK       = 0
	exitProblems = 1
	exitBadInput = 2
)

type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit %d", int(c)) }

func main() {
	limit, percent := gcTuning(os.Args[1:])
	tuneGC(os.Getenv, limit, percent)
	c := newCmd(os.Stdin, os.Stdout, os.Stderr)
	err := c.ExecuteContext(context.Background())
	var code exitCode
	if errors.As(err, &code) {
		os.Exit(int(code))
	}
	var ce *crash.Error
	if errors.As(err, &ce) {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(crash.ExitCode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(exitBadInput)
	}
}

func newCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f validatecli.Flags
	var batch bool
	c := &cobra.Command{
		Use:   "k8s-crd-resolver-validate [FILE|-]...",
		Short: validatecli.Short,
		Long: validatecli.Long + `

This is the k8s-crd-resolver-validate companion binary, which "k8s-crd-resolver
validate" runs with the flags it was given; "k8s-crd-resolver help validate" is
the reference.`,
		Example:       validatecli.Example,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			if batch {
				if len(args) > 0 {
					return fmt.Errorf("--batch reads its request from standard input and takes no files")
				}
				return runBatch(c.Context(), stdin, stdout)
			}
			if len(args) == 0 {
				return fmt.Errorf("no files given (use - for standard input); see 'k8s-crd-resolver validate --help'")
			}
			if err := f.Check(); err != nil {
				return err
			}
			version, output, pruning, allowOutside, showDefaulted, crdPaths := f.KubeVersion, f.Output, f.Pruning, f.AllowOutsideRoot, f.ShowDefaulted, f.CRDs
			if version != "" {
				// A version that is no embedded minor is bad usage (exit 2),
				// as for every other command, not a problem of the CRDs.
				if _, err := schemas.Canonical(version); err != nil {
					return fmt.Errorf("--k8s-version: %w", err)
				}
			}
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			reader := fileio.NewReader(fileio.ProjectRoot(wd, wd), allowOutside, resolver.MaxInputBytes)
			defer reader.Close()
			var files []crdvalidate.Input
			for _, name := range args {
				in, err := readInputs(reader, stdin, name)
				if err != nil {
					return err
				}
				files = append(files, in...)
			}
			tally := &crdvalidate.Tally{}
			opts := crdvalidate.Options{KubernetesVersion: version, Pruning: pruning, KeepStored: showDefaulted, IgnoreMissing: f.IgnoreMissing,
				Tally: tally, ListObjects: output == "junit" || output == "tap"}
			for _, name := range crdPaths {
				more, err := readCRDs(reader, name)
				if err != nil {
					return err
				}
				opts.CRDs = append(opts.CRDs, more...)
			}
			if version == "" {
				opts.BuiltinVersion = projectPin(wd, allowOutside)
			}
			if len(crdPaths) == 0 {
				opts.DefaultCRDs = func() ([]crdvalidate.Input, error) { return projectCRDs(wd, allowOutside) }
			}
			// The apiserver's hand-written validation of built-in objects,
			// when its binary is installed (crdvalidate.FindBuiltins).
			if opts.HandWritten, err = crdvalidate.FindBuiltins(os.Getenv); err != nil {
				return err
			}
			defer opts.HandWritten.Close()
			results, stored, err := crdvalidate.Files(c.Context(), files, opts)
			if err != nil {
				return err
			}
			failed := false
			for _, r := range results {
				failed = failed || len(r.Problems) > 0
			}
			switch output {
			case "json":
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				answer := struct {
					project.ValidationResponse
					Stored []crdvalidate.Stored `json:"stored,omitempty"`
				}{project.ValidationResponse{Version: project.ProtocolVersion, Results: results}, stored}
				if err := enc.Encode(answer); err != nil {
					return err
				}
			case "junit", "tap":
				write := writeJUnit
				if output == "tap" {
					write = writeTAP
				}
				if err := write(stdout, tally); err != nil {
					return err
				}
				printWarnings(stderr, results)
			default:
				for _, r := range results {
					for _, p := range r.Problems {
						fmt.Fprintln(stdout, render(r.Name, p))
					}
				}
				printWarnings(stderr, results)
				for _, s := range stored {
					out, err := yaml.Marshal(s.Object)
					if err != nil {
						return err
					}
					fmt.Fprintf(stdout, "---\n# %s\n%s", safetext.Quote(s.File), out)
				}
				// Last, on standard error (standard output stays the
				// problems alone, empty when all is valid).
				fmt.Fprintln(stderr, summary(tally))
			}
			if failed {
				return exitCode(exitProblems)
			}
			return nil
		},
	}
	c.Version = buildversion.Module()
	c.SetVersionTemplate(buildversion.String("k8s-crd-resolver-validate"))
	c.SetOut(stdout)
	c.SetErr(stderr)
	f.Register(c.Flags())
	// The protocol of build and check, no user's flag.
	c.Flags().BoolVar(&batch, "batch", false, "read a JSON ValidationRequest from standard input, write a ValidationResponse (for build and check)")
	_ = c.Flags().MarkHidden("batch")
	crash.Guard(c, "k8s-crd-resolver-validate")
	return c
}

// memoryLimit is the heap size at which the collector first starts for
// --batch (see tuneGC): a build's worth of CRDs is validated without a
// collection.
const memoryLimit = 128 << 20

// streamLimit and streamPercent are memoryLimit and the pacing after it
// for files given on the command line, which are judged as they are read
// (crdvalidate.Files), so their live heap stays small however large the
// input: the limit is held (a collection each time the runtime's memory
// reaches it) while a collection leaves less than two fifths of it live,
// and the pacing after it lets the heap grow to two and a half times what
// a collection left live. The limit keeps issue 47's stream of small
// objects within its memory rail, for far fewer collections than pacing
// alone; docs/performance.md ("Validate") has the measurements and
// hack/bench-validate.sh reruns them.
const (
	streamLimit   = 96 << 20
	streamPercent = 150
)

// gcTuning is the limit and the pacing after it tuneGC sets for the
// command line args: a build's --batch, or files.
func gcTuning(args []string) (limit int64, percent int) {
	if slices.Contains(args, "--batch") {
		return memoryLimit, 100
	}
	return streamLimit, streamPercent
}

// tuneGC sets the collector for a short-lived process: a collection only
// when the runtime's memory reaches limit, for as long as a collection
// leaves less than two fifths of the limit live; from the first that
// leaves more, GOGC=percent (100, the runtime's default: a collection each
// time the heap doubles what the last one left live). A process that exits
// a moment later has no reason to collect what validating a project's CRDs
// allocates below the limit, and one judging a long stream of small
// objects collects at least three fifths of the limit each time. The limit
// is not kept once a collection leaves more live: a memory limit held
// near a live heap as large makes the runtime collect continuously, and
// the work would grow with the square of the input. The check runs in a
// cleanup each collection runs, so the total work stays proportional to
// what is allocated. GOGC or GOMEMLIMIT in the environment (getenv) leaves
// the runtime's own settings as they are.
func tuneGC(getenv func(string) string, limit int64, percent int) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
	watchLiveHeap(limit, percent)
}

// watchLiveHeap arranges for the next collection to keep the limit while
// what it leaves live is under two fifths of it, else to set GOGC=percent
// and drop the limit for the rest of the process.
func watchLiveHeap(limit int64, percent int) {
	// Unreachable from the start: the next collection finds it and runs
	// the cleanup.
	runtime.AddCleanup(new([64]byte), func(int) {
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(live)
		if live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() < uint64(limit)*2/5 {
			watchLiveHeap(limit, percent)
			return
		}
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(math.MaxInt64)
	}, 0)
}

// maxBatchBytes bounds a --batch request.
const maxBatchBytes = 1 << 30

func runBatch(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	// The request carries every compiled CRD of a build: bounded like any
	// input, with room for many of the largest, and read as it arrives.
	// Documents are validated while the rest is still on its way (a
	// crdvalidate.Stream), so the companion holds a few CRDs at a time, not
	// the request; the answer is written only once all of it was read.
	in := fileio.NewReader("/", false, maxBatchBytes).StreamFrom("the request on standard input", stdin)
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	req, results, err := readRequest(ctx, dec)
	if err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	// Nothing but space after the request.
	rest, err := io.ReadAll(io.MultiReader(dec.Buffered(), in))
	if err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	if rest = bytes.TrimSpace(rest); len(rest) > 0 {
		return fmt.Errorf("reading the request: %d byte(s) of data after it, at byte %d: send one request", len(rest), dec.InputOffset())
	}
	if len(req.Resources) > 0 {
		// A project's examples: built-in objects with the apiserver's
		// hand-written validation too, when its binary is installed.
		hw, err := crdvalidate.FindBuiltins(os.Getenv)
		if err != nil {
			return err
		}
		defer hw.Close()
		res, err := crdvalidate.Resources(ctx, req.Documents, req.Resources, hw)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(project.ValidationResponse{Version: project.ProtocolVersion, Results: []project.ValidationResult{}, Resources: res})
	}
	return json.NewEncoder(stdout).Encode(project.ValidationResponse{Version: project.ProtocolVersion, Results: results})
}

// readRequest reads a ValidationRequest key by key: version first, then
// resources if any, then documents (the order project.ValidationRequest
// marshals in). Without resources, each document is validated as it is
// read, and results are theirs; with resources, documents are kept for
// judging them.
func readRequest(ctx context.Context, dec *json.Decoder) (*project.ValidationRequest, []project.ValidationResult, error) {
	req := &project.ValidationRequest{}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, nil, err
	}
	var stream *crdvalidate.Stream
	defer func() {
		if stream != nil {
			stream.Results() // stops its workers on a failure
		}
	}()
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, nil, fmt.Errorf("key %q given twice", key)
		}
		seen[key] = true
		if key != "version" && !seen["version"] {
			return nil, nil, fmt.Errorf("key %q before the protocol version: send version first", key)
		}
		switch key {
		case "version":
			if err := dec.Decode(&req.Version); err != nil {
				return nil, nil, err
			}
			if req.Version != project.ProtocolVersion {
				return nil, nil, fmt.Errorf("request protocol version %d, this companion speaks %d: install matching versions of k8s-crd-resolver and k8s-crd-resolver-validate", req.Version, project.ProtocolVersion)
			}
		case "resources":
			if seen["documents"] {
				return nil, nil, errors.New(`"resources" after "documents": send resources first`)
			}
			if err := dec.Decode(&req.Resources); err != nil {
				return nil, nil, err
			}
		case "documents":
			tok, err := dec.Token()
			if err != nil {
				return nil, nil, err
			}
			if tok == nil { // null: no documents
				continue
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return nil, nil, fmt.Errorf("documents: want a list at byte %d, got %v", dec.InputOffset(), tok)
			}
			if len(req.Resources) == 0 {
				stream = crdvalidate.NewStream(ctx)
			}
			for dec.More() {
				var doc project.ValidationDoc
				if err := dec.Decode(&doc); err != nil {
					return nil, nil, err
				}
				if stream != nil {
					stream.Add(doc)
				} else {
					req.Documents = append(req.Documents, doc)
				}
			}
			if err := expectDelim(dec, ']'); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("json: unknown field %q", key)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, nil, err
	}
	if !seen["version"] {
		return nil, nil, fmt.Errorf("request protocol version 0, this companion speaks %d: install matching versions of k8s-crd-resolver and k8s-crd-resolver-validate", project.ProtocolVersion)
	}
	var results []project.ValidationResult
	if stream != nil {
		results, stream = stream.Results(), nil
	}
	if results == nil {
		results = []project.ValidationResult{}
	}
	return req, results, nil
}

// expectDelim reads the delimiter want.
func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q at byte %d, got %v", want, dec.InputOffset(), tok)
	}
	return nil
}

// printWarnings prints the warnings of results on w.
func printWarnings(w io.Writer, results []project.ValidationResult) {
	for _, r := range results {
		for _, p := range r.Warnings {
			fmt.Fprintf(w, "warning: %s\n", render(r.Name, p))
		}
	}
}

// render is the text line of a problem found in file: each part quoted
// (project.Problem.In) so that no name or value can forge a line.
func render(file string, p project.Problem) string {
	if p.Object != "" || p.Line != 0 {
		return p.In(file)
	}
	return safetext.Quote(file) + ": " + p.String()
}

// readCRDs reads a --crd argument: a file, or every *.yaml, *.yml and
// *.json file of a directory (not its subdirectories). Like the files to
// validate, it is the user's own argument, read wherever it points; the
// names found in a directory are not, and must be regular files
// (fileio.ReadListed: a FIFO there is refused, never opened blocking).
func readCRDs(r *fileio.Reader, name string) ([]crdvalidate.Input, error) {
	fi, err := os.Stat(name)
	if err != nil || !fi.IsDir() {
		content, err := r.ReadExplicit(name)
		if err != nil {
			return nil, err
		}
		return []crdvalidate.Input{{Name: name, Content: content}}, nil
	}
	in, err := readDir(r, name)
	if err == nil && len(in) == 0 {
		err = fmt.Errorf("--crd %s: no *.yaml, *.yml or *.json file in the directory, so no CRD to judge against", name)
	}
	return in, err
}

// readInputs opens a FILE|DIR|- argument, to be read as a stream as it
// is judged (crdvalidate.Input.Open): standard input, a file, or the
// files of a directory as --crd reads them; a directory without such a
// file is an error (nothing judged is no pass). Each is opened through
// the one reader when Files comes to it, within the input limit: a file
// the user named is read wherever it points (a /tmp file, a process
// substitution's pipe); below the project root (the git top level of the
// working directory, else the working directory) no symbolic link leads
// out of it unless allowOutside.
func readInputs(r *fileio.Reader, stdin io.Reader, name string) ([]crdvalidate.Input, error) {
	if name == "-" {
		return []crdvalidate.Input{{Name: name, Open: func() (io.ReadCloser, error) {
			return io.NopCloser(r.StreamFrom("<stdin>", stdin)), nil
		}}}, nil
	}
	if fi, err := os.Stat(name); err != nil || !fi.IsDir() {
		return []crdvalidate.Input{{Name: name, Open: func() (io.ReadCloser, error) { return r.OpenExplicit(name) }}}, nil
	}
	names, err := fileio.ListNames(name)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no *.yaml, *.yml or *.json file in the directory", name)
	}
	out := make([]crdvalidate.Input, len(names))
	for i, n := range names {
		out[i] = crdvalidate.Input{Name: n, Open: func() (io.ReadCloser, error) { return r.OpenListed(n) }}
	}
	return out, nil
}

// readDir reads the *.yaml, *.yml and *.json files of the directory name
// (fileio.ReadListed).
func readDir(r *fileio.Reader, name string) ([]crdvalidate.Input, error) {
	names, contents, err := r.ReadListed(name)
	if err != nil {
		return nil, err
	}
	out := make([]crdvalidate.Input, len(names))
	for i, n := range names {
		out[i] = crdvalidate.Input{Name: n, Content: contents[i]}
	}
	return out, nil
}

// projectCRDs reads the compiled outputs of the project of the working
// directory (the first output of each template), through the project's
// confined reader: the repository names them. Outputs not built yet are
// left out.
func projectCRDs(wd string, allowOutside bool) ([]crdvalidate.Input, error) {
	p, err := openProject(wd, allowOutside)
	if err != nil {
		return nil, fmt.Errorf("finding the project's compiled CRDs (give them with --crd): %w", err)
	}
	var out []crdvalidate.Input
	for _, t := range p.Templates {
		if len(t.Outputs) == 0 {
			continue
		}
		content, err := p.Reader().ReadFile(t.Outputs[0])
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, crdvalidate.Input{Name: p.Rel(t.Outputs[0]), Content: content})
	}
	return out, nil
}

// projectPin returns the Kubernetes version every template of the project
// of wd is compiled for (its kubernetesVersion), which objects of
// Kubernetes' own kinds are then judged for; "" outside a project, or when
// its templates target several versions (the newest embedded judges).
func projectPin(wd string, allowOutside bool) string {
	p, err := openProject(wd, allowOutside)
	if err != nil {
		return ""
	}
	pin := p.Config.KubernetesVersion
	for i, t := range p.Templates {
		if i > 0 && t.Policy.KubernetesVersion != pin {
			return ""
		}
		pin = t.Policy.KubernetesVersion
	}
	return pin
}

// openProject opens the project of wd, templates or none.
func openProject(wd string, allowOutside bool) (*project.Project, error) {
	var opts project.Options
	opts.AllowEmpty = true
	if allowOutside {
		opts.Policy.AllowOutsideRoot = &allowOutside
	}
	return project.Open(wd, opts)
}
