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
)

// refragment writes every Normalized bundle in the output directory anew from the
// definitions it holds (their structures and descriptions, as Prebuild made them), without
// fragments, fetching nothing, then pools the bundles again. Compiles read no fragments;
// bundles made before they were dropped lose them here. Bundles of the format before
// FormatVersion are read as FormatVersion: its layout is theirs.
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
	for _, m := range minors {
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
		var out bytes.Buffer
		if err := bundlefmt.Write(&out, man, defs, nil, nil); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		rewritten[file] = out.Bytes()
		fmt.Fprintf(g.log, "%s: %d definitions\n", m, len(defs))
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
