package docread

import (
	"fmt"
	"strconv"
)

// ListItems returns the objects of the document d when it is a kind: List
// (apiVersion v1: what kubectl get -o yaml prints for several objects),
// its items in order, and whether it is one. A List whose items are no
// sequence (a mapping, a scalar), or that holds a kind: List, is an error
// (ErrInput) at the place it names, file:line:col and JSON pointer:
// kubectl refuses the one, and nothing reading the outer List would judge
// the inner one's objects. Every reader of Lists (diff, validate, export)
// asks here, so they take and refuse the same ones.
func ListItems(d Decoded) ([]any, bool, error) {
	m, ok := d.Value.(map[string]any)
	if !ok || m["kind"] != "List" || m["apiVersion"] != "v1" {
		return nil, false, nil
	}
	switch items := m["items"].(type) {
	case nil:
		return nil, true, nil
	case []any:
		for i, it := range items {
			if im, _ := it.(map[string]any); im["kind"] == "List" {
				ptr := "/items/" + strconv.Itoa(i)
				return nil, true, &Error{Pos: d.Position(ptr), Pointer: ptr, Err: fmt.Errorf("%w: a kind: List inside a kind: List, whose objects would be judged by nothing; give them as items of the outer List, or as documents of their own", ErrInput)}
			}
		}
		return items, true, nil
	default:
		what := "a scalar"
		if _, ok := items.(map[string]any); ok {
			what = "a mapping"
		}
		return nil, true, &Error{Pos: d.Position("/items"), Pointer: "/items", Err: fmt.Errorf("%w: a kind: List's items are %s, not a sequence of objects (kubectl refuses it); write each object as an item: \"- apiVersion: ...\"", ErrInput, what)}
	}
}
