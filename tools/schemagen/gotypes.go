package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// goReport is what reading the Go declarations added to a release's definitions.
type goReport struct {
	Objects     map[string]bundlefmt.Object // property-less objects, by position
	Constraints map[string]int              // keyword -> how many were imported
	Skipped     map[string]int              // reason -> how many markers were left out
	Notes       []string                    // markers left out for a reason worth reading
}

// log prints the report's counts and notes.
func (r *goReport) log(w io.Writer) {
	if r == nil {
		return
	}
	kinds := map[string]int{}
	for _, o := range r.Objects {
		kinds[o.Kind]++
	}
	fmt.Fprintf(w, "  Go types: %d property-less objects (%d %s, %d %s); constraints %s; left out %s\n",
		len(r.Objects), kinds[bundlefmt.ObjectEmpty], bundlefmt.ObjectEmpty, kinds[bundlefmt.ObjectArbitrary], bundlefmt.ObjectArbitrary,
		countList(r.Constraints), countList(r.Skipped))
	for _, n := range r.Notes {
		fmt.Fprintf(w, "    note: %s\n", n)
	}
}

func countList(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// classifyObject decides what a property-less object definition holds, from its Go
// declaration: an empty struct (nothing to keep; the apiserver prunes what is written under
// it) or arbitrary JSON (its JSON form is not its fields: a custom UnmarshalJSON/MarshalJSON,
// an OpenAPISchemaType of its own, or a non-struct underlying type).
func (s *goSource) classifyObject(t *goType) (kind, why string, err error) {
	for depth := 0; depth < 8; depth++ {
		m := t.pkg.methods[t.name]
		switch {
		case m["UnmarshalJSON"] && m["MarshalJSON"]:
			return bundlefmt.ObjectArbitrary, "MarshalJSON and UnmarshalJSON of its own", nil
		case m["UnmarshalJSON"]:
			return bundlefmt.ObjectArbitrary, "UnmarshalJSON of its own", nil
		case m["MarshalJSON"]:
			return bundlefmt.ObjectArbitrary, "MarshalJSON of its own", nil
		case m["OpenAPISchemaType"]:
			return bundlefmt.ObjectArbitrary, "OpenAPISchemaType of its own", nil
		}
		switch u := t.spec.Type.(type) {
		case *ast.StructType:
			fs, err := s.fields(t)
			if err != nil {
				return "", "", err
			}
			if len(fs) == 0 {
				if len(u.Fields.List) == 0 {
					return bundlefmt.ObjectEmpty, "struct{}", nil
				}
				return bundlefmt.ObjectEmpty, "struct without JSON fields", nil
			}
			var names []string
			for _, f := range fs {
				names = append(names, f.json)
			}
			return "", "", fmt.Errorf("%s: the swagger definition has no properties, but the struct has JSON fields %s", s.pos(t), strings.Join(names, ", "))
		case *ast.Ident, *ast.SelectorExpr:
			next, err := s.resolve(u, t)
			if err != nil {
				return "", "", err
			}
			if next == nil {
				return bundlefmt.ObjectArbitrary, "underlying type " + exprString(u), nil
			}
			t = next
		default:
			return bundlefmt.ObjectArbitrary, "underlying type " + exprString(u) + ", not a struct", nil
		}
	}
	return "", "", fmt.Errorf("%s: type definition chain too long", s.pos(t))
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.ArrayType:
		if e.Len == nil {
			return "[]" + exprString(e.Elt)
		}
		return "[...]" + exprString(e.Elt)
	case *ast.MapType:
		return "map[" + exprString(e.Key) + "]" + exprString(e.Value)
	case *ast.InterfaceType:
		return "interface{}"
	}
	return fmt.Sprintf("%T", e)
}

// A marker is one validation rule a comment declares, after its wrappers were taken off.
type marker struct {
	name  string // "minimum", "maxItems", "format", "enum", "required", ...
	value string // unquoted
	each  bool   // +k8s:eachVal: applies to every list item or map value
	text  string // the comment, for messages
}

// markerSkip names the reason each left-out marker kind is not imported; docs/versions.md
// ("Validation from the Go types") and schemas/doc.go list the same.
var markerSkip = map[string]string{
	"alpha":              "alpha declarative validation: run shadowed, never enforced",
	"ifEnabled":          "feature-gated",
	"ifDisabled":         "feature-gated",
	"immutable":          "transition rule (a template must stay editable)",
	"update":             "transition rule (a template must stay editable)",
	"monotonic":          "transition rule (a template must stay editable)",
	"eachKey":            "map keys: a structural schema cannot constrain them",
	"subfield":           "applies to one use of a shared definition",
	"item":               "selects list items by value: not expressible",
	"ifMode":             "depends on another field (union mode)",
	"dependentRequired":  "cross-field",
	"dependentForbidden": "cross-field",
	"unionMember":        "union: cross-field",
	"unionDiscriminator": "union: cross-field",
	"modeDiscriminator":  "union: cross-field",
	"zeroOrOneOfMember":  "union: cross-field",
	"maxBytes":           "byte length: maxLength counts characters, a different rule",
	"neq":                "not a JSON Schema keyword (would need not/enum)",
}

// valueMarkers are the kinds imported, each a JSON Schema keyword ("required" and "enum" are
// translated; see applyMarkers).
var valueMarkers = map[string]bool{
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minItems": true, "maxItems": true, "minLength": true, "maxLength": true,
	"format": true, "pattern": true, "enum": true, "required": true,
}

// kubebuilderKeys maps +kubebuilder:validation: markers to keywords.
var kubebuilderKeys = map[string]string{
	"Minimum": "minimum", "Maximum": "maximum", "ExclusiveMinimum": "exclusiveMinimum",
	"ExclusiveMaximum": "exclusiveMaximum", "MinItems": "minItems", "MaxItems": "maxItems",
	"MinLength": "minLength", "MaxLength": "maxLength", "Format": "format", "Pattern": "pattern",
	"Enum": "enumList", "Required": "present",
}

var markerName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*`)

// parseMarkers reads the validation markers of a comment. Wrappers are taken off: beta
// (enforced by default since 1.36, and by the hand-written validation it mirrors before),
// eachVal. Kinds in markerSkip are counted in skipped.
func parseMarkers(doc *ast.CommentGroup, skipped map[string]int) []marker {
	if doc == nil {
		return nil
	}
	var out []marker
	for _, c := range doc.List {
		line := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
		if rest, ok := strings.CutPrefix(line, "+kubebuilder:validation:"); ok {
			name, value, _ := strings.Cut(rest, "=")
			if key, ok := kubebuilderKeys[name]; ok {
				out = append(out, marker{name: key, value: unquoteMarker(value), text: line})
			}
			continue
		}
		if m, ok := parseK8sMarker(line, false, skipped); ok {
			m.text = line
			out = append(out, m)
		}
	}
	return out
}

func parseK8sMarker(s string, each bool, skipped map[string]int) (marker, bool) {
	rest, ok := strings.CutPrefix(s, "+k8s:")
	if !ok {
		return marker{}, false
	}
	name := markerName.FindString(rest)
	rest = rest[len(name):]
	if strings.HasPrefix(rest, "(") {
		depth, i := 0, 0
		for ; i < len(rest); i++ {
			if rest[i] == '(' {
				depth++
			} else if rest[i] == ')' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if i == len(rest) {
			return marker{}, false
		}
		rest = rest[i+1:]
	}
	value, _ := strings.CutPrefix(rest, "=")
	switch {
	case name == "beta":
		return parseK8sMarker(value, each, skipped)
	case name == "eachVal":
		return parseK8sMarker(value, true, skipped)
	case markerSkip[name] != "":
		skipped[name]++
		return marker{}, false
	case valueMarkers[name]:
		return marker{name: name, value: unquoteMarker(value), each: each}, true
	}
	return marker{}, false
}

func unquoteMarker(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '`') && v[len(v)-1] == v[0] {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
	}
	return v
}

// target is one schema position a Go type expression maps to.
type target struct {
	node    map[string]any // the swagger schema there
	expr    ast.Expr       // the Go type there
	from    *goType        // resolves the names in expr
	pointer bool
	field   bool // a struct field (optional unless required), not a list item or map value
}

// elem returns the position of the list items or map values of t (through a pointer), or
// false when t is neither or the swagger and Go shapes do not line up.
func (t target) elem() (target, bool) {
	e := t.expr
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	var child map[string]any
	var elem ast.Expr
	switch g := e.(type) {
	case *ast.ArrayType:
		child, _ = t.node["items"].(map[string]any)
		elem = g.Elt
	case *ast.MapType:
		child, _ = t.node["additionalProperties"].(map[string]any)
		elem = g.Value
	}
	if child == nil || elem == nil {
		return target{}, false
	}
	_, ptr := elem.(*ast.StarExpr)
	return target{node: child, expr: elem, from: t.from, pointer: ptr}, true
}

// goAnnotate adds to the definitions what their Go declarations say: the classification of
// every property-less object (and of an object whose Go type marshals itself, whatever
// properties the swagger lists), and the value constraints of the validation markers.
func goAnnotate(s *goSource, minor int, defs map[string]map[string]any) (*goReport, error) {
	rep := &goReport{Objects: map[string]bundlefmt.Object{}, Constraints: map[string]int{}, Skipped: map[string]int{}}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		def := defs[name]
		if bundlefmt.IsPropertyless(def) {
			t, err := s.definitionType(name)
			if err != nil {
				return nil, err
			}
			kind, why, err := s.classifyObject(t)
			if err != nil {
				return nil, fmt.Errorf("definition %s: %w", name, err)
			}
			rep.Objects[name] = bundlefmt.Object{Kind: kind, Decl: s.pos(t), Why: why}
			markObject(def, kind)
			continue
		}
		props, _ := def["properties"].(map[string]any)
		if len(props) == 0 {
			continue
		}
		t, err := s.definitionType(name)
		if err != nil {
			return nil, err
		}
		if m := t.pkg.methods[t.name]; (m["UnmarshalJSON"] || m["MarshalJSON"]) && (def["type"] == nil || def["type"] == "object") {
			// The swagger lists the struct's fields, but the type marshals itself: its JSON
			// is not those fields (runtime.RawExtension before 1.16, "Raw" in the swagger).
			kind, why, err := s.classifyObject(t)
			if err != nil {
				return nil, fmt.Errorf("definition %s: %w", name, err)
			}
			why += "; the swagger's properties " + strings.Join(slices.Sorted(maps.Keys(props)), ", ") + " are not its JSON"
			rep.Objects[name] = bundlefmt.Object{Kind: kind, Decl: s.pos(t), Why: why}
			delete(def, "properties")
			delete(def, "required")
			markObject(def, kind)
			continue
		}
		fields, err := s.fields(t)
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			node, ok := props[f.json].(map[string]any)
			if !ok {
				continue
			}
			_, ptr := f.field.Type.(*ast.StarExpr)
			tg := target{node: node, expr: f.field.Type, from: f.owner, pointer: ptr, field: true}
			where := name + ".properties." + f.json
			if err := s.annotateField(rep, minor, where, tg, parseMarkers(f.field.Doc, rep.Skipped)); err != nil {
				return nil, err
			}
		}
	}
	return rep, nil
}

// markObject writes the classification into the definition: arbitrary JSON keeps unknown
// fields; an empty struct is an object with no properties, which the apiserver prunes.
func markObject(def map[string]any, kind string) {
	switch kind {
	case bundlefmt.ObjectArbitrary:
		def[bundlefmt.PreserveUnknownFields] = true
	case bundlefmt.ObjectEmpty:
		def["type"] = "object"
	}
}

// annotateField applies the markers of one field, and the type-level markers of the named
// types its value (or its items or map values) has.
func (s *goSource) annotateField(rep *goReport, minor int, where string, tg target, ms []marker) error {
	var own, each []marker
	for _, m := range ms {
		if m.each {
			each = append(each, m)
		} else {
			own = append(own, m)
		}
	}
	typeMarkers, named, err := s.typeMarkers(tg, rep)
	if err != nil {
		return err
	}
	s.applyMarkers(rep, minor, where, tg, append(typeMarkers, own...), named)
	if el, ok := tg.elem(); ok {
		elMarkers, elNamed, err := s.typeMarkers(el, rep)
		if err != nil {
			return err
		}
		s.applyMarkers(rep, minor, where+"[*]", el, append(elMarkers, each...), elNamed)
	} else if len(each) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s: not a list or map in the swagger; left out", where, each[0].text))
	}
	return nil
}

// typeMarkers returns the markers declared on the named non-struct type of a position (a
// string or integer type such as a +k8s:enum), and that type.
func (s *goSource) typeMarkers(tg target, rep *goReport) ([]marker, *goType, error) {
	switch e := tg.expr.(type) {
	case *ast.StarExpr:
		tg.expr = e.X
		return s.typeMarkers(tg, rep)
	case *ast.Ident, *ast.SelectorExpr:
		t, err := s.resolve(e, tg.from)
		if err != nil || t == nil {
			return nil, nil, err
		}
		if _, isStruct := t.spec.Type.(*ast.StructType); isStruct {
			return nil, nil, nil
		}
		return parseMarkers(t.doc, rep.Skipped), t, nil
	}
	return nil, nil, nil
}

// applyMarkers writes the keywords of markers into the schema at tg, where the swagger's type
// admits them. A marker the schema cannot carry is noted, never guessed at.
func (s *goSource) applyMarkers(rep *goReport, minor int, where string, tg target, ms []marker, named *goType) {
	typ, _ := tg.node["type"].(string)
	if _, ref := tg.node["$ref"]; ref {
		for _, m := range ms {
			if m.name != "required" && m.name != "present" {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s: the property is a $ref; left out", where, m.text))
			}
		}
		return
	}
	// The v3 documents record the zero value ("", 0) as the default of required fields; only
	// a real default (+default="TCP") fills an empty value before validation.
	d, hasDefault := tg.node["default"]
	if hasDefault && (d == "" || d == json.Number("0") || fmt.Sprint(d) == "[]" || fmt.Sprint(d) == "map[]") {
		hasDefault = false
	}
	required := slices.ContainsFunc(ms, func(m marker) bool { return m.name == "required" || m.name == "present" })
	for _, m := range ms {
		key, value := m.name, any(nil)
		switch m.name {
		case "present":
			continue // +kubebuilder:validation:Required: the key must be there (the swagger says so)
		case "required":
			// A required non-pointer string or list must not be empty (+k8s:required checks
			// the zero value), unless Kubernetes defaults it first.
			if tg.pointer || hasDefault {
				continue
			}
			switch typ {
			case "string":
				key, value = "minLength", json.Number("1")
			case "array":
				key, value = "minItems", json.Number("1")
			default:
				continue
			}
		case "minimum", "maximum":
			// A number may be followed by a comment: "+k8s:maximum=1000000000 # Highest...".
			m.value, _, _ = strings.Cut(m.value, " ")
			if typ != "integer" && typ != "number" {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s: not a number in the swagger; left out", where, m.text))
				continue
			}
			n, ok := number(m.value)
			if !ok {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s: not a number; left out", where, m.text))
				continue
			}
			value = n
		case "exclusiveMinimum", "exclusiveMaximum":
			if typ != "integer" && typ != "number" || (m.value != "" && m.value != "true") {
				continue
			}
			value = true
		case "minItems", "maxItems", "minLength", "maxLength":
			m.value, _, _ = strings.Cut(m.value, " ")
			want := "array"
			if strings.HasSuffix(m.name, "Length") {
				want = "string"
			}
			n, ok := number(m.value)
			if typ != want || !ok || strings.ContainsAny(string(n), ".eE-") {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s: swagger type %q; left out", where, m.text, typ))
				continue
			}
			value = n
		case "pattern":
			if typ != "string" {
				continue
			}
			if _, err := regexp.Compile(m.value); err != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s: %v; left out", where, m.text, err))
				continue
			}
			value = m.value
		case "format":
			if typ != "string" {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s: swagger type %q; left out", where, m.text, typ))
				continue
			}
			if !bundlefmt.KnownFormat(minor, typ, m.value) {
				rep.Skipped["format "+m.value+" (unknown to the apiserver of this minor)"]++
				continue
			}
			value = m.value
		case "enum":
			// +k8s:enum on a string type: the values are its constants.
			if named == nil || typ != "string" {
				continue
			}
			vals, ok := s.enumConstants(named)
			if !ok {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s %s: its constants are not all string constants; left out", where, m.text, named.name))
				continue
			}
			value = enumValues(vals, tg.pointer || required)
		case "enumList":
			if typ != "string" {
				continue
			}
			key = "enum"
			value = enumValues(strings.Split(m.value, ";"), true)
		default:
			continue
		}
		if prev, ok := tg.node[key]; ok {
			if fmt.Sprint(prev) != fmt.Sprint(value) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s: the swagger already has %s %v; kept", where, m.text, key, prev))
			}
			continue
		}
		if tg.field && !tg.pointer && !required && rejectsZero(key, value) {
			rep.Skipped[key+" rejecting the unset value \"\" or 0 of an optional field"]++
			continue
		}
		tg.node[key] = value
		rep.Constraints[key]++
	}
}

// enumValues lists the values of an enum, sorted. The zero value "" of an optional
// non-pointer field is allowed too (explicit false): Kubernetes takes it for unset.
func enumValues(vals []string, explicit bool) []any {
	set := map[string]bool{}
	for _, v := range vals {
		set[v] = true
	}
	if !explicit {
		set[""] = true
	}
	out := make([]any, 0, len(set))
	for _, v := range slices.Sorted(maps.Keys(set)) {
		out = append(out, v)
	}
	return out
}

func number(s string) (json.Number, bool) {
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return "", false
	}
	return json.Number(s), true
}

// rejectsZero reports whether a keyword rejects the zero value of its type (0 or "").
func rejectsZero(key string, value any) bool {
	switch key {
	case "minimum":
		f, _ := strconv.ParseFloat(string(value.(json.Number)), 64)
		return f > 0
	case "maximum":
		f, _ := strconv.ParseFloat(string(value.(json.Number)), 64)
		return f < 0
	case "minLength":
		return value.(json.Number) != "0"
	case "format":
		return value != "password" && value != "byte"
	case "pattern":
		return !regexp.MustCompile(value.(string)).MatchString("")
	}
	return false
}
