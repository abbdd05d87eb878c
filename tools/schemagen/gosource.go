package main

import (
	"fmt"
	"go/ast"
	gobuild "go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// goModule is one Go module whose source the definitions come from.
type goModule struct {
	Path    string // "k8s.io/api"
	Version string // "v0.37.2"
	Sum     string // "h1:...", empty in tests
	Dir     string // its extracted source
	// Label names it in the manifest and in declaration positions; empty means
	// "<Path>@<Version>". Source inside another module (the staging directories of old
	// k8s.io/kubernetes releases) is "k8s.io/kubernetes@v1.12.10/staging/src/k8s.io/api".
	Label string
}

func (m *goModule) label() string {
	if m.Label != "" {
		return m.Label
	}
	return m.Path + "@" + m.Version
}

// goSource indexes the Go declarations behind the swagger definitions of one release. Packages
// are parsed on first use, each file once, honouring build constraints for the default build
// context (so of FieldsV1's two declarations, the one the apiserver is built with is read).
type goSource struct {
	modules []goModule // longest path first, so a prefix match finds the innermost module
	fset    *token.FileSet
	pkgs    map[string]*goPackage // import path -> package; nil entry: no such package
}

func newGoSource(modules []goModule) *goSource {
	mods := slices.Clone(modules)
	slices.SortFunc(mods, func(a, b goModule) int { return len(b.Path) - len(a.Path) })
	return &goSource{modules: mods, fset: token.NewFileSet(), pkgs: map[string]*goPackage{}}
}

// goPackage is one parsed Go package.
type goPackage struct {
	path   string
	mod    *goModule
	prefix string             // its definitions' name prefix, e.g. "io.k8s.api.core.v1"
	types  map[string]*goType // by name
	// methods maps a type name to the names of its methods (value or pointer receiver).
	methods map[string]map[string]bool
	// consts maps a type name to the constants declared with that type, in source order.
	consts      map[string][]*goConst
	constByName map[string]*goConst
}

// goType is one type declaration.
type goType struct {
	name string
	spec *ast.TypeSpec
	doc  *ast.CommentGroup // the TypeSpec's comment, else its GenDecl's
	file *ast.File         // for the imports its fields' types refer through
	pkg  *goPackage
}

// pos is where the declaration is, "module@version/path/file.go:line".
func (s *goSource) pos(t *goType) string {
	p := s.fset.Position(t.spec.Name.Pos())
	rel, err := filepath.Rel(t.pkg.mod.Dir, p.Filename)
	if err != nil {
		rel = filepath.Base(p.Filename)
	}
	return fmt.Sprintf("%s/%s:%d", t.pkg.mod.label(), filepath.ToSlash(rel), p.Line)
}

// definitionType finds the Go declaration of a definition name. The name is the package's
// model prefix (its "+k8s:openapi-model-package" tag, else its import path with the domain
// reversed: k8s.io/api/core/v1 -> io.k8s.api.core.v1) followed by the type name; the match
// is exact, checked against the package that declares it.
func (s *goSource) definitionType(name string) (*goType, error) {
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return nil, fmt.Errorf("definition %s: not a qualified name", name)
	}
	prefix, typeName := name[:dot], name[dot+1:]
	rest, ok := strings.CutPrefix(prefix, "io.k8s.")
	if !ok {
		return nil, fmt.Errorf("definition %s: not under io.k8s", name)
	}
	// The module is the first segment after the reversed domain, the package path the rest.
	segs := strings.Split(rest, ".")
	path := "k8s.io/" + strings.Join(segs, "/")
	pkg, err := s.pkg(path)
	if err != nil {
		return nil, err
	}
	if pkg == nil {
		return nil, fmt.Errorf("definition %s: no Go package %s in %s", name, path, s.moduleList())
	}
	if pkg.prefix != prefix {
		return nil, fmt.Errorf("definition %s: package %s names its definitions %s.*", name, path, pkg.prefix)
	}
	t := pkg.types[typeName]
	if t == nil {
		return nil, fmt.Errorf("definition %s: package %s declares no type %s", name, path, typeName)
	}
	return t, nil
}

func (s *goSource) moduleList() string {
	var out []string
	for _, m := range s.modules {
		out = append(out, m.label())
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// pkg parses the package at an import path, or returns nil when no downloaded module holds it.
func (s *goSource) pkg(path string) (*goPackage, error) {
	if p, ok := s.pkgs[path]; ok {
		return p, nil
	}
	var mod *goModule
	for i := range s.modules {
		m := &s.modules[i]
		if path == m.Path || strings.HasPrefix(path, m.Path+"/") {
			mod = m
			break
		}
	}
	if mod == nil {
		s.pkgs[path] = nil
		return nil, nil
	}
	dir := filepath.Join(mod.Dir, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, mod.Path), "/")))
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		s.pkgs[path] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p := &goPackage{
		path: path, mod: mod,
		prefix:  "io.k8s." + strings.ReplaceAll(strings.TrimPrefix(path, "k8s.io/"), "/", "."),
		types:   map[string]*goType{},
		methods: map[string]map[string]bool{},
		consts:  map[string][]*goConst{}, constByName: map[string]*goConst{},
	}
	ctx := gobuild.Default
	ctx.CgoEnabled = false
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(s.fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.add(f)
	}
	s.pkgs[path] = p
	return p, nil
}

func (p *goPackage) add(f *ast.File) {
	for _, c := range f.Comments {
		for _, l := range c.List {
			if v, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(l.Text, "//")), "+k8s:openapi-model-package="); ok {
				p.prefix = strings.TrimSpace(v)
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			switch d.Tok {
			case token.TYPE:
				for _, sp := range d.Specs {
					ts := sp.(*ast.TypeSpec)
					doc := ts.Doc
					if doc == nil {
						doc = d.Doc
					}
					p.types[ts.Name.Name] = &goType{name: ts.Name.Name, spec: ts, doc: doc, file: f, pkg: p}
				}
			case token.CONST:
				p.addConsts(d, f)
			}
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) != 1 {
				continue
			}
			t := d.Recv.List[0].Type
			if st, ok := t.(*ast.StarExpr); ok {
				t = st.X
			}
			if id, ok := t.(*ast.Ident); ok {
				if p.methods[id.Name] == nil {
					p.methods[id.Name] = map[string]bool{}
				}
				p.methods[id.Name][d.Name.Name] = true
			}
		}
	}
}

// addConsts records the constants of named types: "Foo Kind = \"foo\"" and
// "Foo = Kind(\"foo\")" (or of another constant). Their values are evaluated on use.
func (p *goPackage) addConsts(d *ast.GenDecl, f *ast.File) {
	for _, sp := range d.Specs {
		vs := sp.(*ast.ValueSpec)
		for i, n := range vs.Names {
			var val ast.Expr
			if i < len(vs.Values) {
				val = vs.Values[i]
			}
			typ := ""
			if id, ok := vs.Type.(*ast.Ident); ok {
				typ = id.Name
			} else if call, ok := val.(*ast.CallExpr); ok && vs.Type == nil && len(call.Args) == 1 {
				if id, ok := call.Fun.(*ast.Ident); ok {
					typ = id.Name
				}
			}
			c := &goConst{name: n.Name, expr: val, file: f, pkg: p}
			p.constByName[n.Name] = c
			if typ != "" {
				p.consts[typ] = append(p.consts[typ], c)
			}
		}
	}
}

// goConst is one constant declaration.
type goConst struct {
	name string
	expr ast.Expr // nil when implicit (repeating the previous spec's)
	file *ast.File
	pkg  *goPackage
}

// constString evaluates a string constant: a literal, a conversion of one, or another
// constant (in any parsed package).
func (s *goSource) constString(c *goConst, depth int) (string, bool) {
	if c == nil || c.expr == nil || depth > 8 {
		return "", false
	}
	var eval func(e ast.Expr) (string, bool)
	eval = func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				return "", false
			}
			v, err := strconv.Unquote(e.Value)
			return v, err == nil
		case *ast.ParenExpr:
			return eval(e.X)
		case *ast.CallExpr:
			if len(e.Args) != 1 {
				return "", false
			}
			return eval(e.Args[0])
		case *ast.Ident:
			return s.constString(c.pkg.constByName[e.Name], depth+1)
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			if !ok {
				return "", false
			}
			p, err := s.pkg(importPath(c.file, x.Name))
			if err != nil || p == nil {
				return "", false
			}
			return s.constString(p.constByName[e.Sel.Name], depth+1)
		}
		return "", false
	}
	return eval(c.expr)
}

// enumConstants returns the values of a type's constants, or false if one cannot be evaluated.
func (s *goSource) enumConstants(t *goType) ([]string, bool) {
	cs := t.pkg.consts[t.name]
	if len(cs) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		v, ok := s.constString(c, 0)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// resolve finds the declaration a type expression names: T, pkg.T or either behind *.
// Builtins and types of modules not downloaded give nil.
func (s *goSource) resolve(expr ast.Expr, from *goType) (*goType, error) {
	if st, ok := expr.(*ast.StarExpr); ok {
		expr = st.X
	}
	switch e := expr.(type) {
	case *ast.Ident:
		return from.pkg.types[e.Name], nil
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return nil, nil
		}
		path := importPath(from.file, x.Name)
		if path == "" {
			return nil, nil
		}
		p, err := s.pkg(path)
		if err != nil || p == nil {
			return nil, err
		}
		return p.types[e.Sel.Name], nil
	}
	return nil, nil
}

// importPath returns the path a file imports under name ("" if none).
func importPath(f *ast.File, name string) string {
	for _, im := range f.Imports {
		path, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		local := pathpkgName(path)
		if im.Name != nil {
			local = im.Name.Name
		}
		if local == name {
			return path
		}
	}
	return ""
}

// pathpkgName guesses a package's name from its import path, as Kubernetes names them (the
// last element; a version suffix like "/v2" is not used there).
func pathpkgName(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// goField is one JSON property of a struct, after inlining embedded structs.
type goField struct {
	json  string
	field *ast.Field
	owner *goType // the struct that declares it
}

// fields lists a struct type's JSON properties as encoding/json sees them: exported fields
// under their json tag name, "-" skipped, embedded structs without a tag name inlined
// (recursively, across packages).
func (s *goSource) fields(t *goType) ([]goField, error) {
	st, ok := t.spec.Type.(*ast.StructType)
	if !ok {
		return nil, nil
	}
	var out []goField
	for _, f := range st.Fields.List {
		name, _ := jsonTag(f)
		if name == "-" {
			continue
		}
		if len(f.Names) == 0 { // embedded
			emb, err := s.resolve(f.Type, t)
			if err != nil {
				return nil, err
			}
			if name == "" && emb != nil {
				if _, isStruct := emb.spec.Type.(*ast.StructType); isStruct {
					sub, err := s.fields(emb)
					if err != nil {
						return nil, err
					}
					out = append(out, sub...)
					continue
				}
			}
			if id := embeddedName(f.Type); id != "" && ast.IsExported(id) {
				if name == "" {
					name = id
				}
				out = append(out, goField{json: name, field: f, owner: t})
			}
			continue
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				continue
			}
			jn := name
			if jn == "" {
				jn = n.Name
			}
			out = append(out, goField{json: jn, field: f, owner: t})
		}
	}
	return out, nil
}

func embeddedName(expr ast.Expr) string {
	if st, ok := expr.(*ast.StarExpr); ok {
		expr = st.X
	}
	switch e := expr.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// jsonTag returns a field's json tag name and options.
func jsonTag(f *ast.Field) (name, opts string) {
	if f.Tag == nil {
		return "", ""
	}
	tag, err := strconv.Unquote(f.Tag.Value)
	if err != nil {
		return "", ""
	}
	name, opts, _ = strings.Cut(reflect.StructTag(tag).Get("json"), ",")
	return name, opts
}
