package oracle

import "encoding/json"

// deepCopyJSON copies JSON-like values, turning json.Number into int64 or
// float64 as the apiserver's decoder does.
func deepCopyJSON(v map[string]any) map[string]any {
	return copyValue(v).(map[string]any)
}

func copyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = copyValue(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = copyValue(x)
		}
		return out
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case int:
		return int64(t)
	}
	return v
}
