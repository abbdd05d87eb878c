package crdvalidate

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A fractional number (cpu: 0.5) in an int-or-string field, which every
// quantity is, fails the schema three or four ways at once: the anyOf at
// the object's start, "must be of type integer" and "integer,string" at the
// field, and a note that CEL rules were left unchecked. fractions finds
// these fields so that each is one problem, at the field, saying what to
// write instead; the rest of its errors are left out.

// fractionMessage is the one problem of a fractional number n in an
// int-or-string field.
func fractionMessage(n string) string {
	msg := fmt.Sprintf("Invalid value: %s: an int-or-string field (every resource quantity is one) takes an integer or a string, not a fractional number: write %q", n, n)
	if r, ok := new(big.Rat).SetString(n); ok {
		if m := new(big.Rat).Mul(r, big.NewRat(1000, 1)); m.IsInt() {
			msg += fmt.Sprintf(" or %q", m.Num().String()+"m")
		}
	}
	return msg
}

// fractions returns the fields of errs (apiserver field paths) that hold
// a fractional number in obj and fail as an int-or-string field does.
func fractions(obj map[string]any, errs field.ErrorList) map[string]string {
	out := map[string]string{}
	for _, e := range errs {
		if !strings.Contains(e.Error(), "must be of type integer") {
			continue
		}
		n, ok := valueAt(obj, pointer(e.Field)).(json.Number)
		if !ok {
			continue
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			out[e.Field] = string(n)
		}
	}
	return out
}

// mentions reports whether msg, an error of the whole object, names one of
// the fields.
func mentions(msg string, fields map[string]string) bool {
	for f := range fields {
		if strings.Contains(msg, `"`+f+`"`) || strings.HasSuffix(msg, " in "+f) {
			return true
		}
	}
	return false
}

// valueAt returns the value at the JSON pointer in v, nil when absent.
func valueAt(v any, ptr string) any {
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch t := v.(type) {
		case map[string]any:
			v = t[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil
			}
			v = t[i]
		default:
			return nil
		}
	}
	return v
}
