package emit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode"
	"unicode/utf8"
)

// quotedRef is plainOrQuoted's double-quoted form written one rune at a
// time, as it was before runs of plain ASCII were copied whole.
func quotedRef(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			switch {
			case r == utf8.RuneError:
				b.WriteString(`\uFFFD`)
			case r < 0x20 || r == 0x7f || !unicode.IsPrint(r) && r != ' ':
				if r <= 0xffff {
					fmt.Fprintf(&b, `\u%04X`, r)
				} else {
					fmt.Fprintf(&b, `\U%08X`, r)
				}
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestQuotedRuns: the double-quoted form is the same, rune by rune, for
// tricky and random strings (invalid UTF-8, U+FFFD, controls, non-ASCII).
func TestQuotedRuns(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	cases := []string{"a: b", "x\ny", "tab\there", `q"uo\te`, "\xff\xfe", "\uFFFD", "é: ü", "\u2028 line", "\U0001F600: smile", "ctl\x01\x7f", "end\\"}
	alphabet := []string{"a", " ", ":", "#", "\"", "\\", "\n", "\t", "\r", "\x00", "\x7f", "\xff", "é", "\uFFFD", "\u2028", "\U0001F600", "\u00a0"}
	for range 2000 {
		var b bytes.Buffer
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, ": "+b.String())
	}
	for _, s := range cases {
		e := emitter{buf: new(bytes.Buffer)}
		e.plainOrQuoted(s)
		if got := e.buf.String(); got != s && got != quotedRef(s) {
			t.Fatalf("%q: %s, want %s", s, got, quotedRef(s))
		}
	}
}
