// Package image builds the operator's OCI image without a container daemon
// (go-containerregistry, as ko does): no base image, one layer holding the
// static k8s-crd-resolver-reconcile binary, /etc/passwd and /etc/group
// naming the nonroot user 65532 (distroless' convention), and an empty
// /tmp; the entrypoint is the binary and the user 65532:65532. There is no
// shell, no package manager and nothing else to patch.
//
// # Build
//
// Image makes one platform's image, Index the multi-platform index of
// several. Both are reproducible: every timestamp is Options.Created, so
// the same binaries give the same digests.
//
// # Ship
//
// WriteOCIArchive writes an index as a tar of an OCI image layout (what
// `skopeo copy oci-archive:`, `crane push` after untar, or `docker load`
// read); Push writes it to a registry with the credentials of the
// environment (docker config, credential helpers).
package image

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BinaryPath is where the binary lives in the image, and its entrypoint.
const BinaryPath = "/usr/local/bin/k8s-crd-resolver-reconcile"

// User is the numeric user and group the image runs as.
const User = "65532:65532"

// Binary is one platform's static operator binary.
type Binary struct {
	Platform v1.Platform
	Data     []byte
}

// Options label and date the image.
type Options struct {
	// Version is the operator's version (org.opencontainers.image.version).
	Version string
	// Source is the repository URL (org.opencontainers.image.source).
	Source string
	// Created dates the image and every file in it; the zero time means
	// the Unix epoch, for reproducible digests.
	Created time.Time
}

func (o Options) created() time.Time {
	if o.Created.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return o.Created.UTC()
}

// Image returns the image of one binary.
func Image(b Binary, o Options) (v1.Image, error) {
	if b.Platform.OS == "" || b.Platform.Architecture == "" {
		return nil, errors.New("image: binary without an OS and architecture")
	}
	if len(b.Data) == 0 {
		return nil, errors.New("image: empty binary")
	}
	data, err := layerTar(b.Data, o.created())
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant, cf.OSVersion = b.Platform.OS, b.Platform.Architecture, b.Platform.Variant, b.Platform.OSVersion
	cf.Created = v1.Time{Time: o.created()}
	cf.Config = v1.Config{
		User:       User,
		Entrypoint: []string{BinaryPath},
		WorkingDir: "/",
		Env:        []string{"PATH=/usr/local/bin"},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "dask-operator",
			"org.opencontainers.image.description": "The Dask operator of k8s-crd-resolver",
			"org.opencontainers.image.licenses":    "Apache-2.0",
			"org.opencontainers.image.version":     o.Version,
			"org.opencontainers.image.source":      o.Source,
		},
	}
	cf.History = []v1.History{{Created: v1.Time{Time: o.created()}, CreatedBy: "k8s-crd-resolver operator/internal/image", Comment: "static binary, nonroot user"}}
	return mutate.ConfigFile(img, cf)
}

// Index returns the multi-platform index of the binaries' images.
func Index(bins []Binary, o Options) (v1.ImageIndex, error) {
	if len(bins) == 0 {
		return nil, errors.New("image: no binaries")
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, b := range bins {
		img, err := Image(b, o)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", b.Platform.OS, b.Platform.Architecture, err)
		}
		p := b.Platform
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	return idx, nil
}

// layerTar is the image's one layer: directories, the user files, the binary.
func layerTar(binary []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, ModTime: mtime, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	steps := []func() error{
		func() error { return dir("etc", 0o755) },
		func() error {
			return file("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"))
		},
		func() error { return file("etc/group", 0o644, []byte("root:x:0:\nnonroot:x:65532:\n")) },
		func() error { return dir("home", 0o755) },
		func() error {
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "home/nonroot/", Mode: 0o700, Uid: 65532, Gid: 65532, ModTime: mtime, Format: tar.FormatPAX})
		},
		func() error { return dir("tmp", 0o1777) },
		func() error { return dir("usr", 0o755) },
		func() error { return dir("usr/local", 0o755) },
		func() error { return dir("usr/local/bin", 0o755) },
		func() error { return file(path.Clean(BinaryPath[1:]), 0o755, binary) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteOCIArchive writes idx and every blob it references as a tar of an
// OCI image layout: oci-layout, index.json, blobs/sha256/*.
func WriteOCIArchive(w io.Writer, idx v1.ImageIndex) error {
	tw := tar.NewWriter(w)
	mtime := time.Unix(0, 0).UTC()
	put := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mtime}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	written := map[v1.Hash]bool{}
	blob := func(h v1.Hash, data []byte) error {
		if written[h] {
			return nil
		}
		written[h] = true
		return put("blobs/"+h.Algorithm+"/"+h.Hex, data)
	}
	if err := put("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		layers, err := img.Layers()
		if err != nil {
			return err
		}
		for _, l := range layers {
			h, err := l.Digest()
			if err != nil {
				return err
			}
			rc, err := l.Compressed()
			if err != nil {
				return err
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return err
			}
			if err := blob(h, data); err != nil {
				return err
			}
		}
		cfgName, err := img.ConfigName()
		if err != nil {
			return err
		}
		cfg, err := img.RawConfigFile()
		if err != nil {
			return err
		}
		if err := blob(cfgName, cfg); err != nil {
			return err
		}
		raw, err := img.RawManifest()
		if err != nil {
			return err
		}
		if err := blob(d.Digest, raw); err != nil {
			return err
		}
	}
	// index.json is the layout's entry point: the one index, by digest.
	raw, err := idx.RawManifest()
	if err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	if err := blob(digest, raw); err != nil {
		return err
	}
	mt, err := idx.MediaType()
	if err != nil {
		return err
	}
	top, err := json.Marshal(v1.IndexManifest{
		SchemaVersion: 2,
		MediaType:     types.OCIImageIndex,
		Manifests:     []v1.Descriptor{{MediaType: mt, Digest: digest, Size: int64(len(raw))}},
	})
	if err != nil {
		return err
	}
	if err := put("index.json", top); err != nil {
		return err
	}
	return tw.Close()
}

// Push writes idx to the registry reference ref (e.g.
// ghcr.io/k8s-crd-resolver/dask-operator:vX.Y.Z) with the environment's
// credentials. insecure allows plain HTTP (a registry on localhost).
func Push(ctx context.Context, ref string, idx v1.ImageIndex, insecure bool) error {
	var opts []name.Option
	if insecure {
		opts = append(opts, name.Insecure)
	}
	r, err := name.ParseReference(ref, opts...)
	if err != nil {
		return err
	}
	return remote.WriteIndex(r, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain))
}
