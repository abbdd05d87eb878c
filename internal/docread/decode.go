package docread

// Decode reads every document of a YAML or JSON stream into plain values
// (map[string]any, []any, string, bool, json.Number, nil), as the
// compiler reads a template: the one parser for everything else read
// from a repository or given on the command line (outputs read back by
// check and build, diff's and validate's files, the configuration).
//
// Its work is linear in src: a key written twice is an error at the
// second, found with a set per mapping (yaml.v3's own decoding compares
// every pair of keys of a mapping: quadratic in its size), and what the
// documents expand to (YAML aliases and merges included) is charged to a
// budget of budget, refused with a message once past it; 0 is
// inputBudget(len(src)). It reads as a template is read
// (ParseWithin): text that starts like JSON by the strict JSON
// reader, and as YAML when that fails. Empty documents are left out.
// Errors are *Error, with file:line:col, name being the file.
func Decode(name string, src []byte, budget Size) ([]any, error) {
	docs, err := decodeDocuments(name, src, budget)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(docs))
	for i, d := range docs {
		out[i] = d.Value
	}
	return out, nil
}

// Decoded is one document of a stream read by DecodeDocuments: its value,
// as Decode returns it, and where each of its values stands in the source.
type Decoded struct {
	// Value is the document (map[string]any, []any, string, bool,
	// json.Number or nil).
	Value any
	d     *Doc
}

// Position returns where the value at the JSON pointer ("/spec/replicas")
// stands in the source (for a mapping entry, its key), or the nearest
// ancestor that has a known position.
func (d Decoded) Position(pointer string) Position { return d.d.Position(pointer) }

// DecodeDocuments reads a stream as Decode does, keeping the source
// position of every value.
func DecodeDocuments(name string, src []byte, budget Size) ([]Decoded, error) {
	docs, err := decodeDocuments(name, src, budget)
	if err != nil {
		return nil, err
	}
	out := make([]Decoded, len(docs))
	for i, d := range docs {
		out[i] = Decoded{Value: d.Value, d: d}
	}
	return out, nil
}

func decodeDocuments(name string, src []byte, budget Size) ([]*Doc, error) {
	if name == "" || name == "-" {
		name = "<stdin>"
	}
	if budget == 0 {
		budget = inputBudget(len(src))
	}
	return ParseWithin(name, src, NewBudget(budget))
}

// inputBudget is the budget Decode reads n bytes within by default: DefaultBudget, or twice
// n when that is more (a stream of many CRDs, `kubectl get crd -o yaml` of a cluster, holds
// more than one compile builds; what aliases can expand it to stays proportional to it).
func inputBudget(n int) Size {
	return max(DefaultBudget, Size(2*int64(n)))
}
