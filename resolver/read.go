package resolver

import (
	"io"
	"iter"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
)

// Reading moved to package docread. These forward for internal/crdvalidate
// only, while another branch edits it; its next change imports docread and
// this file goes.

type Decoded = docread.Decoded

func Decode(name string, src []byte, budget Size) ([]any, error) {
	return docread.Decode(name, src, budget)
}

func DecodeDocuments(name string, src []byte, budget Size) ([]Decoded, error) {
	return docread.DecodeDocuments(name, src, budget)
}

func DecodeReader(name string, r io.Reader, budget Size) iter.Seq2[Decoded, error] {
	return docread.DecodeReader(name, r, budget)
}

func ListItems(d Decoded) ([]any, bool, error) { return docread.ListItems(d) }

func ParseSize(s string) (Size, error) { return docread.ParseSize(s) }
