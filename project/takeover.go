package project

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// A file an output would replace is this tool's to replace when it
// carries the generated header (IsGeneratedLine), and also when it is a
// CustomResourceDefinition of the very name being written: a CRD being
// regenerated, whoever generated it before (the Python tool's outputs
// carry no header). Anything else needs --force.

// TakesOver reports whether the existing file old, which lacks the
// generated header, may be replaced by an output holding the CRDs names:
// every document of it is a CustomResourceDefinition whose metadata.name
// is one of names. It reads the file once and only its top-level keys
// (and metadata's name), so its work is linear in the file and nothing of
// a file it refuses is kept or shown.
func TakesOver(old *io.SectionReader, names []string) bool {
	if len(names) == 0 || old.Size() > maxTakeoverBytes {
		return false
	}
	data, err := io.ReadAll(old)
	if err != nil {
		return false
	}
	got, ok := crdNames(data)
	if !ok || len(got) == 0 {
		return false
	}
	for _, n := range got {
		if !slices.Contains(names, n) {
			return false
		}
	}
	return true
}

// maxTakeoverBytes bounds the file TakesOver reads: a CRD storable in
// etcd is far smaller, even as indented YAML.
const maxTakeoverBytes = 64 << 20

// crdNames returns the metadata.name of each document of data, and
// whether every document (empty ones aside) is a CustomResourceDefinition
// with a name. JSON is decoded; YAML is scanned line by line for the
// top-level kind and metadata's name in block style (what every CRD
// generator writes); anything else is not recognised.
func crdNames(data []byte) ([]string, bool) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var doc struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(t, &doc) != nil || doc.Kind != "CustomResourceDefinition" || doc.Metadata.Name == "" {
			return nil, false
		}
		return []string{doc.Metadata.Name}, true
	}
	var names []string
	var kind, name string
	inMeta, metaIndent, seen := false, -1, false
	end := func() bool {
		if !seen {
			return true
		}
		if kind != "CustomResourceDefinition" || name == "" {
			return false
		}
		names = append(names, name)
		kind, name, inMeta, metaIndent, seen = "", "", false, -1, false
		return true
	}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimRight(line, " \t\r")
		s := string(line)
		if s == "---" || strings.HasPrefix(s, "--- ") || s == "..." {
			if !end() {
				return nil, false
			}
			continue
		}
		trimmed := strings.TrimLeft(s, " ")
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		seen = true
		indent := len(s) - len(trimmed)
		key, value, isKey := strings.Cut(trimmed, ":")
		if isKey && value != "" && value[0] != ' ' {
			isKey = false // "a:b" is a scalar, not a key
		}
		if indent == 0 {
			inMeta = false
			if !isKey {
				continue
			}
			switch key {
			case "kind":
				kind = scalar(value)
			case "metadata":
				if scalar(value) != "" {
					return nil, false // flow style: not recognised
				}
				inMeta, metaIndent = true, -1
			}
			continue
		}
		if !inMeta {
			continue
		}
		if metaIndent < 0 {
			metaIndent = indent
		}
		if indent == metaIndent && isKey && key == "name" {
			name = scalar(value)
		}
	}
	if !end() {
		return nil, false
	}
	return names, true
}

// scalar is a plain or quoted one-line YAML scalar without its comment.
func scalar(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if j := strings.IndexByte(v[1:], v[0]); j >= 0 {
			return v[1 : j+1]
		}
		return ""
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}
