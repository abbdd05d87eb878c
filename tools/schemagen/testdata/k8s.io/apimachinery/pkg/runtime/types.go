// Package runtime is a fixture of k8s.io/apimachinery/pkg/runtime for the generator's tests.
package runtime

// RawExtension holds any JSON.
type RawExtension struct {
	Raw []byte `json:"-"`
}

func (re *RawExtension) UnmarshalJSON(in []byte) error { return nil }

// +k8s:openapi-gen=true
type Unknown struct {
	Raw []byte `json:"-"`
}

func (Unknown) OpenAPISchemaType() []string { return []string{"object"} }
