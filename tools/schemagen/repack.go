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

// repack writes every bundle in the output directory anew from the definitions it holds,
// each put back together as published (bundlefmt.JoinDescriptions) and written as build
// writes it (bundlefmt.Write), fetching nothing, then pools the bundles again. What it
// writes depends only on the published definitions: the data it leaves is what the
// generator writes for them (TestBundlesRepacked).
func (g *generator) repack() error {
	files, readers, err := openBundles(g.outDir)
	if err != nil {
		return err
	}
	// Every bundle is read before any is written: they read from the pool.
	rewritten := map[string][]byte{}
	for i, file := range files {
		rd := readers[i]
		var man bundlefmt.Manifest
		if err := json.Unmarshal(rd.Manifest, &man); err != nil {
			return fmt.Errorf("%s: manifest: %w", file, err)
		}
		defs, err := publishedDefinitions(rd)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		var out bytes.Buffer
		if err := bundlefmt.Write(&out, man, defs); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		rewritten[file] = out.Bytes()
		fmt.Fprintf(g.log, "%s: %d definitions\n", file, len(defs))
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

// publishedDefinitions returns every definition of rd as published: its structure with its
// descriptions put back.
func publishedDefinitions(rd *bundlefmt.Reader) (map[string][]byte, error) {
	defs := map[string][]byte{}
	for i, name := range rd.Names() {
		structure, err := rd.Structure(i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		descs, err := rd.Descriptions(i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if defs[name], err = bundlefmt.JoinDescriptions(structure, descs); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return defs, nil
}
