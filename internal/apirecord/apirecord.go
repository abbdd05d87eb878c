package apirecord

import (
	"fmt"
	"slices"
	"strings"
)

// Title is the first line of every recorded comment; Format writes it with
// the apiserver's version.
const Title = "# Recorded from kube-apiserver %s: create, dryRun=All, fieldValidation=Strict."

// Verdict is what the apiserver said about one object.
type Verdict struct {
	// Server is the apiserver's version (its /version gitVersion).
	Server string
	// Valid is true when the create succeeded.
	Valid bool
	// Reason is the Status reason of a refusal (Invalid, BadRequest...),
	// or NotServed when discovery lists no resource for the object's
	// apiVersion and kind (kubectl's "no matches for kind").
	Reason string
	// Causes are the Status causes as "TYPE FIELD", sorted.
	Causes []string
	// Message is the Status message of a refusal that names no field
	// (a BadRequest from decoding), on one line; "" otherwise.
	Message string
	// Unknown are the fields a Strict decoding error names as unknown or
	// duplicate (the apiserver gives them in its message, not as causes),
	// sorted.
	Unknown []string
}

// Fields returns every field the verdict names: the causes' and the
// unknown ones, in that order.
func (v Verdict) Fields() []string {
	var fs []string
	for _, c := range v.Causes {
		if _, f, ok := strings.Cut(c, " "); ok && f != "" && f != "<nil>" {
			fs = append(fs, f)
		}
	}
	return append(fs, v.Unknown...)
}

// Equal reports whether two verdicts say the same (the server aside).
func (v Verdict) Equal(o Verdict) bool {
	return v.Valid == o.Valid && v.Reason == o.Reason && slices.Equal(v.Causes, o.Causes) && slices.Equal(v.Unknown, o.Unknown) && v.Message == o.Message
}

// String is the verdict on one line, for test logs.
func (v Verdict) String() string {
	if v.Valid {
		return "valid"
	}
	return fmt.Sprintf("invalid (%s) causes %q unknown %q", v.Reason, v.Causes, v.Unknown)
}

// Format returns the comment that records v, each line ending in "\n".
func Format(v Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, Title+"\n", v.Server)
	if v.Valid {
		b.WriteString("# verdict: valid\n")
		return b.String()
	}
	b.WriteString("# verdict: invalid\n# reason: " + v.Reason + "\n")
	for _, c := range v.Causes {
		b.WriteString("# cause: " + c + "\n")
	}
	for _, u := range v.Unknown {
		b.WriteString("# unknown: " + u + "\n")
	}
	if v.Message != "" {
		b.WriteString("# message: " + v.Message + "\n")
	}
	return b.String()
}

// Parse splits a recorded file into its verdict and the object after the
// comment. It fails when the comment is missing or holds a line it does
// not know.
func Parse(content []byte) (Verdict, []byte, error) {
	var v Verdict
	rest := content
	first, verdict := true, false
	for len(rest) > 0 && rest[0] == '#' {
		line, after, _ := strings.Cut(string(rest), "\n")
		rest = rest[len(rest)-len(after):]
		if first {
			first = false
			pre, post, _ := strings.Cut(Title, "%s")
			server, ok := strings.CutPrefix(line, pre)
			if server, ok2 := strings.CutSuffix(server, post); ok && ok2 && server != "" {
				v.Server = server
				continue
			}
			return v, nil, fmt.Errorf("first line %q: want %q", line, Title)
		}
		key, val, ok := strings.Cut(strings.TrimPrefix(line, "# "), ": ")
		switch {
		case !ok:
			return v, nil, fmt.Errorf("line %q: want # key: value", line)
		case key == "verdict" && (val == "valid" || val == "invalid"):
			v.Valid, verdict = val == "valid", true
		case key == "reason":
			v.Reason = val
		case key == "cause":
			v.Causes = append(v.Causes, val)
		case key == "message":
			v.Message = val
		case key == "unknown":
			v.Unknown = append(v.Unknown, val)
		default:
			return v, nil, fmt.Errorf("line %q: unknown key or verdict", line)
		}
	}
	if first || !verdict {
		return v, nil, fmt.Errorf("no recorded verdict: the file must start with %q and a # verdict: line", Title)
	}
	return v, rest, nil
}
