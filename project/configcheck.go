package project

import (
	"fmt"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

// maxConfigKeys bounds the keys of one mapping of a configuration: a Set or the file has a
// dozen, patches one per template. yaml.v3, which decodes the configuration into Config,
// compares every pair of keys of a mapping; with at most this many a key is compared with
// at most this many others, so reading a configuration stays linear in its size.
const maxConfigKeys = 1000

// checkConfigText reads the configuration as templates are read (docread.Decode: linear,
// a key written twice refused at its position) and refuses a mapping of more than
// maxConfigKeys keys, before yaml.v3 decodes it.
func checkConfigText(name string, src []byte) error {
	docs, err := docread.Decode(name, src, 0)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var walk func(ptr string, v any) error
	walk = func(ptr string, v any) error {
		switch x := v.(type) {
		case map[string]any:
			if len(x) > maxConfigKeys {
				return fmt.Errorf("%w: %s: %s holds %d keys; a configuration needs far fewer (at most %d in one mapping)", ErrConfig, name, orRoot(ptr), len(x), maxConfigKeys)
			}
			for k, e := range x {
				if err := walk(ptr+"/"+k, e); err != nil {
					return err
				}
			}
		case []any:
			for i, e := range x {
				if err := walk(fmt.Sprintf("%s/%d", ptr, i), e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, d := range docs {
		if err := walk("", d); err != nil {
			return err
		}
	}
	return nil
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the top-level mapping"
	}
	return ptr
}
