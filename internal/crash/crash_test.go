package crash

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// TestGuard: a panic in any command, a subcommand's too, comes back as one line, with the
// value quoted (a panic message may hold repository content) and the request to report it;
// the stack only on request.
func TestGuard(t *testing.T) {
	root := &cobra.Command{Use: "tool", SilenceErrors: true, SilenceUsage: true, RunE: func(*cobra.Command, []string) error { return nil }}
	root.AddCommand(&cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error {
		var m map[string]int
		m["x\n::error::forged"]++ // a nil map: panics
		return nil
	}})
	root.AddCommand(&cobra.Command{Use: "value", RunE: func(*cobra.Command, []string) error { panic("line one\nline two") }})
	Guard(root, "tool")
	root.SetOut(io.Discard)
	for _, sub := range []string{"boom", "value"} {
		root.SetArgs([]string{sub})
		err := root.Execute()
		var ce *Error
		require.True(t, errors.As(err, &ce), "%v", err)
		msg := err.Error()
		require.NotContains(t, msg, "\n", "one line")
		require.Contains(t, msg, "internal error in tool: ")
		require.Contains(t, msg, IssuesURL)
		require.NotContains(t, msg, "goroutine")
		t.Setenv(TracebackEnv, "1")
		require.Contains(t, err.Error(), "goroutine", "the stack when asked for")
		require.True(t, strings.HasPrefix(err.Error(), msg))
		t.Setenv(TracebackEnv, "")
	}
	root.SetArgs(nil)
	require.NoError(t, root.Execute())
}
