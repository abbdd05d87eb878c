package resolver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// benchTemplate is a DaskCluster-like template: a scheduler with a PodSpec
// and a ServiceSpec, a worker group with a PodSpec.
const benchTemplate = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: daskclusters.kubernetes.dask.org
spec:
  group: kubernetes.dask.org
  names: {kind: DaskCluster, plural: daskclusters}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [scheduler, worker]
            properties:
              idleTimeout: {type: integer}
              scheduler:
                type: object
                properties:
                  metadata: {$ref: '#/definitions/Metadata'}
                  spec: {$ref: io.k8s.api.core.v1.PodSpec}
                  service: {$ref: io.k8s.api.core.v1.ServiceSpec}
              worker:
                type: object
                properties:
                  replicas: {type: integer, minimum: 0}
                  metadata: {$ref: '#/definitions/Metadata'}
                  spec: {$ref: io.k8s.api.core.v1.PodSpec}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
definitions:
  Metadata:
    type: object
    properties:
      labels: {type: object, additionalProperties: {type: string}}
      annotations: {type: object, additionalProperties: {type: string}}
`

// BenchmarkCompileDaskCluster compiles a DaskCluster-like template with a
// fresh Compiler each time, as one CLI invocation does, and encodes it.
func BenchmarkCompileDaskCluster(b *testing.B) {
	for _, remove := range []bool{false, true} {
		name := "descriptions"
		if remove {
			name = "remove-descriptions"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			var size int
			for b.Loop() {
				c, err := New(Options{KubeVersion: "1.30", WorkDir: dir, RemoveDescriptions: remove})
				if err != nil {
					b.Fatal(err)
				}
				res, err := c.Compile(filepath.Join(dir, "daskcluster.yaml"), []byte(benchTemplate))
				if err != nil {
					b.Fatal(err)
				}
				out, err := res.YAML()
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "output-bytes")
		})
	}
}

// BenchmarkCompileTemplatesDir compiles the repo's own templates/ with one
// Compiler, as `build` does, without Kubernetes' descriptions (the Dask
// set of .crd-resolver.yaml, `-r`).
func BenchmarkCompileTemplatesDir(b *testing.B) { benchTemplatesDir(b, "1.30", true) }

// BenchmarkCompileOperatorSet is BenchmarkCompileTemplatesDir with the
// descriptions, for the newest minor: the operator's set, the costlier
// half of this repository's build.
func BenchmarkCompileOperatorSet(b *testing.B) { benchTemplatesDir(b, "1.37", false) }

// BenchmarkCompileTemplatesDirRemove137 is BenchmarkCompileTemplatesDir
// for the newest minor: what dist/ cost before fitDescriptions.
func BenchmarkCompileTemplatesDirRemove137(b *testing.B) { benchTemplatesDir(b, "1.37", true) }

// BenchmarkCompileTemplatesDirFitted is the Dask set of .crd-resolver.yaml
// as it is now: fitDescriptions: client-side-apply (262,078 bytes), for
// the newest minor. Against BenchmarkCompileOperatorSet (the same
// compile with every description, rendered) it is the cost of fitting.
func BenchmarkCompileTemplatesDirFitted(b *testing.B) {
	benchTemplatesDirWith(b, Options{KubeVersion: "1.37", FitDescriptions: 262_078})
}

func benchTemplatesDir(b *testing.B, version string, remove bool) {
	benchTemplatesDirWith(b, Options{KubeVersion: version, RemoveDescriptions: remove})
}

func benchTemplatesDirWith(b *testing.B, opts Options) {
	files, _ := filepath.Glob("../templates/dask*.yaml")
	// NAME.patch.yaml beside a template is its JSON patch, not a template
	// (applying them changes a few nodes: left out here).
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".patch.yaml") })
	if len(files) == 0 {
		b.Skip("no templates")
	}
	srcs := map[string][]byte{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs[f] = src
	}
	wd, _ := os.Getwd()
	opts.WorkDir = wd
	for b.Loop() {
		c, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range files {
			res, err := c.Compile(f, srcs[f])
			if err != nil {
				b.Fatal(err)
			}
			if _, err := res.YAML(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCompileDaskHook compiles testdata/dask-layout's templates as
// Dask's pre-commit hook does (-r -j NAME.patch.yaml, a fresh Compiler per
// file, refs pinned to 1.21, the newest minor the target).
func BenchmarkCompileDaskHook(b *testing.B) {
	root, err := filepath.Abs("../testdata/dask-layout")
	if err != nil {
		b.Fatal(err)
	}
	cr := filepath.Join(root, "dask_kubernetes/operator/customresources")
	for _, name := range []string{"daskcluster", "daskworkergroup"} {
		b.Run(name, func(b *testing.B) {
			src, err := os.ReadFile(filepath.Join(cr, name+".yaml"))
			if err != nil {
				b.Fatal(err)
			}
			patchSrc, err := os.ReadFile(filepath.Join(cr, name+".patch.yaml"))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				p, err := ParsePatch(name+".patch.yaml", patchSrc)
				if err != nil {
					b.Fatal(err)
				}
				c, err := New(Options{WorkDir: root, Root: root, RemoveDescriptions: true, Patch: p})
				if err != nil {
					b.Fatal(err)
				}
				res, err := c.Compile(filepath.Join(cr, name+".yaml"), src)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := res.YAML(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseTemplates reads each of this repository's templates (not
// their JSON patches) as a build reads them, Parse within the default
// budget.
func BenchmarkParseTemplates(b *testing.B) {
	paths, err := filepath.Glob(filepath.Join("..", "templates", "*.yaml"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("templates: %v", err)
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return strings.HasSuffix(p, ".patch.yaml") })
	var srcs [][]byte
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			if s := Parse(paths[i], src, 0); s.Err() != nil {
				b.Fatal(s.Err())
			}
		}
	}
}
