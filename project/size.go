package project

import (
	"errors"
	"fmt"
	"strconv"
)

// The size guard judges each compiled CRD by its compact JSON (what the
// apiserver is sent, and what client-side `kubectl apply` copies into an
// annotation), never by its YAML. Both thresholds come from the real
// limits of kube-apiserver v1.37.2 with a default etcd v3.6.16; the
// integration test integration/size_test.go checks them against that
// control plane (`go test ./integration -run TestSizeSearch -size.search
// -v` measures them afresh).
const (
	// AnnotationLimit is the apiserver's limit on the total of a
	// object's annotation keys and values (TotalAnnotationSizeLimitB,
	// 256 KiB).
	AnnotationLimit = 262_144

	// LastAppliedAnnotation is the annotation client-side `kubectl apply`
	// writes: the object's compact JSON as json.Encoder writes it
	// (newline included), taken with its annotations but without this
	// one, and with `"annotations":{}` when it has none.
	LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

	// WarnSize is the largest compact JSON of a CRD without annotations
	// that client-side `kubectl apply` can create: 262,144 − 48 (the
	// key) − 17 (`"annotations":{},`) − 1 (the newline) = 262,078 bytes.
	// A CRD with annotations of its own is judged exactly (see
	// lastAppliedTotal). Above it, use server-side apply.
	WarnSize = AnnotationLimit - 48 - 17 - 1 // TestSizeGuard checks the 48 and the 17

	// measuredLargestCRD is the compact JSON of the largest CRD that a
	// kube-apiserver v1.37.2 on an etcd v3.6.16 with its default
	// --max-request-bytes (1.5 MiB, 1,572,864 bytes) stores and
	// Establishes, measured by binary search with CRDs padded with a
	// description (name s0000001.size.example.com, field manager of 8
	// characters): 1,571,876 bytes in two bisections (the status the
	// apiserver writes varies by a few bytes: one other run Established
	// 1,571,877). Creates succeed up to 1,572,329 bytes (then "etcdserver:
	// request is too large"), but a few bytes above 1,571,876 the status
	// the apiserver then writes no longer fits: the CRD exists and is
	// never Established.
	measuredLargestCRD = 1_571_876

	// MaxSize is the hard limit: measuredLargestCRD less 1 KiB for the
	// metadata the apiserver adds that grows with the CRD's names and its
	// field manager (the etcd key, status.acceptedNames, managedFields).
	// Above it a compile fails unless Options.AllowLarge (for an etcd
	// with a raised --max-request-bytes).
	MaxSize = measuredLargestCRD - 1<<10
)

// ErrTooLarge marks a compiled CRD above MaxSize.
var ErrTooLarge = errors.New("compiled CRD too large")

// lastAppliedTotal is the total size of the annotations of obj, whose
// compact JSON is jsonSize bytes, once client-side `kubectl apply` has
// added its last-applied-configuration annotation (what the apiserver
// compares with AnnotationLimit). It follows k8s.io/kubectl's
// GetModifiedConfiguration and CreateApplyAnnotation (pkg/util/apply.go).
func lastAppliedTotal(annots map[string]string, jsonSize int64) int64 {
	total := int64(len(LastAppliedAnnotation)) + jsonSize + 1 // the value ends in a newline
	for k, v := range annots {
		total += int64(len(k) + len(v)) // a last-applied annotation of the template's own is counted twice: kubectl would drop it
	}
	if len(annots) == 0 {
		total += int64(len(`"annotations":{},`)) // kubectl writes an empty map
	}
	return total
}

// checkSize applies the size guard to one compiled CRD: an error above
// MaxSize (unless allowLarge), a warning when client-side apply cannot
// create it (unless the outputs are installed with server-side apply).
func checkSize(template, crd string, annots map[string]string, jsonSize int64, allowLarge, removeDescriptions, serverSide bool) (warning string, err error) {
	if jsonSize > MaxSize && !allowLarge {
		return "", fmt.Errorf("%s: %w: CRD %s is %s of compact JSON, more than the %s a kube-apiserver on a default etcd (--max-request-bytes 1.5 MiB) stores; shorten it (fitDescriptions, removeDescriptions or -r, maxDescriptionLength) or, for an etcd with a larger --max-request-bytes, pass --allow-large",
			template, ErrTooLarge, crd, formatBytes(jsonSize), formatBytes(MaxSize))
	}
	total := lastAppliedTotal(annots, jsonSize)
	if total <= AnnotationLimit || serverSide {
		return "", nil
	}
	shrink := "keep only the Kubernetes descriptions that fit with fitDescriptions: client-side-apply (--fit-descriptions client-side-apply), or drop them all with removeDescriptions (-r)"
	if removeDescriptions {
		shrink = "shrink it with maxDescriptionLength or shorter descriptions of your own"
	}
	return fmt.Sprintf("CRD %s is %s of compact JSON: client-side `kubectl apply` would copy it into its last-applied-configuration annotation, making %s of annotations where the apiserver allows %s (a CRD without annotations may have %s of JSON); apply with `kubectl apply --server-side` (serverSideApply: true in .crd-resolver.yaml says so), or %s",
		crd, formatBytes(jsonSize), formatBytes(total), formatBytes(AnnotationLimit), formatBytes(WarnSize), shrink), nil
}

// SizeWarning is the warning checkSize gives a CRD client-side apply
// cannot create, for a compile outside any project (resolve of a lone
// template), "" when it fits.
func SizeWarning(crd string, annots map[string]string, jsonSize int64, removeDescriptions bool) string {
	w, _ := checkSize("", crd, annots, jsonSize, true, removeDescriptions, false)
	return w
}

// formatBytes renders an exact byte count with its binary size:
// "262,079 bytes (255.9 KiB)".
func formatBytes[N int | int64](n N) string {
	if n < 1<<10 {
		return commas(n) + " bytes"
	}
	return commas(n) + " bytes (" + FormatSize(int(n)) + ")"
}

// commas renders n with a comma between groups of three digits: "262,079".
func commas[N int | int64](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// FormatSize renders a byte count for people: "812 B", "181.4 KiB".
func FormatSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
}
