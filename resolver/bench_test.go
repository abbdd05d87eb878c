package resolver

import (
	"os"
	"testing"
)

func BenchmarkCompilePodTemplate(b *testing.B) {
	src, err := os.ReadFile("/tmp/t1/tpl.yaml")
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		c, err := New(Options{KubeVersion: "1.30", WorkDir: "/tmp/t1"})
		if err != nil {
			b.Fatal(err)
		}
		res, err := c.Compile("tpl.yaml", src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := res.YAML(); err != nil {
			b.Fatal(err)
		}
	}
}
