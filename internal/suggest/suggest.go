package suggest

import (
	"fmt"
	"strings"
)

// DidYouMean returns "; did you mean X?" for the closest candidate by edit
// distance, close enough to be a typo (case aside), or "" when nothing
// is close.
func DidYouMean(s string, cands []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range cands {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c), bestD); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// editDistance is the Levenshtein distance, giving up (returning limit)
// once it cannot be below limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
