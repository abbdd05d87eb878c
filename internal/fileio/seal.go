package fileio

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
)

// # Seals
//
// A file this tool generates carries, in its first line, the SHA-256 of
// every byte after that line (its seal): the tool may replace or remove a
// file only when it can prove that it wrote it and nobody edited it since.
// The format of the line is the caller's (project's header); this file
// hashes, verifies and patches.

// SealSize is the length of a seal's digest in hex.
const SealSize = 2 * sha256.Size

// Seal returns the seal (hex SHA-256) of body.
func Seal(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// utf8BOM is the byte order mark some editors put at a file's start.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// SplitSealed splits data into its first line (without a UTF-8 byte order
// mark before it, and without its line end, "\n" or "\r\n") and the body
// after that line; ok is false when data holds no newline.
func SplitSealed(data []byte) (line, body []byte, ok bool) {
	data = bytes.TrimPrefix(data, utf8BOM)
	line, body, ok = bytes.Cut(data, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), body, ok
}

// Verify reports whether data is sealed and unchanged: its first line is
// one digestOf reads a seal from (digestOf returns it, and whether the
// line is such a header), and that seal is the SHA-256 of the body after
// the line. A body whose lines end in "\r\n" where the sealed one ended in
// "\n" (git's core.autocrlf) still verifies. The work is linear in data.
func Verify(data []byte, digestOf func(line []byte) (string, bool)) bool {
	line, body, ok := SplitSealed(data)
	if !ok {
		return false
	}
	want, ok := digestOf(line)
	if !ok || len(want) != SealSize {
		return false
	}
	if Seal(body) == want {
		return true
	}
	if !bytes.Contains(body, []byte("\r\n")) {
		return false
	}
	h := sha256.New()
	for rest := body; len(rest) > 0; {
		i := bytes.Index(rest, []byte("\r\n"))
		if i < 0 {
			h.Write(rest)
			break
		}
		h.Write(rest[:i])
		h.Write([]byte("\n"))
		rest = rest[i+2:]
	}
	return hex.EncodeToString(h.Sum(nil)) == want
}

// Patcher is a destination whose bytes already written can be rewritten:
// the io.Writer a Writer's Stage and WriteFile give their write function.
// WriteSealed seals a streamed file through it in one pass.
type Patcher interface {
	io.Writer
	// Patch overwrites len(p) bytes at offset off, all written already.
	Patch(off int64, p []byte) error
}

// placeholder fills a seal's place until the body is hashed.
var placeholder = bytes.Repeat([]byte("0"), SealSize)

// WriteSealed writes a sealed file to w: write is called with a first
// line, header(seal) (ending in "\n", holding the seal once, after
// anything else in it that could look like one), and writes that line and
// then the body. When w is a Patcher, the file is written once, the body
// hashed as it goes, and the seal patched into the line; otherwise write
// is called twice, first to hash the body (a stream cannot be rewritten),
// and must write the same body both times.
func WriteSealed(w io.Writer, header func(seal string) string, write func(w io.Writer, head string) error) error {
	head := header(string(placeholder))
	tee := &teeWriter{h: sha256.New(), skip: len(head)}
	p, ok := w.(Patcher)
	if !ok {
		if err := write(tee, head); err != nil {
			return err
		}
		return write(w, header(hex.EncodeToString(tee.h.Sum(nil))))
	}
	at := bytes.LastIndex([]byte(head), placeholder)
	if at < 0 {
		return errors.New("fileio: WriteSealed: the header holds no seal")
	}
	tee.w = w
	if err := write(tee, head); err != nil {
		return err
	}
	return p.Patch(int64(at), []byte(hex.EncodeToString(tee.h.Sum(nil))))
}

// teeWriter writes to w (when set) and hashes what w took, after its
// first skip bytes.
type teeWriter struct {
	w    io.Writer
	h    hash.Hash
	skip int
}

func (t *teeWriter) Write(p []byte) (n int, err error) {
	n = len(p)
	if t.w != nil {
		n, err = t.w.Write(p)
	}
	q := p[:n]
	if t.skip > 0 {
		k := min(t.skip, len(q))
		q, t.skip = q[k:], t.skip-k
	}
	t.h.Write(q)
	return n, err
}
