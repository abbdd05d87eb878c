package project

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
)

// The configuration's keys and the kind of value each takes, checked on
// the YAML nodes before the file is decoded: an unknown or misplaced key
// is named as written, with its line and the key meant, never a Go type;
// a boolean is true or false, never a quoted string or a YAML 1.1 word
// (yes, on) that yaml.v3 would otherwise turn into one.

type valueKind int

const (
	kindString valueKind = iota
	kindBool
	kindInt
	kindScalar // a string or a number: budget (64MiB or 1048576)
	kindStrings
	kindStringMap
	kindSets
)

// policyKeys may stand at the top level and in a set.
var policyKeys = map[string]valueKind{
	"kubernetesVersion":    kindScalar,
	"removeDescriptions":   kindBool,
	"maxDescriptionLength": kindInt,
	"fitDescriptions":      kindScalar,
	"recursion":            kindString,
	"allowOutsideRoot":     kindBool,
	"budget":               kindScalar,
	"serverSideApply":      kindBool,
	"allowRemovedAPI":      kindBool,
}

// bothKeys may stand at the top level and in a set without being a
// policy: a set's value is its own, never inherited.
var bothKeys = map[string]valueKind{"examples": kindStrings}

// topOnlyKeys stand at the top level only; setOnlyKeys in a set only.
var (
	topOnlyKeys = map[string]valueKind{"failOn": kindString, "sets": kindSets}
	setOnlyKeys = map[string]valueKind{"templates": kindStrings, "exclude": kindStrings, "outputs": kindStrings, "patches": kindStringMap}
)

// keyAliases are names people write for a key (other tools' spellings).
var keyAliases = map[string]string{
	"k8sVersion":          "kubernetesVersion",
	"k8s-version":         "kubernetesVersion",
	"kubeVersion":         "kubernetesVersion",
	"kubernetes-version":  "kubernetesVersion",
	"version":             "kubernetesVersion",
	"remove-descriptions": "removeDescriptions",
	"fit-descriptions":    "fitDescriptions",
	"output":              "outputs",
	"template":            "templates",
	"patch":               "patches",
}

// checkKeys checks the keys and value kinds of the configuration doc.
func checkKeys(name string, doc *yaml.Node) error {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
		return nil
	}
	if doc.Kind != yaml.MappingNode {
		return fmt.Errorf("%w: %s:%d: the configuration must be a mapping of keys (kubernetesVersion, sets, ...)", ErrConfig, name, doc.Line)
	}
	return checkMapping(name, "", doc, topOnlyKeys, setOnlyKeys)
}

// checkMapping checks mapping m at path ("" for the top level, "sets[0]"):
// its keys are policy keys or own, never other.
func checkMapping(name, path string, m *yaml.Node, own, elsewhere map[string]valueKind) error {
	where := "at the top level"
	if path != "" {
		where = "in " + path
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		at := fmt.Sprintf("%s:%d", name, k.Line)
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("%w: %s: a key must be a name, not %s", ErrConfig, at, nodeKind(k))
		}
		if seen[k.Value] {
			return fmt.Errorf("%w: %s: %s is given twice %s", ErrConfig, at, quoteKey(k.Value), where)
		}
		seen[k.Value] = true
		kind, ok := policyKeys[k.Value]
		if !ok {
			kind, ok = bothKeys[k.Value]
		}
		if !ok {
			kind, ok = own[k.Value]
		}
		if !ok {
			if _, misplaced := elsewhere[k.Value]; misplaced {
				if path == "" {
					return fmt.Errorf("%w: %s: %s belongs in a set (under sets:), not at the top level", ErrConfig, at, quoteKey(k.Value))
				}
				return fmt.Errorf("%w: %s: %s is a top-level key; it cannot be set %s (move it to the top of the file)", ErrConfig, at, quoteKey(k.Value), where)
			}
			return fmt.Errorf("%w: %s: unknown key %s %s%s", ErrConfig, at, quoteKey(k.Value), where, suggestConfigKey(k.Value, own))
		}
		if err := checkValue(name, joinKey(path, k.Value), v, kind); err != nil {
			return err
		}
	}
	return nil
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// checkValue checks that v is of kind for key (path names it).
func checkValue(name, path string, v *yaml.Node, kind valueKind) error {
	at := fmt.Sprintf("%s:%d", name, v.Line)
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	want := func(what string) error {
		got := nodeKind(v)
		if v.Kind == yaml.ScalarNode && v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			got = "the quoted string " + strconv.Quote(v.Value)
		} else if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			// YAML's null, however it is spelled: no value at all.
			got = "null"
			switch v.Value {
			case "null":
			case "":
				got += " (an empty value)"
			default:
				got += " (written " + strconv.Quote(v.Value) + ")"
			}
			got += "; leave the key out for its default"
		} else if v.Kind == yaml.ScalarNode {
			got = strconv.Quote(v.Value)
		}
		return fmt.Errorf("%w: %s: %s: want %s, not %s", ErrConfig, at, path, what, got)
	}
	scalar := v.Kind == yaml.ScalarNode
	switch kind {
	case kindBool:
		if !scalar || v.Tag != "!!bool" {
			return want("true or false (unquoted)")
		}
	case kindInt:
		if !scalar || v.Tag != "!!int" {
			return want("a whole number")
		}
	case kindString:
		if !scalar || v.Tag != "!!str" {
			return want("a string")
		}
	case kindScalar:
		if !scalar || (v.Tag != "!!str" && v.Tag != "!!int" && v.Tag != "!!float") {
			return want("a string or a number")
		}
	case kindStrings:
		if v.Kind != yaml.SequenceNode {
			return want("a list of strings")
		}
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
				return checkValue(name, path+"[]", item, kindString)
			}
		}
	case kindStringMap:
		if v.Kind != yaml.MappingNode {
			return want("a mapping of template paths to patch paths")
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			if err := checkValue(name, path+" key", v.Content[i], kindString); err != nil {
				return err
			}
			if err := checkValue(name, path+"["+v.Content[i].Value+"]", v.Content[i+1], kindString); err != nil {
				return err
			}
		}
	case kindSets:
		if v.Kind != yaml.SequenceNode {
			return want("a list of sets (each with templates and outputs)")
		}
		for i, set := range v.Content {
			p := fmt.Sprintf("sets[%d]", i)
			if set.Kind != yaml.MappingNode {
				return fmt.Errorf("%w: %s:%d: %s: want a mapping (templates, outputs, ...), not %s", ErrConfig, name, set.Line, p, nodeKind(set))
			}
			if err := checkMapping(name, p, set, setOnlyKeys, topOnlyKeys); err != nil {
				return err
			}
		}
	}
	return nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a scalar"
	}
	return "an alias"
}

// quoteKey shows a key from the file as Go would quote it when it holds
// anything but letters, digits, '-' and '_' (so a control character
// cannot start a new log line).
func quoteKey(k string) string {
	if k != "" && strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == "" {
		return k
	}
	return strconv.Quote(k)
}

// suggestConfigKey offers the key meant: a known alias, else the nearest
// key valid where it stands.
func suggestConfigKey(key string, own map[string]valueKind) string {
	if to, ok := keyAliases[key]; ok {
		return "; did you mean " + to + "?"
	}
	var valid []string
	for k := range policyKeys {
		valid = append(valid, k)
	}
	for k := range bothKeys {
		valid = append(valid, k)
	}
	for k := range own {
		valid = append(valid, k)
	}
	slices.Sort(valid)
	return suggest.DidYouMean(key, valid)
}
