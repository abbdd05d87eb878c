package sourcetext

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// LooksLikeJSON reports whether src starts like a JSON object or array.
func LooksLikeJSON(src []byte) bool {
	t := bytes.TrimLeft(src, " \t\r\n\xef\xbb\xbf")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// FirstInvalidUTF8 is the offset of the first byte of b that is not valid
// UTF-8 (len(b) when there is none).
func FirstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// LineCol is the line and column (from 1, the column in bytes) of offset
// off in src.
func LineCol(src []byte, off int) (int, int) {
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// YAMLError finds where a yaml.v3 error reading src points: its line and
// column (from 1), and the problem it names without yaml.v3's prefix.
// yaml.v3 gives only a line: for a scanner error the line of the problem
// (or of the quote that opened an unterminated scalar), for a parser error
// that line counted from 0, so one early (the line where the flow
// collection or block it was reading opened, when that is not the first).
// The line is put right here and the column found on it from what the
// message says: one pass over that line.
func YAMLError(src []byte, err error) (line, col int, problem string) {
	msg := err.Error()
	line, problem = 0, strings.TrimPrefix(msg, "yaml: ")
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		problem = m[2]
	}
	if isYAMLParserProblem(problem) {
		line++ // counted from 0
	}
	line = max(line, 1)
	return line, yamlErrorColumn(lineText(src, line), problem), problem
}

// isYAMLParserProblem reports whether problem is one of yaml.v3's parser
// errors (parserc.go), whose line it counts from 0; its scanner's errors
// count from 1.
func isYAMLParserProblem(problem string) bool {
	switch problem {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected '-' indicator",
		"did not find expected <document start>", "did not find expected <stream-start>", "did not find expected key",
		"did not find expected node content", "found duplicate %TAG directive", "found duplicate %YAML directive",
		"found incompatible YAML document", "found undefined tag handle":
		return true
	}
	return false
}

// lineText returns line n (from 1) of src without its line break; nil
// past the end.
func lineText(src []byte, n int) []byte {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return nil
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return bytes.TrimSuffix(src, []byte("\r"))
}

// yamlErrorColumn is the column (from 1) on text that problem points at:
// the flow bracket left open, the colon of a mapping value where none may
// be, the character no token starts with, the quote left open; else the
// first character of the line's content.
func yamlErrorColumn(text []byte, problem string) int {
	col := 0
	switch problem {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'":
		open, close := byte('['), byte(']')
		if strings.HasSuffix(problem, "'}'") {
			open, close = '{', '}'
		}
		var stack []int
		var quote byte
		for i, c := range text {
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == open:
				stack = append(stack, i)
			case c == close && len(stack) > 0:
				stack = stack[:len(stack)-1]
			}
		}
		if len(stack) > 0 {
			col = stack[len(stack)-1] + 1
		}
	case "mapping values are not allowed in this context":
		for i, c := range text {
			if c == ':' && (i+1 == len(text) || text[i+1] == ' ') {
				col = i + 1 // the last such colon
			}
		}
	case "found character that cannot start any token":
		col = bytes.IndexAny(text, "@`\t") + 1
	case "found unexpected end of stream":
		col = bytes.LastIndexAny(text, `"'`) + 1
	}
	if col == 0 {
		col = len(text) - len(bytes.TrimLeft(text, " ")) + 1
	}
	return col
}

// IsJSONNumber reports whether s is a number as JSON writes it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func IsJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// CheckNumber explains why the apiserver could not decode the JSON
// number s, or returns "". It decodes JSON numbers as int64 when they are
// integers and float64 otherwise, refusing what overflows either; an
// integer beyond int64 is an error here even where the apiserver would
// fall back to a (rounded) float64, so no value changes on the way.
func CheckNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return fmt.Sprintf("integer %s does not fit in 64 bits (the apiserver reads integers as int64); write it as a float (%s) if that is what you mean, or quote it", s, floatForm(s))
		}
		return ""
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return fmt.Sprintf("%s is out of range for a 64-bit float (the apiserver reads numbers as float64)", s)
	}
	return ""
}

// floatForm writes s as a float in exponent form.
func floatForm(s string) string {
	f, _ := strconv.ParseFloat(s, 64)
	return strconv.FormatFloat(f, 'e', -1, 64)
}

// OutOfRange reports whether a plain YAML scalar is written as a number
// that does not fit in 64 bits.
func OutOfRange(s string) bool {
	if s == "" || !strings.ContainsAny(s[:1], "+-.0123456789") {
		return false
	}
	t := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(t, 0, 64); errors.Is(err, strconv.ErrRange) {
		return true
	}
	_, err := strconv.ParseFloat(t, 64)
	return errors.Is(err, strconv.ErrRange)
}
