package sourcetext

import (
	"encoding/json"
	"testing"
)

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "-1.5e10": true, "1E+3": true, "2e-3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "1e+": false, "+1": false, "0x1": false, "1_000": false,
	} {
		if got := IsJSONNumber(s); got != want {
			t.Errorf("IsJSONNumber(%q) = %v, want %v", s, got, want)
		}
		if want != json.Valid([]byte(s)) && s != "" {
			t.Errorf("test table disagrees with encoding/json on %q", s)
		}
	}
}
