package docread

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"iter"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/sourcetext"
)

// DecodeReader reads a YAML or JSON stream from r one document at a time,
// yielding each as DecodeDocuments would (the same values, the same
// positions, empty documents left out), so that a caller judging each
// object as it is read holds one document, not the stream: validate reads
// a 20 MB stream of small objects in the memory of a few.
//
// A YAML stream is cut where a line starts with the marker "---" (which
// YAML forbids at the start of a line inside any scalar), and each part is
// read by the reader DecodeDocuments uses, its lines counted from where
// the part starts. What documents expand to is charged to one budget for
// the stream, budget when not 0, else what inputBudget allows for the
// bytes read so far (so an alias bomb fails as it would read whole). A
// stream that starts like JSON (a kubectl -o json, a JSON stream of
// values) is read whole, within r's own limit, and decoded at once.
//
// An error ends the sequence: it is yielded once, after the documents
// read before it (DecodeDocuments returns no document then), and is an
// *Error or ErrorList with file:line:col, or the error r returned.
func DecodeReader(name string, r io.Reader, budget Size) iter.Seq2[Decoded, error] {
	return func(yield func(Decoded, error) bool) {
		if name == "" || name == "-" {
			name = "<stdin>"
		}
		s := &docStream{name: name, br: bufio.NewReaderSize(r, 64<<10), fixed: budget}
		s.b = NewBudget(max(budget, DefaultBudget))
		for {
			docs, more, err := s.next()
			for _, d := range docs {
				if !yield(Decoded{Value: d.Value, d: d}, nil) {
					return
				}
			}
			if err != nil {
				yield(Decoded{}, err)
				return
			}
			if !more {
				return
			}
		}
	}
}

// docStream is DecodeReader's state: the part being gathered and where
// the stream stands.
type docStream struct {
	name  string
	br    *bufio.Reader
	fixed Size // the caller's budget, 0 for inputBudget of what was read
	b     *Budget

	part     []byte // the lines of the Doc being gathered
	partLine int    // lines before part in the stream
	lines    int    // lines read so far
	read     int64  // bytes read so far
	index    int    // documents yielded so far
	started  bool   // the first line was read
	pending  []byte // a Doc marker line read past the end of part
	eof      bool
}

// next reads the next part of the stream (a YAML document, with the marker
// that opens it, or the whole stream when it is JSON) and decodes it; more
// is false once the stream is done.
func (s *docStream) next() (docs []*Doc, more bool, err error) {
	if s.eof && s.pending == nil {
		return nil, false, nil
	}
	s.part, s.partLine = s.part[:0], s.lines
	if s.pending != nil {
		s.part = append(s.part, s.pending...)
		s.pending = nil
		s.lines++
	}
	if !s.started {
		s.started = true
		if s.startsLikeJSON() {
			return s.whole()
		}
	}
	for !s.eof {
		line, rerr := s.br.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			// A long line: gather it whole.
			full := append([]byte(nil), line...)
			for errors.Is(rerr, bufio.ErrBufferFull) {
				line, rerr = s.br.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, false, rerr
		}
		s.eof = rerr != nil
		if len(line) == 0 {
			break
		}
		s.read += int64(len(line))
		if isDocumentMarker(line) && hasContent(s.part) {
			s.pending = append([]byte(nil), line...)
			break
		}
		s.part = append(s.part, line...)
		s.lines++
	}
	docs, err = s.decode(s.part)
	return docs, !s.eof || s.pending != nil, err
}

// startsLikeJSON reports whether the stream's first text (past blanks
// and a byte order mark) starts like JSON, as sourcetext.LooksLikeJSON
// says of a whole file. Leading blanks longer than the buffer are read as
// YAML (they hold no JSON).
func (s *docStream) startsLikeJSON() bool {
	for n := 512; ; n *= 2 {
		n = min(n, s.br.Size())
		b, err := s.br.Peek(n)
		if t := bytes.TrimLeft(b, " \t\r\n\xef\xbb\xbf"); len(t) > 0 {
			return sourcetext.LooksLikeJSON(t)
		}
		if err != nil || n == s.br.Size() {
			return false
		}
	}
}

// whole reads the rest of a JSON stream and decodes it at once.
func (s *docStream) whole() ([]*Doc, bool, error) {
	src, err := io.ReadAll(s.br)
	if err != nil {
		return nil, false, err
	}
	s.read += int64(len(src))
	s.eof = true
	docs, derr := s.decode(src)
	return docs, false, derr
}

// decode reads src, a part of the stream starting after partLine lines,
// charging the stream's budget.
func (s *docStream) decode(src []byte) ([]*Doc, error) {
	if s.fixed == 0 {
		s.b.Limit = int64(inputBudget(int(s.read)))
		s.b.Values = max(s.b.Limit/BudgetValueCost, 1)
	}
	docs, err := ParseWithin(s.name, src, s.b)
	if s.partLine > 0 {
		for _, d := range docs {
			for k, p := range d.Pos {
				p.Line += s.partLine
				d.Pos[k] = p
			}
		}
		shiftLines(err, s.partLine)
	}
	for _, d := range docs {
		d.Index = s.index
		s.index++
	}
	return docs, err
}

// shiftLines moves the positions of err, an *Error or ErrorList found in
// a part of the stream, by the lines before that part.
func shiftLines(err error, lines int) {
	var list ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			if e.Pos.Line > 0 {
				e.Pos.Line += lines
			}
		}
		return
	}
	var e *Error
	if errors.As(err, &e) && e.Pos.Line > 0 {
		e.Pos.Line += lines
	}
}

// isDocumentMarker reports whether line opens a YAML document: "---" at
// its start, followed by a blank or its end. (A "..." that ends one stays
// in its part: a bare document may follow it there.)
func isDocumentMarker(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\n' || line[3] == '\r'
}

// hasContent reports whether part holds more than blank lines, comments
// and document markers: a part that does not is one yaml.v3 reads as no
// document, so it need not end where a marker begins the next.
func hasContent(part []byte) bool {
	for len(part) > 0 {
		line := part
		if i := bytes.IndexByte(part, '\n'); i >= 0 {
			line, part = part[:i], part[i+1:]
		} else {
			part = nil
		}
		t := bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) && !bytes.Equal(t, []byte("...")) {
			return true
		}
	}
	return false
}
