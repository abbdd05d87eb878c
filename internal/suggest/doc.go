// Package suggest finds, among the names something could have been, the
// one a misspelt name most likely meant: the "; did you mean X?" every
// error about an unknown name ends with (a $ref's definition, a CRD
// field, a file, a configuration key, a command).
//
// # Distance
//
// Names are compared case-insensitively by Levenshtein distance, and a
// candidate counts only when it is within half the name's length plus
// one: further than that it is a different name, not a typo. The search
// gives up on a candidate as soon as it cannot beat the best so far, so
// it is linear in the candidates for names of bounded length.
package suggest
