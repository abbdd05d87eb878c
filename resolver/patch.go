package resolver

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
)

// Patch is a parsed RFC 6902 JSON patch, YAML or JSON, with the position of
// each operation for error messages.
type Patch struct {
	file string
	ops  []patchOp
}

type patchOp struct {
	pos   Position
	op    string
	path  string
	from  string
	value any
}

// ParsePatch reads an RFC 6902 patch: a list of {op, path, value, from}.
func ParsePatch(name string, src []byte) (*Patch, error) {
	docs, err := docread.ParseDocuments(name, src)
	if err != nil {
		return nil, asList(err)
	}
	p := &Patch{file: name}
	if len(docs) == 0 {
		return p, nil
	}
	if len(docs) > 1 {
		return nil, ErrorList{inputError(Position{File: name}, "a JSON patch is one document (a list of operations), not %d", len(docs))}
	}
	d := docs[0]
	list, ok := d.Value.([]any)
	if !ok {
		return nil, ErrorList{inputError(d.Position(""), "a JSON patch is a list of operations, not %s", describeValue(d.Value))}
	}
	var errs ErrorList
	for i, item := range list {
		op, err := parsePatchOp(d, i, item)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.ops = append(p.ops, op)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// parsePatchOp reads operation i of the patch d, item, or returns the
// first thing wrong with it.
func parsePatchOp(d *document, i int, item any) (patchOp, *Error) {
	ptr := "/" + itoa(i)
	m, ok := item.(map[string]any)
	if !ok {
		return patchOp{}, inputError(d.Position(ptr), "operation %d is %s, not a mapping", i, describeValue(item))
	}
	op := patchOp{pos: d.Position(ptr)}
	op.op, _ = m["op"].(string)
	op.path, ok = m["path"].(string)
	if !ok {
		return patchOp{}, inputError(op.pos, "operation %d has no path", i)
	}
	if _, err := splitPointer(op.path); err != nil {
		return patchOp{}, &Error{Pos: d.Position(ptr + "/path"), Err: fmt.Errorf("%w: operation %d: %w", ErrInput, i, err)}
	}
	switch op.op {
	case "add", "replace", "test":
		v, ok := m["value"]
		if !ok {
			return patchOp{}, inputError(op.pos, "operation %d (%s) needs a value", i, op.op)
		}
		if at, found := reservedKeyIn(v, ptr+"/value"); found {
			return patchOp{}, &Error{Pos: d.Position(at), Err: errReservedKey}
		}
		op.value = v
	case "remove":
	case "move", "copy":
		op.from, ok = m["from"].(string)
		if !ok {
			return patchOp{}, inputError(op.pos, "operation %d (%s) needs from", i, op.op)
		}
	default:
		return patchOp{}, inputError(d.Position(ptr+"/op"), "operation %d: unknown op %q; want add, remove, replace, move, copy or test", i, op.op)
	}
	return op, nil
}

// apply applies the patch to doc, charging what each operation adds to b
// before it is built. after, if set, is called with the document after
// each operation. doc is never changed: the maps and lists on the way to
// what an operation changes are copied by that operation, without the
// compiler's private keys; everything else stays shared with doc. What
// an operation reads (test, copy, move) is taken as a clean copy. The
// document it returns reads, measures and writes as the clean copy of doc patched
// would.
func (p *Patch) apply(doc any, b *budget, after func(i int, doc any)) (any, error) {
	w := &patcher{}
	for i, op := range p.ops {
		if why := b.Charge(op.growth(doc)); why != "" {
			return nil, &Error{Pos: op.pos, Err: budgetError(fmt.Sprintf("JSON patch operation %d (%s) would bring the compile to %s", i, op.describe(), why))}
		}
		// Inserting into or removing from a list copies it.
		if b.ChargeWork(op.listWork(doc)) {
			return nil, &Error{Pos: op.pos, Err: budgetError(fmt.Sprintf("JSON patch operation %d (%s): the operations so far copy more than the %d list items a %s budget allows", i, op.describe(), 16*b.Values, human(b.Limit)))}
		}
		var err error
		doc, err = w.apply(op, doc)
		if err != nil {
			return nil, &Error{Pos: op.pos, Err: fmt.Errorf("%w: operation %d (%s %s): %w", ErrPatch, i, op.op, op.path, err)}
		}
		if after != nil {
			after(i, doc)
		}
	}
	return doc, nil
}

// describe names the operation for messages: "copy /a to /b", "add /a".
func (op patchOp) describe() string {
	switch op.op {
	case "move", "copy":
		return fmt.Sprintf("%s %s to %s", op.op, op.from, op.path)
	}
	return op.op + " " + op.path
}

// listWork is what op costs on the work meter: one, plus a sixteenth of
// the length of the lists it inserts into or removes from (copying an
// item is cheap, but every insertion or removal copies the whole list:
// charged, a patch's work stays bounded by the budget).
func (op patchOp) listWork(doc any) int64 {
	n := int64(0)
	for _, p := range []string{op.path, op.from} {
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			v, _ := lookupClean(doc, p[:i]) // nil where there is none
			if l, ok := cleanView(v).([]any); ok {
				n += int64(len(l))
			}
		}
	}
	return 1 + n/16
}

// lookupClean is lookupPointer as if over the clean copy of doc: private
// keys are not there. The value it returns is shared: read it through
// cleanCopy.
func lookupClean(doc any, ptr string) (any, error) { return lookupPointerIn(doc, ptr, cleanView) }

// cleanView returns v as the clean copy of doc would hold it, at its top
// level: a map without the private keys (a shallow copy when it has
// any); shared, never to be changed.
func cleanView(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t[bundleDefault]; ok {
			t = maps.Clone(t)
			delete(t, bundleDefault)
		}
		return t
	}
	return v
}

// growth is what op would add to doc: the value it writes (a copy's
// source measured where it is, before anything is copied) and its key.
// remove and test add nothing; a move adds only its new key.
func (op patchOp) growth(doc any) cost {
	key := cost{}
	if toks, _ := splitPointer(op.path); len(toks) > 0 {
		key.Bytes = docread.JSONStringLen(toks[len(toks)-1]) + 2
	}
	m := unlimited()
	switch op.op {
	case "add", "replace":
		return m.measure(op.value).Plus(key)
	case "copy":
		if v, err := lookupClean(doc, op.from); err == nil {
			return m.measure(v).Plus(key)
		}
	case "move":
		return key
	}
	return cost{}
}

// patcher applies operations copy-on-write (see Patch.apply): each
// operation copies the maps and lists on the way to what it changes, so
// the document's other values, shared with the Compiler's resolved
// targets, are never changed.
type patcher struct{}

func (w *patcher) apply(op patchOp, doc any) (any, error) {
	switch op.op {
	case "add":
		return w.addAt(doc, op.path, deepCopy(op.value))
	case "remove":
		doc, _, err := w.removeAt(doc, op.path)
		return doc, err
	case "replace":
		if _, err := lookupClean(doc, op.path); err != nil {
			return nil, err
		}
		doc, _, err := w.removeAt(doc, op.path)
		if err != nil {
			return nil, err
		}
		return w.addAt(doc, op.path, deepCopy(op.value))
	case "move":
		if op.path != op.from && strings.HasPrefix(op.path, op.from+"/") {
			return nil, fmt.Errorf("cannot move %s into itself", op.from)
		}
		doc, v, err := w.removeAt(doc, op.from)
		if err != nil {
			return nil, err
		}
		return w.addAt(doc, op.path, cleanCopy(v))
	case "copy":
		v, err := lookupClean(doc, op.from)
		if err != nil {
			return nil, err
		}
		return w.addAt(doc, op.path, cleanCopy(v))
	case "test":
		v, err := lookupClean(doc, op.path)
		if err != nil {
			return nil, err
		}
		if v = cleanCopy(v); !reflect.DeepEqual(v, op.value) {
			return nil, fmt.Errorf("test failed: the value is %v", v)
		}
		return doc, nil
	}
	return nil, fmt.Errorf("unknown op %q", op.op)
}

// own returns a copy of v's top level (a map without the private keys)
// that the operation may change. Scalars and empty lists are returned as
// they are.
func (w *patcher) own(v any) any {
	switch t := v.(type) {
	case map[string]any:
		t = maps.Clone(t)
		if t == nil {
			t = map[string]any{}
		}
		delete(t, bundleDefault)
		return t
	case []any:
		if len(t) == 0 {
			return t
		}
		return slices.Clone(t)
	default:
		return t
	}
}

// ownPath makes every map and list from the root of doc down to toks
// (which lookupClean found) the patch's own; it returns the new root and
// the value at toks.
func (w *patcher) ownPath(doc any, toks []string) (root, at any) {
	root = w.own(doc)
	at = root
	for _, tok := range toks {
		switch t := at.(type) {
		case map[string]any:
			next := w.own(t[tok])
			t[tok], at = next, next
		case []any:
			i, _ := parseIndex(tok, len(t))
			next := w.own(t[i])
			t[i], at = next, next
		}
	}
	return root, at
}

// parent finds the parent of path (as lookupClean reports it) and makes
// the way to it the patch's own: the new root, the parent, its pointer
// tokens and the last token.
func (w *patcher) parent(doc any, path string) (root, pv any, toks []string, tok string, err error) {
	toks, err = splitPointer(path)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if len(toks) == 0 {
		return doc, nil, nil, "", nil
	}
	if _, err := lookupClean(doc, path[:strings.LastIndexByte(path, '/')]); err != nil {
		return nil, nil, nil, "", err
	}
	root, pv = w.ownPath(doc, toks[:len(toks)-1])
	return root, pv, toks[:len(toks)-1], toks[len(toks)-1], nil
}

// setList puts the patch's new list l at toks (its parent's, owned).
func (w *patcher) setList(root any, toks []string, l []any) any {
	if len(toks) == 0 {
		return l
	}
	root, gp := w.ownPath(root, toks[:len(toks)-1])
	switch t := gp.(type) {
	case map[string]any:
		t[toks[len(toks)-1]] = l
	case []any:
		i, _ := parseIndex(toks[len(toks)-1], len(t))
		t[i] = l
	}
	return root
}

func (w *patcher) addAt(doc any, path string, v any) (any, error) {
	if path == "" {
		return v, nil
	}
	doc, pv, toks, tok, err := w.parent(doc, path)
	if err != nil {
		return nil, err
	}
	switch t := pv.(type) {
	case map[string]any:
		t[tok] = v
	case []any:
		i := len(t)
		if tok != "-" {
			if i, err = parseIndex(tok, len(t)+1); err != nil {
				return nil, err
			}
		}
		list := make([]any, 0, len(t)+1)
		list = append(append(append(list, t[:i]...), v), t[i:]...)
		return w.setList(doc, toks, list), nil
	default:
		return nil, fmt.Errorf("cannot add to %s", describeValue(pv))
	}
	return doc, nil
}

func (w *patcher) removeAt(doc any, path string) (any, any, error) {
	if path == "" {
		return nil, doc, nil
	}
	doc, pv, toks, tok, err := w.parent(doc, path)
	if err != nil {
		return nil, nil, err
	}
	switch t := pv.(type) {
	case map[string]any:
		v, ok := t[tok]
		if !ok {
			return nil, nil, &hinted{err: fmt.Errorf("no key %q to remove", tok), suggest: func() string { return suggest.DidYouMean(tok, sortedKeys(t)) }}
		}
		delete(t, tok)
		return doc, v, nil
	case []any:
		i, err := parseIndex(tok, len(t))
		if err != nil {
			return nil, nil, err
		}
		v := t[i]
		list := make([]any, 0, len(t)-1)
		list = append(append(list, t[:i]...), t[i+1:]...)
		return w.setList(doc, toks, list), v, nil
	}
	return nil, nil, fmt.Errorf("cannot remove from %s", describeValue(pv))
}
