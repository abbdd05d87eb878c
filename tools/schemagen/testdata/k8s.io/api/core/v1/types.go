// Package v1 is a fixture of k8s.io/api/core/v1 for the generator's tests.
package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

type ContainerPort struct {
	ContainerPort int32    `json:"containerPort"`
	Protocol      Protocol `json:"protocol,omitempty"`
}

// +k8s:enum
type Protocol string

const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP          = Protocol(sctp)
)

const sctp = "SCTP"

type Container struct {
	Ports     []ContainerPort      `json:"ports,omitempty"`
	Resources ResourceRequirements `json:"resources,omitempty"`
	Stdin     bool                 `json:"stdin,omitempty"`
	TTY       bool                 `json:"tty,omitempty"`
	Big       uint64               `json:"big,omitempty"`
}

// ResourceRequirements is empty in this fixture.
type ResourceRequirements struct{}

// Responder carries one marker of each kind.
type Responder struct {
	Meta `json:",inline"`

	// +required
	// +k8s:required
	// +k8s:format=k8s-short-name
	Name string `json:"name"`

	// +k8s:required
	// +k8s:minimum=0
	// +k8s:maximum=100000 # the highest priority
	Priority *int32 `json:"priority"`

	// +k8s:optional
	// +k8s:beta(since: "1.37")=+k8s:maxItems=10
	// +k8s:eachVal=+k8s:maxLength=63
	// +k8s:alpha(since: "1.37")=+k8s:minItems=2
	Tags []string `json:"tags,omitempty"`

	// +k8s:optional
	// +k8s:ifEnabled(SomeGate)=+k8s:maxItems=3
	// +k8s:immutable
	Gated []string `json:"gated,omitempty"`

	// The zero value "" means unset: a format that rejects it is left out.
	// +k8s:optional
	// +k8s:format=k8s-long-name
	ClassName string `json:"className,omitempty"`

	// +k8s:optional
	// +k8s:format=k8s-uuid
	UID *string `json:"uid,omitempty"`

	// +optional
	Protocol Protocol `json:"protocol,omitempty"`

	// +k8s:required
	Mode *Protocol `json:"mode"`

	// +kubebuilder:validation:Required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status string `json:"status"`

	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`
	Reason string `json:"reason"`

	// +k8s:minimum=1
	Count int32 `json:"count"`

	// +k8s:maxItems=4
	Labels map[string]string `json:"labels,omitempty"`

	Extension runtime.RawExtension `json:"extension,omitempty"`

	hidden string
}

// Meta is inlined into Responder.
type Meta struct {
	// +k8s:required
	// +k8s:maxItems=2
	Owners  []string `json:"owners"`
	Skipped string   `json:"-"`
}

// Arbitrary has a non-struct underlying type.
type Arbitrary map[string]interface{}

// Alias is declared as another empty struct.
type Alias ResourceRequirements

// Tricky has what the bundle's split of descriptions must keep apart: a property named
// description, a name to escape in a JSON pointer, items, allOf and data holding the word.
type Tricky struct {
	Description string              `json:"description,omitempty"`
	AB          []map[string]string `json:"a/b~c,omitempty"`
	Any         string              `json:"any,omitempty"`
	Map         map[string]string   `json:"map,omitempty"`
}
