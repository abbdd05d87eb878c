package bundlefmt

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strings"
)

// The shared pool. Consecutive Kubernetes minors share most definitions byte for byte,
// structures, descriptions and fragments alike (fragments name other definitions, never a
// minor): of the 25 MB the bundles of 1.16 to 1.37 hold, 5.7 MB are distinct (structures
// and fragments 9.4 MB, 2.4 MB distinct; descriptions 15.6 MB, 3.3 MB distinct). So the
// Normalized bundles keep all three in one pool, each distinct byte string once, stored as
// it is: a compile against any minor, with descriptions or without, reads them where they
// lie in the binary, nothing to inflate (what made the newest minors fast when they alone
// were stored), and the binary is smaller than with every minor's deflated (distinct
// descriptions, stored, take less than every minor's deflated).
//
//	magic   "KCRPOOL\x06"
//	chunks  u32 count, then per chunk three u32: offset in the file, length, CRC-32 (IEEE)
//	data    the chunks, stored
//
// A pool chunk holds consecutive byte strings up to ChunkSize (a larger one gets a chunk of
// its own); a bundle's span names pool chunk k as chunk number (its own chunk count + k).
// Its CRC-32 is checked by Check (the tests check every embedded bundle's), not when a span
// in it is read: see Reader.

// poolMagic opens every pool; its last byte is the format version.
const poolMagic = "KCRPOOL\x06"

// PoolSuffix ends the pool's file name: data/shared.pool.
const PoolSuffix = ".pool"

// Pool is an opened pool, read in place; safe for concurrent use.
type Pool struct {
	data   []byte
	chunks []chunkHead // stored: clen 0
}

// OpenPool checks the index of pool data, read where it lies: data must not change while
// the Pool or a Reader over it is in use.
func OpenPool(data []byte) (*Pool, error) {
	if len(data) < len(poolMagic)+4 || string(data[:len(poolMagic)-1]) != poolMagic[:len(poolMagic)-1] {
		return nil, errors.New("bundlefmt: not a pool")
	}
	if data[len(poolMagic)-1] != poolMagic[len(poolMagic)-1] {
		return nil, fmt.Errorf("bundlefmt: pool format %d, want %d", data[len(poolMagic)-1], FormatVersion)
	}
	pos := len(poolMagic)
	n := binary.LittleEndian.Uint32(data[pos:])
	pos += 4
	if uint64(n)*12 > uint64(len(data)-pos) {
		return nil, errors.New("bundlefmt: truncated pool (chunk table)")
	}
	p := &Pool{data: data, chunks: make([]chunkHead, n)}
	end := pos + 12*int(n)
	for i := range p.chunks {
		t := data[pos+12*i:]
		c := &p.chunks[i]
		c.off, c.ulen, c.crc = binary.LittleEndian.Uint32(t), binary.LittleEndian.Uint32(t[4:]), binary.LittleEndian.Uint32(t[8:])
		if int64(c.off) < int64(end) || int64(c.off)+int64(c.ulen) > int64(len(data)) {
			return nil, fmt.Errorf("bundlefmt: pool chunk %d lies outside the pool", i)
		}
		if c.ulen > MaxChunkSize {
			return nil, fmt.Errorf("bundlefmt: pool chunk %d has %d bytes, over the limit of %d", i, c.ulen, MaxChunkSize)
		}
	}
	return p, nil
}

func (p *Pool) chunk(i int) (*chunkHead, []byte, error) {
	c := &p.chunks[i]
	return c, p.data[c.off : c.off+c.ulen : c.off+c.ulen], nil // stored: its CRC-32 is Check's
}

// BuildPool moves the structures and fragments of bundles (opened from what Write wrote or
// from an earlier BuildPool's output) into one pool, each distinct byte
// string once, and returns the pool and each bundle rewritten to read from it: the same
// manifest (Format set to FormatVersion, Uncompressed dropped: the pool is stored), names
// and descriptions (their deflated chunks copied as they are). Byte strings are laid out in
// the order they first appear, bundle by bundle as given and, within one, in the order they
// lie in it (Write lays out fragments in the order a compile reads them): pass the newest
// minor first, so that what most compiles read lies together. A bundle that is not
// Normalized keeps its chunks (its structures hold the descriptions); only its manifest is
// rewritten. The output depends only on
// the definitions the bundles hold, not on whether they were pooled before.
func BuildPool(bundles []*Reader) (pool []byte, out [][]byte, err error) {
	var pc chunker
	where := map[string][3]uint32{} // byte string -> pool chunk, offset, length
	spans := make([][][3][3]uint32, len(bundles))
	for b, r := range bundles {
		h, err := DecodeHeader(r.Manifest)
		if err != nil {
			return nil, nil, err
		}
		if !h.Normalized {
			continue // its structures hold the descriptions: kept as they are
		}
		spans[b] = make([][3][3]uint32, len(r.names))
		for _, k := range []int{0, 2, 1} { // structures, fragments, then descriptions
			order := make([]int, 0, len(r.names))
			for i := range r.names {
				if k == 0 || r.def(i, k).n > 0 { // a structure is never empty
					order = append(order, i)
				}
			}
			slices.SortStableFunc(order, func(a, c int) int {
				x, y := r.def(a, k), r.def(c, k)
				return cmp.Or(cmp.Compare(x.chunk, y.chunk), cmp.Compare(x.off, y.off))
			})
			for _, i := range order {
				blob, err := r.spanData(i, r.def(i, k))
				if err != nil {
					return nil, nil, err
				}
				at, ok := where[string(blob)]
				if !ok {
					c, off, n := pc.add(blob)
					at = [3]uint32{c, off, n}
					where[string(blob)] = at
				}
				spans[b][i][k] = at
			}
		}
	}
	pc.flush()
	for b, r := range bundles {
		rewritten, err := r.rewrite(spans[b])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, rewritten)
	}
	var buf bytes.Buffer
	u32 := func(v uint32) { buf.Write(binary.LittleEndian.AppendUint32(nil, v)) }
	buf.WriteString(poolMagic)
	u32(uint32(len(pc.chunks)))
	offset := buf.Len() + 12*len(pc.chunks)
	for _, c := range pc.chunks {
		u32(uint32(offset))
		u32(uint32(len(c)))
		u32(crc32.ChecksumIEEE(c))
		offset += len(c)
	}
	for _, c := range pc.chunks {
		buf.Write(c)
	}
	if buf.Len() > math.MaxUint32 {
		return nil, nil, errors.New("bundlefmt: a pool of 4 GiB or more")
	}
	return buf.Bytes(), out, nil
}

// rewrite writes r anew with its structures, descriptions and fragments at the pool spans
// given (per definition, by kind; pool chunk numbers), no chunk of its own; a bundle that is
// not Normalized (spans nil) with its chunks as they are.
func (r *Reader) rewrite(spans [][3][3]uint32) ([]byte, error) {
	var m Manifest
	if err := json.Unmarshal(r.Manifest, &m); err != nil {
		return nil, fmt.Errorf("bundlefmt: manifest: %w", err)
	}
	m.Format, m.Uncompressed = FormatVersion, false
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("bundlefmt: manifest: %w", err)
	}
	manifest = append(manifest, '\n')
	if !m.Normalized {
		return r.assembleAs(manifest)
	}
	defs := make([][9]uint32, len(r.names))
	for i := range r.names {
		for k, at := range spans[i] {
			if at[2] > 0 { // none: all zero, as Write leaves it
				defs[i][3*k], defs[i][3*k+1], defs[i][3*k+2] = at[0], at[1], at[2]
			}
		}
	}
	return r.reassemble(manifest, defs, nil)
}

// assembleAs writes r anew, its own chunks and spans as they are, with manifest.
func (r *Reader) assembleAs(manifest []byte) ([]byte, error) {
	defs := make([][9]uint32, len(r.names))
	for i := range defs {
		for k := range 3 {
			s := r.def(i, k)
			defs[i][3*k], defs[i][3*k+1], defs[i][3*k+2] = s.chunk, s.off, s.n
		}
	}
	all := make([]uint32, len(r.chunks))
	for i := range all {
		all[i] = uint32(i)
	}
	return r.reassemble(manifest, defs, all)
}

// reassemble writes a bundle of r's names with manifest, the definition table defs and r's
// chunks numbered in keep, copied as they are.
func (r *Reader) reassemble(manifest []byte, defs [][9]uint32, keep []uint32) ([]byte, error) {
	chunks := make([]rawChunk, len(keep))
	for i, c := range keep {
		ch := &r.chunks[c]
		n := ch.clen
		if n == 0 {
			n = ch.ulen
		}
		chunks[i] = rawChunk{data: r.data[ch.off : ch.off+n], clen: ch.clen, ulen: ch.ulen, crc: ch.crc}
	}
	var out bytes.Buffer
	if err := assemble(&out, manifest, strings.Join(r.names, "\n")+"\n", defs, chunks); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// rawChunk is a chunk as it is written: its bytes (deflated, or stored when clen is 0), its
// inflated length and CRC-32.
type rawChunk struct {
	data            []byte
	clen, ulen, crc uint32
}

// assemble writes a bundle's bytes: magic, manifest, names, definition and chunk tables,
// chunks.
func assemble(out *bytes.Buffer, manifest []byte, names string, defs [][9]uint32, chunks []rawChunk) error {
	u32 := func(v uint32) { out.Write(binary.LittleEndian.AppendUint32(nil, v)) }
	out.WriteString(magic)
	u32(uint32(len(manifest)))
	out.Write(manifest)
	u32(uint32(len(names)))
	out.WriteString(names)
	u32(uint32(len(defs)))
	for _, d := range defs {
		for _, v := range d {
			u32(v)
		}
	}
	u32(uint32(len(chunks)))
	offset := out.Len() + 16*len(chunks)
	for _, c := range chunks {
		u32(uint32(offset))
		u32(c.clen)
		u32(c.ulen)
		u32(c.crc)
		offset += len(c.data)
	}
	for _, c := range chunks {
		out.Write(c.data)
	}
	if out.Len() > math.MaxUint32 {
		return errors.New("bundlefmt: a bundle of 4 GiB or more")
	}
	return nil
}
