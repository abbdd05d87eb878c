// Command image builds the operator's OCI image from static
// k8s-crd-resolver-reconcile binaries, without a container daemon (see
// package internal/image), and writes it as an OCI archive and/or pushes it:
//
//	go run ./hack/image -binary linux/amd64=bin/amd64/k8s-crd-resolver-reconcile \
//	    -binary linux/arm64=bin/arm64/k8s-crd-resolver-reconcile \
//	    -version vX.Y.Z -o ../bin/dask-operator-image.tar \
//	    [-push ghcr.io/k8s-crd-resolver/dask-operator:vX.Y.Z]
//
// `make image` runs it. SOURCE_DATE_EPOCH dates the image (default: the
// Unix epoch), so the same binaries give the same digest.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/image"
)

type binaries []string

func (b *binaries) String() string     { return strings.Join(*b, ",") }
func (b *binaries) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	var bins binaries
	version := flag.String("version", "", "operator version for the image's labels")
	out := flag.String("o", "", "write the image index as an OCI archive (tar of an OCI image layout) here")
	push := flag.String("push", "", "push the image index to this registry reference")
	insecure := flag.Bool("insecure", false, "allow a plain-HTTP registry for -push")
	flag.Var(&bins, "binary", "OS/ARCH=PATH of a static operator binary (repeat per platform)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, bins, *version, *out, *push, *insecure); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bins []string, version, out, push string, insecure bool) error {
	if len(bins) == 0 || out == "" && push == "" {
		return errors.New("usage: image -binary OS/ARCH=PATH... [-version V] (-o FILE | -push REF)")
	}
	opts := image.Options{Version: version, Source: "https://github.com/k8s-crd-resolver/k8s-crd-resolver"}
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
		}
		opts.Created = time.Unix(sec, 0)
	}
	var list []image.Binary
	for _, b := range bins {
		plat, file, ok := strings.Cut(b, "=")
		osName, arch, ok2 := strings.Cut(plat, "/")
		if !ok || !ok2 {
			return fmt.Errorf("-binary %q: want OS/ARCH=PATH", b)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		list = append(list, image.Binary{Platform: v1.Platform{OS: osName, Architecture: arch}, Data: data})
	}
	idx, err := image.Index(list, opts)
	if err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if err := image.WriteOCIArchive(f, idx); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Printf("%s %s\n", out, digest)
	}
	if push != "" {
		if err := image.Push(ctx, push, idx, insecure); err != nil {
			return err
		}
		fmt.Printf("%s@%s\n", push, digest)
	}
	return nil
}
