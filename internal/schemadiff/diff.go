package schemadiff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Kind is what changed. The JSON form of a Report uses these strings; they are never renamed.
type Kind string

// Change kinds.
const (
	PropertyAdded         Kind = "property-added"
	PropertyRemoved       Kind = "property-removed"
	TypeChanged           Kind = "type-changed"
	RequiredAdded         Kind = "required-added"
	RequiredRemoved       Kind = "required-removed"
	ConstraintTightened   Kind = "constraint-tightened"
	ConstraintLoosened    Kind = "constraint-loosened"
	DefaultChanged        Kind = "default-changed"
	ListTypeChanged       Kind = "list-type-changed"
	ListMapKeysChanged    Kind = "list-map-keys-changed"
	MapTypeChanged        Kind = "map-type-changed"
	PreserveUnknownChange Kind = "preserve-unknown-changed"
	IntOrStringChanged    Kind = "int-or-string-changed"
	CRDAdded              Kind = "crd-added"
	CRDRemoved            Kind = "crd-removed"
	VersionAdded          Kind = "version-added"
	VersionRemoved        Kind = "version-removed"
	RuleMessageChanged    Kind = "rule-message-changed"
)

// Change is one difference at one schema path.
type Change struct {
	// CRD is the CRD's metadata.name; Version the name of its version.
	CRD     string `json:"crd"`
	Version string `json:"version"`
	// Path is the schema path: ".spec.foo", "[*]" for list items, "{*}" for map values; ""
	// is the root (and a whole CRD or version).
	Path string `json:"path"`
	// Field is the CRD field of a change outside the schemas ("spec.scope",
	// "spec.versions[v1].served"); "" for schema changes.
	Field string `json:"field,omitempty"`
	Kind  Kind   `json:"kind"`
	// Keyword is the schema keyword that changed (maxLength, enum, ...), when one did.
	Keyword string `json:"keyword,omitempty"`
	// Breaking is true when an object stored under the old schema may be read with data lost,
	// or be rejected on update; when the apiserver refuses the update of the CRD itself; when
	// clients that worked lose an endpoint, a name or a selector; and for an UnhandledChange.
	Breaking bool `json:"breaking"`
	// Ratcheted is true for a breaking change that the target minor tolerates on updates
	// that leave the offending value unchanged: validation ratcheting (on by default from
	// Kubernetes 1.30), or the list-type check's own skip (every minor).
	Ratcheted bool `json:"ratcheted,omitempty"`
	// NotKeptBy is the target minor when it does not keep what changed (a keyword, a
	// rule's field, selectableFields): its apiserver drops it or refuses the CRD, so the
	// change affects no stored object there and is compatible.
	NotKeptBy string `json:"notKeptBy,omitempty"`
	// Reason is one sentence saying why the change is breaking or compatible.
	Reason string `json:"reason"`
	// Old and New are the keyword's values (nil: absent).
	Old any `json:"old,omitempty"`
	New any `json:"new,omitempty"`
	// Files are the output files the change was found in (project comparisons only).
	Files []string `json:"files,omitempty"`

	parent, name string // of a property or required change: the object's path, the field's name
}

// Report is the result of a comparison, and its JSON form.
type Report struct {
	// Changes are sorted by CRD, version, path, kind and keyword.
	Changes             []Change `json:"changes"`
	Breaking            int      `json:"breaking"`
	Compatible          int      `json:"compatible"`
	DescriptionsChanged int      `json:"descriptionsChanged"`

	descs map[[2]string]int // descriptions changed per CRD and version
	rules *Rules            // the target's update rules (nil: the newest minor's)
}

// Empty reports whether nothing differs, descriptions included.
func (r *Report) Empty() bool { return len(r.Changes) == 0 && r.DescriptionsChanged == 0 }

// Add appends the changes and counts of o.
func (r *Report) Add(o *Report) {
	r.Changes = append(r.Changes, o.Changes...)
	r.Breaking += o.Breaking
	r.Compatible += o.Compatible
	r.DescriptionsChanged += o.DescriptionsChanged
	if r.descs == nil {
		r.descs = map[[2]string]int{}
	}
	for k, n := range o.descs {
		r.descs[k] += n
	}
}

// Compare compares the CRDs of old with those of new, matched by name and version, with the
// newest embedded minor's update rules.
func Compare(old, new []*CRD) *Report { return CompareFor(old, new, nil) }

// CompareFor is Compare with the update rules of a target minor (nil: the newest's): a
// change of what the target drops from a CRD is compatible, and without validation
// ratcheting no change is Ratcheted but those the list-type check skips on its own.
func CompareFor(old, new []*CRD, rules *Rules) *Report {
	r := &Report{Changes: []Change{}, descs: map[[2]string]int{}, rules: rules}
	byName := func(cs []*CRD) map[string]*CRD {
		m := map[string]*CRD{}
		for _, c := range cs {
			m[c.Name] = c
		}
		return m
	}
	om, nm := byName(old), byName(new)
	names := slices.Sorted(maps.Keys(om))
	for n := range nm {
		if om[n] == nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		o, n := om[name], nm[name]
		switch {
		case n == nil:
			r.add(Change{CRD: name, Kind: CRDRemoved, Breaking: true,
				Reason: "the new set has no such CRD: once it is deleted from a cluster, every stored object of it is deleted too"})
		case o == nil:
			r.add(Change{CRD: name, Kind: CRDAdded, Reason: "a new CRD: no object of it is stored yet"})
		default:
			r.crdLevel(o, n)
			compareVersions(r, o, n)
		}
	}
	r.sort()
	return r
}

func compareVersions(r *Report, o, n *CRD) {
	vs := slices.Sorted(maps.Keys(o.Versions))
	for v := range n.Versions {
		if _, ok := o.Versions[v]; !ok {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	for _, v := range vs {
		os, inOld := o.Versions[v]
		ns, inNew := n.Versions[v]
		switch {
		case !inNew:
			reason := "the version is gone: objects stored in it can no longer be decoded, and clients asking for it get 404"
			if slices.Contains(o.StoredVersions, v) {
				reason += "; status.storedVersions lists it, so the apiserver refuses the update until a storage migration removes it there"
			}
			r.add(Change{CRD: o.Name, Version: v, Kind: VersionRemoved, Breaking: true, Reason: reason})
		case !inOld:
			r.add(Change{CRD: o.Name, Version: v, Kind: VersionAdded, Reason: "a new version: no client uses it yet"})
		default:
			r.versionLevel(o, n, v)
			w := walker{r: r, crd: o.Name, version: v}
			w.node("", os, ns)
		}
	}
}

func (r *Report) add(c Change) {
	if c.Breaking {
		r.Breaking++
	} else {
		r.Compatible++
	}
	r.Changes = append(r.Changes, c)
}

func (r *Report) sort() {
	slices.SortStableFunc(r.Changes, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.CRD, b.CRD), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Field, b.Field), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Keyword, b.Keyword))
	})
}

// walker compares one version's schemas.
type walker struct {
	r            *Report
	crd, version string
	// mapListItems maps the item path of each list that became a map list (or changed
	// its keys) to the new keys: an item missing one cannot be matched to the stored
	// item, so the new required on it is not ratcheted.
	mapListItems map[string][]any
}

// keyOfNewMapList reports whether name is a key of the map list whose items are at path,
// as the new schema made it.
func (w *walker) keyOfNewMapList(path, name string) bool {
	return slices.Contains(w.mapListItems[path], any(name))
}

func (w *walker) add(path string, kind Kind, keyword string, breaking bool, reason string, old, new any) {
	why, dropped := w.r.rules.drops(keyword)
	if dropped {
		breaking, reason = false, why
	}
	w.r.add(Change{CRD: w.crd, Version: w.version, Path: path, Kind: kind, Keyword: keyword, Breaking: breaking,
		Reason: reason, Old: old, New: new})
	if dropped {
		w.r.notKept()
	}
}

// field is add for a change about one field of the object at parent.
func (w *walker) field(parent, name string, kind Kind, keyword string, breaking bool, reason string, old, new any) {
	w.add(parent+"."+name, kind, keyword, breaking, reason, old, new)
	c := &w.r.Changes[len(w.r.Changes)-1]
	c.parent, c.name = parent, name
}

// ratcheted is add for a breaking change validation ratcheting tolerates on unchanged
// values (see ratchet).
func (w *walker) ratcheted(path string, kind Kind, keyword, reason string, old, new any) {
	w.add(path, kind, keyword, true, reason, old, new)
	w.ratchet()
}

// ratchet marks the last change, when breaking, as one validation ratcheting softens where
// the target ratchets; for a target without ratcheting it stays unmarked, and its reason
// says that updates leaving the value unchanged fail too (in place of ratchetNote).
func (w *walker) ratchet() {
	c := &w.r.Changes[len(w.r.Changes)-1]
	switch {
	case !c.Breaking:
	case w.r.rules.ratchets():
		c.Ratcheted = true
	default:
		c.Reason = strings.TrimSuffix(c.Reason, ratchetNote) + w.r.rules.noRatchetNote()
	}
}

// listRatcheted is add for a breaking change the list-type check tolerates on its own: it
// is skipped on the update of an object whose stored list already breaks it, in every
// minor with list types, validation ratcheting or not (the custom resource strategy's
// ValidateUpdate).
func (w *walker) listRatcheted(path string, kind Kind, keyword, reason string, old, new any) {
	w.add(path, kind, keyword, true, reason, old, new)
	c := &w.r.Changes[len(w.r.Changes)-1]
	c.Ratcheted = c.Breaking
}

func (w *walker) node(path string, o, n map[string]any) {
	if o == nil || n == nil {
		return
	}
	if !sameKeywords(o, n) {
		if !same(o["description"], n["description"]) {
			w.r.DescriptionsChanged++
			w.r.descs[[2]string{w.crd, w.version}]++
		}
		w.structure(path, o, n)
		w.constraints(path, o, n)
		w.required(path, o, n)
		w.defaults(path, o, n)
		w.unhandled(path, o, n)
	}
	w.properties(path, o, n)
	if oi, ok := o["items"].(map[string]any); ok {
		w.node(path+"[*]", oi, asMap(n["items"]))
	}
	if oa, ok := o["additionalProperties"].(map[string]any); ok {
		w.node(path+"{*}", oa, asMap(n["additionalProperties"]))
	}
}

// sameKeywords is the fast path of node: whether o and n hold the same keywords with the
// same values, the subschemas below aside (most nodes of a comparison are unchanged).
func sameKeywords(o, n map[string]any) bool {
	if len(o) != len(n) {
		return false
	}
	for k, ov := range o {
		nv, ok := n[k]
		if !ok {
			return false
		}
		switch k {
		case "properties", "items", "additionalProperties":
			continue
		}
		if !same(ov, nv) {
			return false
		}
	}
	return true
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func flag(s map[string]any, key string) bool { b, _ := s[key].(bool); return b }

func str(s map[string]any, key string) string { v, _ := s[key].(string); return v }

// structure: type, int-or-string, preserve-unknown-fields, list and map types.
func (w *walker) structure(path string, o, n map[string]any) {
	oIOS, nIOS := flag(o, "x-kubernetes-int-or-string"), flag(n, "x-kubernetes-int-or-string")
	switch {
	case oIOS && !nIOS:
		w.ratcheted(path, IntOrStringChanged, "x-kubernetes-int-or-string",
			"the field took an integer or a string and now takes only "+orAny(str(n, "type"))+": a stored value of the other kind is rejected on update",
			true, nil)
	case !oIOS && nIOS:
		w.add(path, IntOrStringChanged, "x-kubernetes-int-or-string", false,
			"the field now takes an integer or a string, which includes every value it took before", nil, true)
	}
	if ot, nt := str(o, "type"), str(n, "type"); ot != nt && oIOS == nIOS {
		switch {
		case ot == "integer" && nt == "number":
			w.add(path, TypeChanged, "type", false, "every integer is a number: stored values stay valid", ot, nt)
		case nt == "":
			w.add(path, TypeChanged, "type", false, "the field no longer restricts its type: stored values stay valid", ot, nil)
		default:
			w.ratcheted(path, TypeChanged, "type", "a stored "+orAny(ot)+" is not "+article(nt)+": the object is rejected on update, and clients decoding it into the new type fail", nilIfEmpty(ot), nt)
		}
	}
	oP, nP := flag(o, "x-kubernetes-preserve-unknown-fields"), flag(n, "x-kubernetes-preserve-unknown-fields")
	switch {
	case oP && !nP:
		w.add(path, PreserveUnknownChange, "x-kubernetes-preserve-unknown-fields", true,
			"fields the schema does not list were kept and are now pruned, on every read from etcd and every write: stored data is lost", true, nil)
	case !oP && nP:
		w.add(path, PreserveUnknownChange, "x-kubernetes-preserve-unknown-fields", false,
			"fields the schema does not list are now kept instead of pruned; nothing stored was kept under the old schema", nil, true)
	}
	// What kube-apiserver v1.37.2 does, measured by integration TestSchemaUpdate: a stored
	// list that already breaks the list-type rule (duplicates) has that check skipped on
	// every update, even one editing the list (ratcheted; only a create fails); an item
	// lacking a key of a map list fails every update, a label-only one too (not ratcheted).
	// Making a list or object atomic adds no validation, but a second field manager's
	// server-side apply that merged before now conflicts, and forced, drops the first
	// manager's values: breaking for objects more than one manager writes.
	if ot, nt := listType(o), listType(n); ot != nt {
		switch nt {
		case "atomic":
			w.add(path, ListTypeChanged, "x-kubernetes-list-type", true,
				"no new validation, but server-side apply now replaces the whole list: another manager's apply that merged items before now conflicts, and forced, drops the items others own", ot, nt)
		case "set":
			w.listRatcheted(path, ListTypeChanged, "x-kubernetes-list-type",
				"a set rejects duplicate items and a stored list may hold some: creating such an object fails, updates pass (the apiserver skips the check when the stored list already breaks it); server-side apply now merges by value", ot, nt)
		default:
			w.listKeys(path, ListTypeChanged, "x-kubernetes-list-type", o, n, ot, nt)
		}
	} else if ot == "map" {
		ok, nk := o["x-kubernetes-list-map-keys"], n["x-kubernetes-list-map-keys"]
		if !same(ok, nk) {
			w.listKeys(path, ListMapKeysChanged, "x-kubernetes-list-map-keys", o, n, ok, nk)
		}
	}
	if om, nm := mapType(o), mapType(n); om != nm {
		if nm == "atomic" {
			w.add(path, MapTypeChanged, "x-kubernetes-map-type", true,
				"no new validation, but server-side apply now replaces the whole object: another manager's apply that merged keys before now conflicts, and forced, drops the keys others own", om, nm)
		} else {
			w.add(path, MapTypeChanged, "x-kubernetes-map-type", false,
				"no new validation; server-side apply now merges the object key by key, each key owned by its manager", om, nm)
		}
	}
}

// listKeys reports a list that becomes a map list, or changes its keys. Items stored
// without one of the new keys make every update of the object fail, a label-only one too
// (the apiserver cannot match them to the stored ones): not ratcheted. When the old items
// already required (or defaulted) every new key, or the new schema defaults it (defaulting
// runs before validation), stored items can only collide on them, which fails a create
// but not an update: ratcheted.
func (w *walker) listKeys(path string, kind Kind, keyword string, o, n map[string]any, old, new any) {
	const merge = "; server-side apply now merges and owns items by key"
	keys, _ := n["x-kubernetes-list-map-keys"].([]any)
	if w.mapListItems == nil {
		w.mapListItems = map[string][]any{}
	}
	w.mapListItems[path+"[*]"] = keys
	oldItems, newItems := asMap(o["items"]), asMap(n["items"])
	for _, k := range keys {
		name, _ := k.(string)
		// A key the new schema defaults is filled in before validation.
		if !fieldAlwaysSet(oldItems, name) && !defaulted(newItems, name) {
			w.add(path, kind, keyword, true,
				"a stored item without the key "+name+" makes every update of the object fail, a label-only one too"+merge, old, new)
			return
		}
	}
	w.listRatcheted(path, kind, keyword,
		"stored items may collide on the keys: creating such an object fails, updates pass (the apiserver skips the check when the stored list already breaks it)"+merge, old, new)
}

// fieldAlwaysSet reports whether every object the item schema accepts has the field:
// required, or given a default.
func fieldAlwaysSet(item map[string]any, name string) bool {
	if item == nil {
		return false
	}
	if req, ok := item["required"].([]any); ok && slices.Contains(req, any(name)) {
		return true
	}
	return defaulted(item, name)
}

// defaulted reports whether the object schema gives the field a default.
func defaulted(obj map[string]any, name string) bool {
	props, _ := obj["properties"].(map[string]any)
	_, ok := asMap(props[name])["default"]
	return ok
}

func article(t string) string {
	if strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}

func orAny(t string) string {
	if t == "" {
		return "any value"
	}
	return t
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// listType is the list type of an array schema ("atomic" when unset) and "" for others.
func listType(s map[string]any) string {
	if lt := str(s, "x-kubernetes-list-type"); lt != "" {
		return lt
	}
	if str(s, "type") == "array" {
		return "atomic"
	}
	return ""
}

// mapType is the map type of an object schema ("granular" when unset) and "" for others.
func mapType(s map[string]any) string {
	if mt := str(s, "x-kubernetes-map-type"); mt != "" {
		return mt
	}
	if str(s, "type") == "object" {
		return "granular"
	}
	return ""
}

// bound is a numeric keyword: lower bounds tighten when they grow, upper ones when they shrink.
type bound struct {
	key   string
	lower bool
}

var bounds = []bound{
	{"minimum", true}, {"maximum", false}, {"minLength", true}, {"maxLength", false},
	{"minItems", true}, {"maxItems", false}, {"minProperties", true}, {"maxProperties", false},
}

const ratchetNote = " (updates that leave the value unchanged pass where validation ratcheting applies, Kubernetes 1.30+)"

func (w *walker) constraints(path string, o, n map[string]any) {
	tight := func(key string, ov, nv any, why string) {
		w.ratcheted(path, ConstraintTightened, key, why+ratchetNote, ov, nv)
	}
	loose := func(key string, ov, nv any) {
		w.add(path, ConstraintLoosened, key, false, "every value the old schema accepted is still accepted", ov, nv)
	}
	for _, b := range bounds {
		ov, oHas := o[b.key]
		nv, nHas := n[b.key]
		of, nf := number(ov), number(nv)
		switch {
		case !oHas && !nHas, oHas && nHas && of == nf:
		case !nHas:
			loose(b.key, ov, nil)
		case !oHas || (b.lower && nf > of) || (!b.lower && nf < of):
			tight(b.key, ov, nv, "a stored value outside the new "+b.key+" is rejected on update")
		default:
			loose(b.key, ov, nv)
		}
	}
	for _, key := range []string{"exclusiveMinimum", "exclusiveMaximum", "uniqueItems"} {
		ob, nb := flag(o, key), flag(n, key)
		switch {
		case !ob && nb:
			tight(key, nil, true, "a stored value the old schema allowed can fail "+key)
		case ob && !nb:
			loose(key, true, nil)
		}
	}
	if ob, nb := flag(o, "x-kubernetes-embedded-resource"), flag(n, "x-kubernetes-embedded-resource"); !ob && nb {
		w.add(path, ConstraintTightened, "x-kubernetes-embedded-resource", true, "the value must now be a Kubernetes object (apiVersion, kind, metadata), which a stored value may not be", nil, true)
	} else if ob && !nb {
		loose("x-kubernetes-embedded-resource", true, nil)
	}
	if ob, nb := flag(o, "nullable"), flag(n, "nullable"); ob && !nb {
		w.add(path, ConstraintTightened, "nullable", true, "a stored null is now pruned on read and write (a null is only kept where nullable is true)", true, nil)
	} else if !ob && nb {
		loose("nullable", nil, true)
	}
	if ov, nv := o["multipleOf"], n["multipleOf"]; !same(ov, nv) {
		of, nf := number(ov), number(nv)
		switch {
		case nv == nil:
			loose("multipleOf", ov, nil)
		case ov != nil && of != 0 && isMultiple(of, nf):
			loose("multipleOf", ov, nv)
		default:
			tight("multipleOf", ov, nv, "a stored value that is not a multiple of the new multipleOf is rejected on update")
		}
	}
	w.enum(path, o, n, tight, loose)
	for _, key := range []string{"pattern", "format"} {
		ov, nv := o[key], n[key]
		switch {
		case same(ov, nv):
		case nv == nil:
			loose(key, ov, nil)
		default:
			tight(key, ov, nv, "a stored string the old "+key+" allowed may not match the new one, and is then rejected on update")
		}
	}
	w.rules(path, o, n)
}

func isMultiple(of, nf float64) bool { q := of / nf; return q == math.Trunc(q) }

func number(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case int32:
		return float64(x)
	case float64:
		return x
	case json.Number:
		f, err := x.Float64()
		if err == nil {
			return f
		}
	}
	return math.NaN()
}

func (w *walker) enum(path string, o, n map[string]any, tight func(string, any, any, string), loose func(string, any, any)) {
	ov, oHas := o["enum"].([]any)
	nv, nHas := n["enum"].([]any)
	if !oHas && !nHas {
		return
	}
	keys := func(vs []any) map[string]bool {
		m := map[string]bool{}
		for _, v := range vs {
			b, _ := json.Marshal(v)
			m[string(b)] = true
		}
		return m
	}
	ok, nk := keys(ov), keys(nv)
	dropped := false
	for k := range ok {
		dropped = dropped || !nk[k]
	}
	switch {
	case oHas && !nHas:
		loose("enum", ov, nil)
	case !oHas || dropped:
		tight("enum", nilIfNil(ov), nv, "a stored value the new enum does not list is rejected on update")
	case len(nk) > len(ok):
		loose("enum", ov, nv)
	}
}

func nilIfNil(v []any) any {
	if v == nil {
		return nil
	}
	return v
}

// rules compares x-kubernetes-validations by rule text; of a rule on both sides, a new
// message is compatible, and any other field of it (reason, fieldPath, optionalOldSelf)
// changed is an UnhandledChange.
func (w *walker) rules(path string, o, n map[string]any) {
	if o["x-kubernetes-validations"] == nil && n["x-kubernetes-validations"] == nil {
		return
	}
	entries := func(s map[string]any) map[string]map[string]any {
		m := map[string]map[string]any{}
		rs, _ := s["x-kubernetes-validations"].([]any)
		for _, r := range rs {
			text := value(asMap(r)["rule"])
			if _, dup := m[text]; !dup {
				m[text] = asMap(r)
			}
		}
		return m
	}
	ot, nt := entries(o), entries(n)
	for _, text := range slices.Sorted(maps.Keys(nt)) {
		ne := nt[text]
		r := ne["rule"]
		oe, ok := ot[text]
		switch {
		case !ok && strings.Contains(fmt.Sprint(r), "oldSelf"):
			w.add(path, ConstraintTightened, "x-kubernetes-validations", true, "a new transition rule (it reads oldSelf, so it is never ratcheted) can reject updates of stored objects", nil, r)
		case !ok:
			w.ratcheted(path, ConstraintTightened, "x-kubernetes-validations", "a new rule can reject a stored value on update"+ratchetNote, nil, r)
		default:
			for _, k := range unionKeys(oe, ne) {
				switch ov, nv := oe[k], ne[k]; {
				case same(ov, nv):
				case k == "message" || k == "messageExpression":
					w.add(path, RuleMessageChanged, "x-kubernetes-validations", false, "only the message of a failing rule ("+value(r)+") changes; the rule accepts what it accepted", map[string]any{k: ov}, map[string]any{k: nv})
				default:
					breaking, why := true, "no rule classifies a change of "+k+" of the rule "+value(r)+": review it by hand (counted as breaking)"
					dropped, notKept := w.r.rules.drops("rule." + k)
					if notKept {
						breaking, why = false, dropped
					}
					w.add(path, UnhandledChange, "x-kubernetes-validations", breaking, why, map[string]any{k: ov}, map[string]any{k: nv})
					if notKept {
						w.r.notKept()
					}
				}
			}
		}
	}
	for _, text := range slices.Sorted(maps.Keys(ot)) {
		if _, ok := nt[text]; !ok {
			w.add(path, ConstraintLoosened, "x-kubernetes-validations", false, "a rule is gone: every value the old schema accepted is still accepted", ot[text]["rule"], nil)
		}
	}
}

func (w *walker) required(path string, o, n map[string]any) {
	if same(o["required"], n["required"]) {
		return
	}
	set := func(s map[string]any) map[string]bool {
		m := map[string]bool{}
		rs, _ := s["required"].([]any)
		for _, r := range rs {
			if name, ok := r.(string); ok {
				m[name] = true
			}
		}
		return m
	}
	or, nr := set(o), set(n)
	for _, name := range slices.Sorted(maps.Keys(nr)) {
		if or[name] {
			continue
		}
		reason := "a stored object without the field is rejected on create, and on any update that changes the object holding it (updates leaving that object unchanged pass: ratcheting applies required per object)"
		if !w.r.rules.ratchets() {
			reason = "a stored object without the field is rejected on create and on every update" + w.r.rules.noRatchetNote()
		}
		w.field(path, name, RequiredAdded, "required", true, reason, nil, name)
		w.r.Changes[len(w.r.Changes)-1].Ratcheted = w.r.rules.ratchets() && !w.keyOfNewMapList(path, name)
	}
	for _, name := range slices.Sorted(maps.Keys(or)) {
		if !nr[name] {
			w.field(path, name, RequiredRemoved, "required", false, "the field may now be left out; stored objects have it or are unaffected", name, nil)
		}
	}
}

func (w *walker) defaults(path string, o, n map[string]any) {
	ov, oHas := o["default"]
	nv, nHas := n["default"]
	switch {
	case oHas == nHas && same(ov, nv):
	case !oHas:
		w.add(path, DefaultChanged, "default", false, "stored objects without the field read with the new default (defaulting applies on every read from etcd); none held a value that becomes invalid", nil, nv)
	case !nHas:
		w.add(path, DefaultChanged, "default", false, "stored objects keep the default written with them; new objects without the field stay without it", ov, nil)
	default:
		w.add(path, DefaultChanged, "default", false, "stored objects keep the value written with them; objects without the field get the new default on read and write", ov, nv)
	}
}

func (w *walker) properties(path string, o, n map[string]any) {
	op, np := asMap(o["properties"]), asMap(n["properties"])
	keepsUnknown := flag(n, "x-kubernetes-preserve-unknown-fields")
	keptUnknown := flag(o, "x-kubernetes-preserve-unknown-fields")
	// Map order is fine: Compare sorts the changes (stably, and no two changes below one
	// node share a path, kind and keyword but through x-kubernetes-validations, added in order).
	for k, os := range op {
		p := path + "." + k
		ns, ok := np[k]
		switch {
		case !ok && keepsUnknown:
			w.field(path, k, PropertyRemoved, "", false, "the parent keeps unknown fields, so stored values stay, unvalidated", nil, nil)
		case !ok:
			w.field(path, k, PropertyRemoved, "", true, "a stored value is pruned on every read from etcd and every write: the data is lost", nil, nil)
		case (asMap(os) == nil || asMap(ns) == nil) && !same(os, ns):
			w.add(p, UnhandledChange, "properties", true, "the property is not a schema on one side: review it by hand (counted as breaking)", os, ns)
		default:
			w.node(p, asMap(os), asMap(ns))
		}
	}
	for k := range np {
		if _, ok := op[k]; ok {
			continue
		}
		if keptUnknown {
			w.field(path, k, PropertyAdded, "", true, "the old schema kept unknown fields, so a stored object may hold a value here that the new schema now validates: a create fails, and an update that changes it"+ratchetNote, nil, nil)
			w.ratchet()
		} else {
			w.field(path, k, PropertyAdded, "", false, "a new field: the old schema pruned it, so no stored object holds a value for it", nil, nil)
		}
	}
}

// same compares two decoded values as JSON: a number is the same whether YAML decoded it
// as an int or JSON as a float64 or json.Number.
func same(a, b any) bool {
	switch a.(type) {
	case nil:
		return b == nil
	case string, bool:
		return a == b
	case []any:
		bs, ok := b.([]any)
		if ok && len(bs) == len(a.([]any)) {
			for i, x := range a.([]any) {
				if !same(x, bs[i]) {
					return false
				}
			}
			return true
		}
	}
	return value(a) == value(b)
}

// value renders a keyword's value for people: JSON, or "(none)" when absent.
func value(v any) string {
	if v == nil {
		return "(none)"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
