package resolver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// EncodeYAML writes v (maps, slices, strings, bools, json.Number, numbers,
// nil) as deterministic YAML: keys sorted bytewise, block style, two-space
// indent, empty collections as {} and [], LF line ends. The same value gives
// the same bytes on every machine.
func EncodeYAML(v any) ([]byte, error) {
	n, err := toNode(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeYAMLDocuments joins several documents with "---" separators.
func EncodeYAMLDocuments(docs []any) ([]byte, error) {
	var out bytes.Buffer
	for i, d := range docs {
		b, err := EncodeYAML(d)
		if err != nil {
			return nil, err
		}
		if i > 0 || len(docs) > 1 {
			out.WriteString("---\n")
		}
		out.Write(b)
	}
	return out.Bytes(), nil
}

func toNode(v any) (*yaml.Node, error) {
	switch t := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if len(t) == 0 {
			n.Style = yaml.FlowStyle
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			vn, err := toNode(t[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, strNode(k), vn)
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if len(t) == 0 {
			n.Style = yaml.FlowStyle
		}
		for _, item := range t {
			in, err := toNode(item)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, in)
		}
		return n, nil
	case []string:
		items := make([]any, len(t))
		for i, s := range t {
			items[i] = s
		}
		return toNode(items)
	case string:
		return strNode(t), nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}, nil
	case json.Number:
		s := string(t)
		tag := "!!int"
		if strings.ContainsAny(s, ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s}, nil
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(t)}, nil
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(t, 10)}, nil
	case float64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(t, 'g', -1, 64)}, nil
	}
	return nil, fmt.Errorf("cannot encode %T as YAML", v)
}

func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") {
		// Literal style keeps multi-line text readable; trailing spaces on
		// a line cannot survive it, so those strings stay quoted.
		if !strings.Contains(s, " \n") && !strings.HasSuffix(s, " ") && !strings.Contains(s, "\t") {
			n.Style = yaml.LiteralStyle
		} else {
			n.Style = yaml.DoubleQuotedStyle
		}
	}
	return n
}
