package resolver

// DidYouMean returns "; did you mean X?" for the candidate nearest to s
// (by edit distance, close enough to be a typo), or "".
func DidYouMean(s string, candidates []string) string { return didYouMean(s, candidates) }
