package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// Paths of the OpenAPI documents inside the k8s.io/kubernetes module.
const (
	swaggerPath = "api/openapi-spec/swagger.json"
	v3Dir       = "api/openapi-spec/v3"
)

// release is the OpenAPI documents of one Kubernetes release.
type release struct {
	Version   string            // "v1.30.14"
	ModuleSum string            // "h1:...", empty in tests
	Swagger   []byte            // api/openapi-spec/swagger.json
	V3        map[string][]byte // module path -> content of each api/openapi-spec/v3/*.json
	Go        *goSource         // the Go declarations of the definitions
	dir       string            // the extracted module, while the download lasts
}

func (r *release) module() string { return "k8s.io/kubernetes@" + r.Version }

// defaultsDonor is the v3 schemas of a release, lent to releases that publish no v3 documents.
type defaultsDonor struct {
	Version string
	Schemas map[string]map[string]any
	SHA256  map[string]string // "<module>/<path>" -> hex sha256
}

// stats reports what build did, for progress output.
type stats struct {
	Definitions, Defaults, Conflicts int
	Go                               *goReport
}

// build turns a release into bundle bytes. Each v2 definition is kept as it is (the bundle
// stores it losslessly, its descriptions apart: bundlefmt.Write), except that
// a property (or its items or additionalProperties, at any depth) lacking "default" gets the
// default of its OpenAPI v3 counterpart: from the release's own v3 documents, or from donor
// when the release has none; and that what the Go declarations say is added (goAnnotate):
// the classification of property-less objects and the value constraints of the markers.
func build(r *release, donor *defaultsDonor) ([]byte, stats, error) {
	m, defs, st, err := definitions(r, donor)
	if err != nil {
		return nil, st, err
	}
	var out bytes.Buffer
	if err := bundlefmt.Write(&out, m, defs); err != nil {
		return nil, st, err
	}
	return out.Bytes(), st, nil
}

// definitions returns what build writes: the manifest, and the JSON of every definition,
// compact, keys sorted (bundlefmt.Encode).
func definitions(r *release, donor *defaultsDonor) (bundlefmt.Manifest, map[string][]byte, stats, error) {
	var st stats
	var m bundlefmt.Manifest
	if r.Go == nil {
		return m, nil, st, fmt.Errorf("%s: the Go source of the definitions was not read", r.Version)
	}
	minor, _, err := parseRelease(r.Version)
	if err != nil {
		return m, nil, st, err
	}
	var swagger struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(r.Swagger, &swagger); err != nil {
		return m, nil, st, fmt.Errorf("%s: %w", swaggerPath, err)
	}
	if len(swagger.Definitions) == 0 {
		return m, nil, st, fmt.Errorf("%s: no definitions", swaggerPath)
	}
	m = bundlefmt.Manifest{
		KubernetesVersion: r.Version,
		Module:            r.module(),
		ModuleSum:         r.ModuleSum,
		SHA256:            map[string]string{swaggerPath: sha256Hex(r.Swagger)},
	}
	var v3 map[string]map[string]any
	if len(r.V3) > 0 {
		var err error
		v3, st.Conflicts, err = v3Schemas(r.V3)
		if err != nil {
			return m, nil, st, err
		}
		for p, data := range r.V3 {
			m.SHA256[p] = sha256Hex(data)
		}
	} else if donor != nil {
		v3 = donor.Schemas
		m.DefaultsFrom = donor.Version
		maps.Copy(m.SHA256, donor.SHA256)
	}

	objs := make(map[string]map[string]any, len(swagger.Definitions))
	for _, name := range slices.Sorted(maps.Keys(swagger.Definitions)) {
		def, err := bundlefmt.Decode(swagger.Definitions[name])
		if err != nil {
			return m, nil, st, fmt.Errorf("definition %s: %w", name, err)
		}
		obj, ok := def.(map[string]any)
		if !ok {
			return m, nil, st, fmt.Errorf("definition %s: not an object", name)
		}
		if s3, ok := v3[name]; ok {
			st.Defaults += mergeDefaults(obj, s3)
		}
		objs[name] = obj
	}
	if st.Go, err = goAnnotate(r.Go, minor, objs); err != nil {
		return m, nil, st, err
	}
	defs := make(map[string][]byte, len(objs))
	for name, obj := range objs {
		if defs[name], err = bundlefmt.Encode(obj); err != nil {
			return m, nil, st, fmt.Errorf("definition %s: %w", name, err)
		}
	}
	st.Definitions = len(defs)
	m.DefaultsAdded = st.Defaults
	m.GoModules = map[string]string{}
	for _, mod := range r.Go.modules {
		m.GoModules[mod.label()] = mod.Sum
	}
	m.Objects = st.Go.Objects
	if len(st.Go.Constraints) > 0 {
		m.Constraints = st.Go.Constraints
	}
	return m, defs, st, nil
}

// v3Schemas unions components.schemas of every v3 document. A definition appears in many
// documents (ObjectMeta in all); the first in path order wins, and differing copies are
// counted.
func v3Schemas(docs map[string][]byte) (map[string]map[string]any, int, error) {
	out := map[string]map[string]any{}
	raws := map[string]json.RawMessage{}
	conflicts := 0
	for _, p := range slices.Sorted(maps.Keys(docs)) {
		var doc struct {
			Components struct {
				Schemas map[string]json.RawMessage `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(docs[p], &doc); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", p, err)
		}
		for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
			raw := doc.Components.Schemas[name]
			if prev, ok := raws[name]; ok {
				if !bytes.Equal(prev, raw) {
					conflicts++
				}
				continue
			}
			v, err := bundlefmt.Decode(raw)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %s: %w", p, name, err)
			}
			if obj, ok := v.(map[string]any); ok {
				raws[name] = raw
				out[name] = obj
			}
		}
	}
	return out, conflicts, nil
}

// mergeDefaults copies into the v2 schema s2 the defaults of the v3 schema s3 at the
// positions both share: properties, items and additionalProperties, recursively. An existing
// v2 default is never replaced, and a default is copied only where both sides agree on the
// type (or on the referenced definition). It returns the number of defaults copied.
func mergeDefaults(s2, s3 map[string]any) int {
	n := 0
	visit := func(c2, c3 any) {
		m2, ok2 := c2.(map[string]any)
		m3, ok3 := c3.(map[string]any)
		if !ok2 || !ok3 || !compatible(m2, m3) {
			return
		}
		if _, has := m2["default"]; !has {
			if d, ok := m3["default"]; ok {
				m2["default"] = d
				n++
			}
		}
		n += mergeDefaults(m2, m3)
	}
	if p2, ok := s2["properties"].(map[string]any); ok {
		if p3, ok := s3["properties"].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(p2)) {
				visit(p2[k], p3[k])
			}
		}
	}
	visit(s2["items"], s3["items"])
	visit(s2["additionalProperties"], s3["additionalProperties"])
	return n
}

// compatible reports whether a v2 and a v3 schema describe the same kind of value: equal
// "type" when both have one, and the same target when the v2 schema is a $ref (which v3
// writes either directly or as the single element of allOf).
func compatible(s2, s3 map[string]any) bool {
	if t2, ok := s2["type"]; ok {
		if t3, ok := s3["type"]; ok && t2 != t3 {
			return false
		}
	}
	ref2, ok := s2["$ref"].(string)
	if !ok {
		return true
	}
	ref3, _ := s3["$ref"].(string)
	if all, ok := s3["allOf"].([]any); ok && len(all) == 1 && ref3 == "" {
		if m, ok := all[0].(map[string]any); ok {
			ref3, _ = m["$ref"].(string)
		}
	}
	return ref3 != "" && path.Base(ref2) == path.Base(ref3)
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// isV3Doc reports whether a module path is an OpenAPI v3 document.
func isV3Doc(p string) bool {
	return path.Dir(p) == v3Dir && strings.HasSuffix(p, ".json")
}
