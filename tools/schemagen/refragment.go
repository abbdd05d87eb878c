package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/bundlefmt"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
)

// describedMinors is how many of the newest minors' bundles also hold the entries of a
// compile that keeps Kubernetes' descriptions (resolver.PrebuildFragments): such a compile
// against them reads fragments, as one without descriptions does against every minor from
// 1.16, instead of decoding, resolving and rendering every definition it reaches (this
// repository's whole build took 15% less, its operator set's alone as much). The texts are
// then stored twice, as descriptions and inside the entries, and the entries of a definition
// differ between minors wherever any description does: for all 22 minors from 1.16 the
// pool grew by 8.6 MB; for the newest three, which cover what operators target, by 2.3 MB.
const describedMinors = 3

// refragment makes the fragments of every Normalized bundle in the output directory anew
// from the definitions it holds (their structures and descriptions, as Prebuild made
// them), fetching nothing, then pools the bundles again: what a change of
// resolver.PrebuildFragments needs (its encoding, or what a compile reads from it), where a
// rebuild would download every release again. The newest describedMinors bundles get the
// entries with descriptions too. Bundles of the format before FormatVersion are read as
// FormatVersion: its layout is theirs (only what fragments hold changed).
func (g *generator) refragment() error {
	minors, err := bundleMinors(g.outDir)
	if err != nil {
		return err
	}
	pool, err := readPool(g.outDir, true)
	if err != nil {
		return err
	}
	// Every bundle is read before any is written: they read from the pool.
	rewritten := map[string][]byte{}
	for i, m := range minors {
		file := filepath.Join(g.outDir, m+bundlefmt.Suffix)
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		upgradeFormat(data, "KCRBNDL")
		rd, err := bundlefmt.OpenPooled(data, pool)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		var man bundlefmt.Manifest
		if err := json.Unmarshal(rd.Manifest, &man); err != nil {
			return fmt.Errorf("%s: manifest: %w", file, err)
		}
		if !man.Normalized {
			rewritten[file] = data // pool rewrites its manifest's format
			continue
		}
		defs := map[string][]byte{}
		for i, name := range rd.Names() {
			def, err := rd.AppendStructure(nil, i)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", file, name, err)
			}
			descs, err := rd.AppendDescriptions(nil, i)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", file, name, err)
			}
			if len(descs) > 0 {
				def = append(append(def, '\n'), descs...)
			}
			defs[name] = def
		}
		frags, order, err := resolver.PrebuildFragments(m, defs, i >= len(minors)-describedMinors)
		if err != nil {
			return fmt.Errorf("%s: fragments: %w", file, err)
		}
		var out bytes.Buffer
		if err := bundlefmt.Write(&out, man, defs, frags, order); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		rewritten[file] = out.Bytes()
		fmt.Fprintf(g.log, "%s: %d definitions, %d with entries\n", m, len(defs), len(frags))
	}
	for file, data := range rewritten {
		if err := writeFileAtomic(file, data); err != nil {
			return err
		}
	}
	// The bundles written hold their own chunks: pool them afresh.
	if err := os.Remove(filepath.Join(g.outDir, poolFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return g.pool()
}

// upgradeFormat marks data (a bundle or pool of the format before FormatVersion, opening
// with magic) as FormatVersion, in place.
func upgradeFormat(data []byte, magic string) {
	if len(data) > len(magic) && string(data[:len(magic)]) == magic && data[len(magic)] == bundlefmt.FormatVersion-1 {
		data[len(magic)] = bundlefmt.FormatVersion
	}
}
