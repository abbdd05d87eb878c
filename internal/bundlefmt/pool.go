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
// structures and descriptions alike, so every bundle keeps both in one pool, each distinct
// byte string once, stored as it is: a compile against any minor, with descriptions or
// without, reads them where they lie in the binary, nothing to inflate.
//
//	magic   "KCRPOOL\x07"
//	chunks  u32 count, then per chunk three u32: offset in the file, length, CRC-32 (IEEE)
//	data    the chunks, stored
//
// A pool chunk holds consecutive byte strings up to ChunkSize (a larger one gets a chunk of
// its own); a bundle's span names pool chunk k as chunk number (its own chunk count + k).
// Its CRC-32 is checked by Check (the tests check every embedded bundle's), not when a span
// in it is read: see Reader.

// poolMagic opens every pool; its last byte is the format version.
const poolMagic = "KCRPOOL\x07"

// PoolSuffix ends the pool's file name: data/shared.pool.
const PoolSuffix = ".pool"

// Pool is an opened pool, read in place; safe for concurrent use.
type Pool struct {
	data   []byte
	chunks []chunk
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
	end := pos + 12*int(n)
	chunks, err := readChunkTable(data[pos:end], n, int64(end), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("pool: %w", err)
	}
	return &Pool{data: data, chunks: chunks}, nil
}

func (p *Pool) chunkData(i int) []byte {
	c := p.chunks[i]
	return p.data[c.off : c.off+c.n : c.off+c.n]
}

// Check checks the CRC-32 of every chunk of the pool.
func (p *Pool) Check() error {
	var errs []error
	for i, c := range p.chunks {
		if crc32.ChecksumIEEE(p.chunkData(i)) != c.crc {
			errs = append(errs, fmt.Errorf("bundlefmt: pool chunk %d: %w", i, errCRC))
		}
	}
	return errors.Join(errs...)
}

// BuildPool moves the structures and descriptions of bundles (opened from what Write wrote
// or from an earlier BuildPool's output) into one pool, each distinct byte string once, and
// returns the pool and each bundle rewritten to read from it, with no chunk of its own: the
// same manifest (Format set to FormatVersion) and names. Byte strings are laid out in the
// order they first appear, bundle by bundle as given and, within one, in the order they lie
// in it, structures before descriptions: pass the newest minor first, so that what most
// compiles read lies together. The output depends only on the definitions the bundles hold,
// not on whether they were pooled before.
func BuildPool(bundles []*Reader) (pool []byte, out [][]byte, err error) {
	var pc chunker
	where := map[string][3]uint32{} // byte string -> pool chunk, offset, length
	spans := make([][][2][3]uint32, len(bundles))
	for b, r := range bundles {
		spans[b] = make([][2][3]uint32, len(r.names))
		for k := range 2 { // structures, then descriptions
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

// rewrite writes r anew with its structures and descriptions at the pool spans given (per
// definition, by kind; pool chunk numbers), no chunk of its own.
func (r *Reader) rewrite(spans [][2][3]uint32) ([]byte, error) {
	var m Manifest
	if err := json.Unmarshal(r.Manifest, &m); err != nil {
		return nil, fmt.Errorf("bundlefmt: manifest: %w", err)
	}
	m.Format = FormatVersion
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("bundlefmt: manifest: %w", err)
	}
	manifest = append(manifest, '\n')
	defs := make([][6]uint32, len(r.names))
	for i := range r.names {
		for k, at := range spans[i] {
			if at[2] > 0 { // none: all zero, as Write leaves it
				defs[i][3*k], defs[i][3*k+1], defs[i][3*k+2] = at[0], at[1], at[2]
			}
		}
	}
	var out bytes.Buffer
	if err := assemble(&out, manifest, strings.Join(r.names, "\n")+"\n", defs, nil); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// assemble writes a bundle's bytes: magic, manifest, names, definition and chunk tables,
// chunks.
func assemble(out *bytes.Buffer, manifest []byte, names string, defs [][6]uint32, chunks [][]byte) error {
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
	offset := out.Len() + 12*len(chunks)
	for _, c := range chunks {
		u32(uint32(offset))
		u32(uint32(len(c)))
		u32(crc32.ChecksumIEEE(c))
		offset += len(c)
	}
	for _, c := range chunks {
		out.Write(c)
	}
	if out.Len() > math.MaxUint32 {
		return errors.New("bundlefmt: a bundle of 4 GiB or more")
	}
	return nil
}
