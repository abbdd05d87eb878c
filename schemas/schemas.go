package schemas

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
)

// The bundles, one per Kubernetes minor (see internal/bundlefmt), are written by tools/schemagen
// from the releases pinned in versions.txt, into data/; it also writes bundles.go, which
// embeds each as a []byte (embedded), so a bundle is read where it lies in the binary.
//
//go:generate make -C .. schemas

// embeddedBundle is one embedded bundle: its minor and its bytes.
type embeddedBundle struct {
	minor string
	data  []byte
}

// ErrUnknownVersion is wrapped by the error Canonical and Load return for a malformed version
// or a minor that has no embedded bundle.
var ErrUnknownVersion = errors.New("unknown Kubernetes version")

// ErrNoDefinition is wrapped by the error Bundle.Definition returns for a name the bundle does
// not hold.
var ErrNoDefinition = errors.New("no such definition")

// std is the loader of the embedded bundles. Its only state is the per-version once-cache.
var std = &loader{bundles: embedded, pool: sharedPool}

// Versions returns the embedded minors, oldest first, e.g. ["1.12", ..., "1.37"]. The slice
// is a fresh copy the caller may modify.
func Versions() []string { return slices.Clone(std.index().versions) }

// Latest returns the newest embedded minor, e.g. "1.37".
func Latest() string {
	v := std.index().versions
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// Canonical maps a version in any of the forms "1.21", "1.21.1", "v1.21" or "v1.21.14" to its
// embedded minor, "1.21". A malformed version, or a minor that has no embedded bundle, is an
// error wrapping ErrUnknownVersion that lists the available versions.
func Canonical(version string) (string, error) { return std.canonical(version) }

// Load returns the bundle of a version, in any form Canonical accepts. Each version is read
// at most once per process; later calls, from any goroutine, return the same *Bundle, which is
// read-only. Load only indexes the bundle: definitions are decompressed by Bundle.Definition.
func Load(version string) (*Bundle, error) { return std.load(version) }

// loader opens the bundles it is given and caches one result per minor. Tests build their own
// loader over fixture bundles instead of resetting std.
type loader struct {
	bundles []embeddedBundle
	pool    []byte // the shared pool (bundlefmt.Pool); nil: none

	once sync.Once
	idx  loaderIndex
}

// loaderIndex is the set of available minors, fixed on first use.
type loaderIndex struct {
	versions []string         // oldest first
	slots    map[string]*slot // minor -> its cache slot
	pool     *bundlefmt.Pool  // opened on first load
	poolErr  error
	poolOnce sync.Once
}

// slot caches the result of loading one minor.
type slot struct {
	data   []byte // the bundle's bytes
	once   sync.Once
	bundle *Bundle
	err    error
}

func (l *loader) index() *loaderIndex {
	l.once.Do(func() {
		l.idx.slots = make(map[string]*slot, len(l.bundles))
		for i := range l.bundles {
			minor := l.bundles[i].minor
			if _, _, ok := parseMinor(minor); !ok || l.idx.slots[minor] != nil {
				continue
			}
			l.idx.versions = append(l.idx.versions, minor)
			l.idx.slots[minor] = &slot{data: l.bundles[i].data}
		}
		slices.SortFunc(l.idx.versions, compareMinor)
	})
	return &l.idx
}

func (l *loader) canonical(version string) (string, error) {
	idx := l.index()
	minor, ok := minorOf(version)
	if ok {
		if _, found := idx.slots[minor]; found {
			return minor, nil
		}
	}
	available := "none"
	if n := len(idx.versions); n > 0 {
		available = strings.Join(idx.versions, ", ")
	}
	if !ok {
		return "", fmt.Errorf("%w: %q is not a version like 1.30, 1.30.2 or v1.30.2 (available: %s)", ErrUnknownVersion, version, available)
	}
	return "", fmt.Errorf("%w: %q has no embedded bundle (available: %s)", ErrUnknownVersion, version, available)
}

func (l *loader) load(version string) (*Bundle, error) {
	minor, err := l.canonical(version)
	if err != nil {
		return nil, err
	}
	idx := l.index()
	s := idx.slots[minor]
	s.once.Do(func() {
		idx.poolOnce.Do(func() {
			if l.pool != nil {
				idx.pool, idx.poolErr = bundlefmt.OpenPool(l.pool)
			}
		})
		if idx.poolErr != nil {
			s.err = fmt.Errorf("schemas: the shared pool: %w", idx.poolErr)
			return
		}
		s.bundle, s.err = open(minor, s.data, idx.pool)
	})
	return s.bundle, s.err
}

// open indexes the bundle of minor: it checks the index and decodes the manifest's header.
// The bundle is read where data lies: in the binary for an embedded bundle (nothing writes
// the embedded bytes, and a Reader never does), its structures and descriptions in pool
// (nil: none there).
func open(minor string, data []byte, pool *bundlefmt.Pool) (*Bundle, error) {
	rd, err := bundlefmt.OpenPooled(data, pool)
	if err != nil {
		return nil, fmt.Errorf("schemas: bundle %s: %w", minor, err)
	}
	b, err := newBundle(minor, rd)
	if err != nil {
		return nil, fmt.Errorf("schemas: bundle %s: %w", minor, err)
	}
	return b, nil
}

// minorOf parses "1.21", "1.21.1", "v1.21" or "v1.21.14" and returns "1.21".
func minorOf(version string) (string, bool) {
	s := strings.TrimPrefix(version, "v")
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return "", false
	}
	for _, p := range parts {
		if !isNumber(p) {
			return "", false
		}
	}
	minor := parts[0] + "." + parts[1]
	if _, _, ok := parseMinor(minor); !ok {
		return "", false
	}
	return minor, true
}

// parseMinor parses a canonical "MAJOR.MINOR" without leading zeros.
func parseMinor(s string) (major, minor int, ok bool) {
	a, b, found := strings.Cut(s, ".")
	if !found || !isNumber(a) || !isNumber(b) || (len(a) > 1 && a[0] == '0') || (len(b) > 1 && b[0] == '0') {
		return 0, 0, false
	}
	major, errA := strconv.Atoi(a)
	minor, errB := strconv.Atoi(b)
	return major, minor, errA == nil && errB == nil
}

// isNumber reports whether s is 1 to 9 ASCII digits.
func isNumber(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// CompareMinors orders canonical minors ("1.9", "1.16") numerically, for
// slices.SortFunc: "1.9" < "1.16".
func CompareMinors(a, b string) int { return compareMinor(a, b) }

// compareMinor is CompareMinors.
func compareMinor(a, b string) int {
	amaj, amin, _ := parseMinor(a)
	bmaj, bmin, _ := parseMinor(b)
	if amaj != bmaj {
		return amaj - bmaj
	}
	return amin - bmin
}
