package oracle

import (
	"encoding/json"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// lists is a CRD whose spec has a list-map (ports, keyed by name) and a
// list-set (tags).
const lists = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"lists.example.com"},
"spec":{"group":"example.com","names":{"kind":"Lists","plural":"lists"},"scope":"Namespaced",
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
"properties":{"spec":{"type":"object","properties":{
"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
 "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}},"x-kubernetes-preserve-unknown-fields":true}},
"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}}}}}]}}`

// TestCreateDuplicateAccepted: with zero CreateOptions every duplicate of a
// list-map key or list-set item is an error, as the apiserver makes it of
// a custom resource's; CreateOptions.DuplicateAccepted moves the ones it
// accepts to Verdict.Duplicates, and is asked only about duplicates (a
// list-map item that is no object stays an error).
func TestCreateDuplicateAccepted(t *testing.T) {
	crd, err := DecodeJSON([]byte(lists))
	if err != nil {
		t.Fatal(err)
	}
	create := func(spec string, opts CreateOptions) *Verdict {
		t.Helper()
		var obj map[string]any
		if err := json.Unmarshal([]byte(`{"apiVersion":"example.com/v1","kind":"Lists","metadata":{"name":"l"},"spec":`+spec+`}`), &obj); err != nil {
			t.Fatal(err)
		}
		v, err := crd.Create(t.Context(), obj, opts)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	fields := func(errs field.ErrorList) []string {
		var out []string
		for _, e := range errs {
			out = append(out, e.Type.String()+" "+e.Field)
		}
		slices.Sort(out)
		return out
	}
	const dups = `{"ports":[{"name":"a","port":1},{"name":"a","port":2}],"tags":["x","y","x"]}`
	if got, want := fields(create(dups, CreateOptions{}).Errors), []string{"Duplicate value spec.ports[1]", "Duplicate value spec.tags[2]"}; !slices.Equal(got, want) {
		t.Errorf("zero options: errors %v, want %v", got, want)
	}
	var asked []string
	v := create(dups, CreateOptions{DuplicateAccepted: func(e *field.Error) bool {
		asked = append(asked, e.Field)
		return e.Field == "spec.ports[1]"
	}})
	if got, want := fields(v.Errors), []string{"Duplicate value spec.tags[2]"}; !slices.Equal(got, want) {
		t.Errorf("errors %v, want %v", got, want)
	}
	if got, want := fields(v.Duplicates), []string{"Duplicate value spec.ports[1]"}; !slices.Equal(got, want) {
		t.Errorf("duplicates %v, want %v", got, want)
	}
	slices.Sort(asked)
	if want := []string{"spec.ports[1]", "spec.tags[2]"}; !slices.Equal(asked, want) {
		t.Errorf("asked about %v, want %v", asked, want)
	}
	v = create(`{"ports":["a","a"]}`, CreateOptions{DuplicateAccepted: func(e *field.Error) bool {
		t.Errorf("asked about %v, no duplicate", e)
		return true
	}})
	if len(v.Errors) == 0 || len(v.Duplicates) > 0 {
		t.Errorf("a list-map of strings: errors %v, duplicates %v", v.Errors, v.Duplicates)
	}
}
