package resolver

// Scanning strings eight bytes at a time. A compile with descriptions
// decodes about 1.5 MB of description text for this repository's
// operator set, and the decoder's byte-at-a-time loop over a string
// (jsonDecoder.string) was a tenth of that compile (perf); with stringRun,
// decoding every description of the 1.37 bundle takes 14% less. No
// library of ours scans for a set of bytes like this (bytes.IndexAny
// looks rune by rune), hence the words below. (The measurer's loop,
// jsonStringLen, looks for seven kinds of byte: this way it measured no
// faster than its table, and keeps the table.)

const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// swarWord is the eight bytes of s from i, the first in the low byte
// (the compiler makes it one load).
func swarWord(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// swarHas returns the high bit of each byte of x equal to c; only the
// lowest such byte is sure to be flagged (a borrow may flag the byte
// after one): callers test for zero, then look byte by byte.
func swarHas(x uint64, c byte) uint64 {
	v := x ^ (swarOnes * uint64(c))
	return (v - swarOnes) &^ v & swarHigh
}

// swarBelow flags the bytes of x below n (n <= 0x80), the high bit of
// each; as swarHas, only a test for zero is exact.
func swarBelow(x uint64, n byte) uint64 {
	return (x - swarOnes*uint64(n)) &^ x & swarHigh
}

// stringRun returns the index of the first byte of s from i that ends
// the unescaped run of a JSON string: '"', '\\' or a control character
// (below 0x20); len(s) when there is none.
func stringRun(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := swarWord(s, i)
		if swarHas(x, '"')|swarHas(x, '\\')|swarBelow(x, 0x20) != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}
