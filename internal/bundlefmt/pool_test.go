package bundlefmt

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestBuildPool: three bundles sharing most definitions pooled read back every structure and
// description as written; shared byte strings are stored once; pooling the output again
// gives the same bytes; a pooled bundle does not open without its pool.
func TestBuildPool(t *testing.T) {
	var datas [][]byte
	want := make([]map[string][2]string, 3)
	for b := range 3 {
		defs := map[string][]byte{}
		want[b] = map[string][2]string{}
		for i := range 30 {
			name := fmt.Sprintf("io.k8s.api.x.v1.T%02d", i)
			structure := fmt.Sprintf(`{"properties":{"f%d":{"type":"string"}},"type":"object","x":%q}`, i, strings.Repeat("s", i*150))
			if i%5 == b { // differs between the bundles
				structure = fmt.Sprintf(`{"b":%d,"type":"string","x":%q}`, b, strings.Repeat("d", i*100))
			}
			def, descs := structure, ""
			if i%3 == 0 {
				descs = fmt.Sprintf(`{"":"T%d of bundle %d."}`, i, b%2)
				def = fmt.Sprintf(`{"description":"T%d of bundle %d.",%s`, i, b%2, structure[1:])
			}
			defs[name] = []byte(def)
			want[b][name] = [2]string{structure, descs}
		}
		var buf bytes.Buffer
		m := Manifest{KubernetesVersion: fmt.Sprintf("v1.9%d.0", b), Module: "k8s.io/kubernetes"}
		if err := Write(&buf, m, defs); err != nil {
			t.Fatal(err)
		}
		datas = append(datas, buf.Bytes())
	}
	open := func(datas [][]byte, pool *Pool) []*Reader {
		var rs []*Reader
		for _, d := range datas {
			r, err := OpenPooled(d, pool)
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		return rs
	}
	poolData, out, err := BuildPool(open(datas, nil))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := OpenPool(poolData)
	if err != nil {
		t.Fatal(err)
	}
	pooled := open(out, pool)
	total := 0
	for b, r := range pooled {
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
		if len(r.chunks) != 0 {
			t.Errorf("bundle %d keeps %d chunks of its own", b, len(r.chunks))
		}
		h, err := DecodeHeader(r.Manifest)
		if err != nil || h.Format != FormatVersion {
			t.Errorf("bundle %d: manifest %s, %v", b, r.Manifest, err)
		}
		for name, w := range want[b] {
			i, _ := r.Find(name)
			s, err := r.AppendStructure(nil, i)
			d, err2 := r.AppendDescriptions(nil, i)
			if string(s) != w[0] || string(d) != w[1] || err != nil || err2 != nil {
				t.Errorf("bundle %d, %s: %.40q %q (%v %v), want %.40q %q", b, name, s, d, err, err2, w[0], w[1])
			}
			total += len(w[0]) + len(w[1])
		}
	}
	if len(poolData) >= total/2 {
		t.Errorf("a pool of %d bytes for %d bytes of structures and descriptions", len(poolData), total)
	}
	poolAgain, outAgain, err := BuildPool(pooled)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(poolAgain, poolData) || len(outAgain) != len(out) {
		t.Fatal("pooling the pooled bundles again changed the pool")
	}
	for i := range out {
		if !bytes.Equal(outAgain[i], out[i]) {
			t.Errorf("pooling again changed bundle %d", i)
		}
	}
	if _, err := Open(out[0]); err == nil {
		t.Error("a pooled bundle opened without its pool")
	}
	bad := bytes.Clone(poolData)
	bad[len(bad)-1] ^= 0x10
	if badPool, err := OpenPool(bad); err != nil || badPool.Check() == nil {
		t.Errorf("a flipped bit in the pool: %v, and Check found nothing", err)
	}
}

// TestOpenPoolRefuses: a pool whose index lies.
func TestOpenPoolRefuses(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":    nil,
		"magic":    []byte("KCRPOOX\x07\x00\x00\x00\x00"),
		"version":  []byte("KCRPOOL\x06\x00\x00\x00\x00"),
		"count":    []byte("KCRPOOL\x07\xff\x00\x00\x00"),
		"outside":  []byte("KCRPOOL\x07\x01\x00\x00\x00\x14\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00"),
		"overlaps": []byte("KCRPOOL\x07\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"),
	} {
		if _, err := OpenPool(data); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}
