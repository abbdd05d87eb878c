// Package crash turns a panic in a command into one line: a bug in the tool is reported as
// an internal error with its own exit code and a request to report it, never as a goroutine
// dump that buries the CI log (and never as exit 1 or 2, which mean "your input").
package crash

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
)

// ExitCode is the exit status of an internal error.
const ExitCode = 3

// IssuesURL is where internal errors are reported.
const IssuesURL = "https://github.com/k8s-crd-resolver/k8s-crd-resolver/issues"

// TracebackEnv, set to 1, adds the stack of the panic to the message.
const TracebackEnv = "K8S_CRD_RESOLVER_TRACEBACK"

// Error is a panic caught in a command.
type Error struct {
	Program string
	Value   any
	Stack   []byte
}

// Error is the one-line message (the stack follows on further lines only with TracebackEnv=1).
func (e *Error) Error() string {
	msg := fmt.Sprintf("internal error in %s: %s: this is a bug, please report it at %s with the command line and, if you can, the input (%s=1 prints where it happened)",
		e.Program, safetext.Quote(fmt.Sprint(e.Value)), IssuesURL, TracebackEnv)
	if os.Getenv(TracebackEnv) == "1" {
		msg += "\n" + string(e.Stack)
	}
	return msg
}

// Guard wraps the RunE of c and of every command below it so that a panic returns an
// *Error instead of unwinding the process.
func Guard(c *cobra.Command, program string) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) (err error) {
			defer Recover(program, &err)
			return run(cmd, args)
		}
	}
	for _, sub := range c.Commands() {
		Guard(sub, program)
	}
}

// Recover, deferred, turns a panic into an *Error in *err.
func Recover(program string, err *error) {
	if v := recover(); v != nil {
		*err = &Error{Program: program, Value: v, Stack: debug.Stack()}
	}
}
