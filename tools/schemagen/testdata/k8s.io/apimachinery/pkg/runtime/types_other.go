//go:build ignore

package runtime

// Unknown is declared again in a file no build includes.
type Unknown struct {
	Raw []byte `json:"raw"`
}
