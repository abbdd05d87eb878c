package apirecord

import (
	"strings"
	"testing"
)

// TestFormatParse holds that Parse reads back what Format writes, with the
// object after the comment untouched, and refuses a file without a verdict
// or with a line it does not know.
func TestFormatParse(t *testing.T) {
	const object = "apiVersion: v1\nkind: ConfigMap\n# a comment in the object\nmetadata: {name: x}\n"
	for _, v := range []Verdict{
		{Server: "v1.37.2", Valid: true},
		{Server: "v1.37.2", Reason: "Invalid", Causes: []string{"FieldValueInvalid metadata.name", "FieldValueRequired spec.selector"}},
		{Server: "v1.37.2", Reason: "BadRequest", Unknown: []string{"spec.replica"}},
		{Server: "v1.37.2", Reason: "BadRequest", Message: `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string`},
		{Server: "v1.37.2", Reason: "NotServed"},
	} {
		got, body, err := Parse([]byte(Format(v) + object))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if !got.Equal(v) || got.Server != v.Server || string(body) != object {
			t.Errorf("Parse(Format(%s)) = %s (server %q), body %q", v, got, got.Server, body)
		}
	}
	if got := (Verdict{Causes: []string{"FieldValueRequired roleRef.name", "FieldValueInvalid <nil>"}, Unknown: []string{"spec.x"}}).Fields(); strings.Join(got, ",") != "roleRef.name,spec.x" {
		t.Errorf("Fields() = %q", got)
	}
	for _, bad := range []string{
		object,
		"# Recorded from kube-apiserver v1.37.2: create, dryRun=All, fieldValidation=Strict.\n" + object,
		"# Recorded by hand.\n# verdict: valid\n" + object,
		"# Recorded from kube-apiserver v1.37.2: create, dryRun=All, fieldValidation=Strict.\n# verdict: maybe\n" + object,
		"# Recorded from kube-apiserver v1.37.2: create, dryRun=All, fieldValidation=Strict.\n# verdict: valid\n# colour: blue\n" + object,
	} {
		if _, _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}
