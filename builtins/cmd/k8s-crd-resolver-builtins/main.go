// Command k8s-crd-resolver-builtins judges objects of Kubernetes' own kinds with the
// apiserver's hand-written validation; package builtins (its doc.go) says how, and the
// protocol validate speaks with it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/builtins"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usage is printed for anything but --version, --serve or --serve --hello.
const usage = `usage: k8s-crd-resolver-builtins --version | --serve [--hello]
  --version  print the Kubernetes version whose hand-written validation is linked
  --serve    judge one object per request on standard input (the protocol of package builtins);
             k8s-crd-resolver validate runs it, there is no need to run it yourself
  --hello    with --serve: first write {"version": ...} (what --version prints) on a line
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch strings.Join(args, " ") {
	case "--version":
		fmt.Fprintln(stdout, kubernetesVersion())
		return 0
	case "--serve", "--serve --hello":
		if err := serve(stdin, stdout, len(args) == 2); err != nil {
			fmt.Fprintf(stderr, "k8s-crd-resolver-builtins: %v\n", err)
			return 2
		}
		return 0
	case "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprint(stderr, usage)
	return 2
}

// kubernetesVersion is the version of k8s.io/kubernetes linked in, as the
// build recorded it.
func kubernetesVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "k8s.io/kubernetes" {
				return d.Version
			}
		}
	}
	return "unknown"
}

// request is one request of the protocol.
type request struct {
	Object json.RawMessage `json:"object"`
	// FieldValidation is Strict (the default, ""), Warn or Ignore.
	FieldValidation string `json:"fieldValidation,omitempty"`
}

// hello is the first line --serve --hello writes, before reading any
// request.
type hello struct {
	// Version is the Kubernetes version linked, as --version prints it.
	Version string `json:"version"`
}

// serve answers each request of in on out, one line each, flushed after
// each answer (the caller waits for it before sending the next); with
// sayHello it first writes the hello line, flushed.
func serve(in io.Reader, out io.Writer, sayHello bool) error {
	dec := json.NewDecoder(bufio.NewReader(in))
	dec.DisallowUnknownFields()
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	if sayHello {
		if err := enc.Encode(hello{Version: kubernetesVersion()}); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	for n := 1; ; n++ {
		var req request
		if err := dec.Decode(&req); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("request %d: %w", n, err)
		}
		if len(req.Object) == 0 || req.Object[0] != '{' {
			return fmt.Errorf(`request %d: want {"object": {...}}`, n)
		}
		if err := enc.Encode(builtins.JudgeWith(req.Object, req.FieldValidation)); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}
