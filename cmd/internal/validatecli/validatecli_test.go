package validatecli

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// TestArgsRoundTrip: what Args passes on parses, in a fresh flag set, to
// the same flags and files, repeated flags and files named like flags
// included; flags not given stay at their defaults.
func TestArgsRoundTrip(t *testing.T) {
	parse := func(args []string) (Flags, []string) {
		var f Flags
		fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
		f.Register(fs)
		require.NoError(t, fs.Parse(args))
		return f, fs.Args()
	}
	for _, args := range [][]string{
		{"a.yaml"},
		{"-o", "json", "--crd", "dist/", "--crd=more.yaml", "--pruning", "warn", "--show-defaulted", "--k8s-version", "1.30", "-", "b.yaml"},
		{"--allow-outside-root", "--", "-o", "--crd"},
	} {
		want, files := parse(args)
		var f Flags
		fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
		f.Register(fs)
		require.NoError(t, fs.Parse(args))
		got, gotFiles := parse(Args(fs, fs.Args()))
		require.Equal(t, want, got, "%q", args)
		require.Equal(t, files, gotFiles, "%q", args)
	}
}
