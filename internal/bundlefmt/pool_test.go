package bundlefmt

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestBuildPool: two bundles sharing most definitions (and one that is not Normalized)
// pooled read back every structure, description and fragment as written; shared byte
// strings are stored once; pooling the output again gives the same bytes; a pooled
// bundle does not open without its pool.
func TestBuildPool(t *testing.T) {
	var datas [][]byte
	want := make([]map[string][3]string, 3)
	for b := range 3 {
		defs, frags := map[string][]byte{}, map[string][]byte{}
		want[b] = map[string][3]string{}
		for i := range 30 {
			name := fmt.Sprintf("io.k8s.api.x.v1.T%02d", i)
			structure := fmt.Sprintf(`{"properties":{"f%d":{"type":"string"}},"type":"object","x":%q}`, i, strings.Repeat("s", i*150))
			if i%5 == b { // differs between the bundles
				structure = fmt.Sprintf(`{"type":"string","b":%d,"x":%q}`, b, strings.Repeat("d", i*100))
			}
			descs, frag := "", ""
			if i%3 == 0 {
				descs = fmt.Sprintf(`{"":"T%d of bundle %d."}`, i, b)
			}
			if i%2 == 0 && b < 2 {
				frag = fmt.Sprintf("fragment %d %s", i, strings.Repeat("f", i*40))
				frags[name] = []byte(frag)
			}
			data := structure
			if descs != "" && b < 2 {
				data += "\n" + descs
			}
			defs[name] = []byte(data)
			want[b][name] = [3]string{structure, descs, frag}
			if b == 2 {
				want[b][name] = [3]string{data, "", ""}
			}
		}
		var buf bytes.Buffer
		m := Manifest{KubernetesVersion: fmt.Sprintf("v1.9%d.0", b), Module: "k8s.io/kubernetes", Normalized: b < 2, Uncompressed: b == 1}
		if b == 2 {
			frags = nil
		}
		if err := Write(&buf, m, defs, frags, nil); err != nil {
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
		h, err := DecodeHeader(r.Manifest)
		if err != nil || h.Format != FormatVersion || bytes.Contains(r.Manifest, []byte("uncompressed")) {
			t.Errorf("bundle %d: manifest %s, %v", b, r.Manifest, err)
		}
		for name, w := range want[b] {
			i, _ := r.Find(name)
			s, err := r.AppendStructure(nil, i)
			d, err2 := r.AppendDescriptions(nil, i)
			f, err3 := r.Fragments(i)
			if string(s) != w[0] || string(d) != w[1] || string(f) != w[2] || err != nil || err2 != nil || err3 != nil {
				t.Errorf("bundle %d, %s: %.40q %q %.40q (%v %v %v), want %.40q %q %.40q", b, name, s, d, f, err, err2, err3, w[0], w[1], w[2])
			}
			if b < 2 {
				total += len(w[0]) + len(w[2])
			}
		}
	}
	if len(poolData) >= total*2/3 {
		t.Errorf("a pool of %d bytes for %d bytes of structures and fragments", len(poolData), total)
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
	if _, err := Open(out[2]); err != nil {
		t.Errorf("the bundle that is not Normalized needs no pool: %v", err)
	}
}

// TestOpenPoolRefuses: a pool whose index lies.
func TestOpenPoolRefuses(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":    nil,
		"magic":    []byte("KCRPOOX\x05\x00\x00\x00\x00"),
		"version":  []byte("KCRPOOL\x04\x00\x00\x00\x00"),
		"count":    []byte("KCRPOOL\x05\xff\x00\x00\x00"),
		"outside":  []byte("KCRPOOL\x05\x01\x00\x00\x00\x14\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00"),
		"overlaps": []byte("KCRPOOL\x05\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"),
	} {
		if _, err := OpenPool(data); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}
