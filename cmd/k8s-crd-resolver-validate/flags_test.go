package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/cmd"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/cmd/internal/validatecli"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/crdvalidate"
)

// TestFlagsAgree: the flags `k8s-crd-resolver validate` parses (and shows
// in its help and docs/cli) are exactly the companion's own, but for its
// hidden --batch protocol: a flag added to one binary only would be
// refused by the main binary, or missing from the reference.
func TestFlagsAgree(t *testing.T) {
	root := cmd.NewRootCmd(io.Discard, io.Discard)
	main, _, err := root.Find([]string{"validate"})
	if err != nil || main.Name() != "validate" {
		t.Fatalf("no validate command: %v", err)
	}
	describe := func(fs *pflag.FlagSet) map[string]string {
		out := map[string]string{}
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Name != "help" && f.Name != "version" {
				out[f.Name] = strings.Join([]string{f.Shorthand, f.Value.Type(), f.DefValue, f.Usage}, "|")
			}
		})
		return out
	}
	want, got := describe(newCmd(nil, io.Discard, io.Discard).Flags()), describe(main.Flags())
	for name, w := range want {
		if got[name] != w {
			t.Errorf("--%s: the companion has %q, k8s-crd-resolver validate %q", name, w, got[name])
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("--%s: k8s-crd-resolver validate has it, the companion does not", name)
		}
	}
	// The policies the help names are the ones the validation knows.
	if validatecli.PruneError != crdvalidate.PruneError || validatecli.PruneWarn != crdvalidate.PruneWarn || validatecli.PruneIgnore != crdvalidate.PruneIgnore {
		t.Error("validatecli's --pruning values differ from crdvalidate's")
	}
}
