package resolver

import (
	"math/rand/v2"
	"testing"
)

// TestSWARRuns: stringRun finds what a byte-at-a-time
// loop finds, from every start, in strings built of the bytes they look
// for, their neighbours and every other byte value, at every alignment.
func TestSWARRuns(t *testing.T) {
	naiveString := func(s string, i int) int {
		for ; i < len(s); i++ {
			if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
				return i
			}
		}
		return i
	}
	alphabet := []byte("\"\\<>&!#=?[]{} az09\x00\x01\x1f\x20\x21\x7f\x80\xbf\xc3\xe2\xff")
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 3000; n++ {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else if rng.IntN(8) == 0 {
				b[i] = byte(rng.IntN(256))
			} else {
				b[i] = 'a' + byte(rng.IntN(26))
			}
		}
		s := string(b)
		for i := 0; i <= len(s); i++ {
			if got, want := stringRun(s, i), naiveString(s, i); got != want {
				t.Fatalf("stringRun(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}
