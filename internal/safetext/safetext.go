// Package safetext prints text that came from a repository (names, values, file names,
// lines of a file) into a log that people and CI runners read: what could start a new line,
// move the cursor, recolour the terminal or be read as a workflow command ("::error::", as
// GitHub Actions reads it) is quoted, as %q would, so a template can never forge a line of
// the tool's output.
package safetext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Quote returns s when every rune of it is printable (strconv.IsPrint: no control
// character, newline, escape, bidirectional override or invalid UTF-8) and it holds no
// "::"; otherwise s quoted by strconv.Quote, with every such rune escaped.
func Quote(s string) string {
	if Safe(s) {
		return s
	}
	return strconv.Quote(s)
}

// Safe reports whether Quote returns s unchanged.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += size
	}
	return !strings.Contains(s, "::")
}

// Lines is Quote for each line of a text made of lines that each start with a one-byte
// marker of the tool's own (a unified diff's "+", "-" or " "): the marker stays, the rest is
// quoted when unsafe. The text's final newline stays.
func Lines(text string) string {
	if Safe(strings.ReplaceAll(text, "\n", "")) {
		return text
	}
	var b strings.Builder
	for line := range strings.SplitAfterSeq(text, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		if len(body) > 0 && !Safe(body[1:]) {
			body = body[:1] + strconv.Quote(body[1:])
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
