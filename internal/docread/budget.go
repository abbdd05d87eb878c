package docread

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Size is a number of bytes. As a command-line flag (it implements the
// flag.Value and pflag.Value methods) it reads a plain number of bytes or
// a number with a unit: Ki, Mi, Gi, Ti (powers of 1024, also written KiB,
// MiB...) or k, M, G, T (powers of 1000, also kB, MB...), as Kubernetes
// quantities do: "64Mi", "64MiB", "67108864".
type Size int64

// DefaultBudget is Options.Budget when it is zero. The largest CRD in
// this repository (dist/daskjob with every Kubernetes description) is
// about 1.07 MB of compact JSON in 16,000 values, and the largest
// published CRDs about 3 MB; etcd refuses objects over 1.5 MiB unless
// reconfigured. 16 MiB (and 512 Ki values) is five times the largest real
// CRD, and keeps what a blow-up can make the compiler hold in memory
// under 100 MiB.
const DefaultBudget Size = 16 << 20

// BudgetValueCost is how many budget bytes one value (node) costs in the
// value count: the value limit is budget/BudgetValueCost. Real CRDs spend
// 16 (without descriptions) to 66 (with Kubernetes' descriptions) bytes
// of JSON per value; a materialised value costs about 200 bytes of memory.
const BudgetValueCost = 32

var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30, "ti": 1 << 40, "tib": 1 << 40,
}

// ParseSize reads a size as Size.Set does.
func ParseSize(s string) (Size, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("%w: size %q: want a number of bytes, optionally with a unit (Ki, Mi, Gi, KiB, MiB, GiB, k, M, G, kB, MB, GB), e.g. 64Mi", ErrInput, s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("%w: size %q is not a number of bytes that fits in 63 bits", ErrInput, s)
	}
	n := int64(f * float64(mult))
	if n <= 0 {
		return 0, fmt.Errorf("%w: size %q: want more than 0 bytes", ErrInput, s)
	}
	return Size(n), nil
}

// Set parses s (see ParseSize).
func (s *Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = n
	return nil
}

// String renders the size with the largest binary unit that divides it
// ("16MiB"), else as bytes; zero is "0" (the default budget).
func (s Size) String() string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if s != 0 && s%(1<<u.shift) == 0 {
			return strconv.FormatInt(int64(s>>u.shift), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10)
}

// Type names the flag's value type for help texts.
func (s *Size) Type() string { return "size" }

// human renders a byte count for messages: "16 MiB", "1.5 GiB", "812 bytes".
func Human(n int64) string {
	if n >= CostCap {
		return "more than 1 EiB"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	if n < 1<<10 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	f, u := float64(n)/1024, 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f %s", f, units[u])
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// CostCap is where cost arithmetic saturates: a $ref expansion can stand
// for 10^20 values and more, which must not wrap around.
const CostCap = 1 << 60

func Sat(n int64) int64 { return min(n, CostCap) }

// cost is what a value adds to a compile, counted as the compact JSON that
// encoding/json would write for it (the form the apiserver stores).
type Cost struct {
	Nodes  int64 // JSON values (objects, arrays and scalars)
	Bytes  int64 // compact JSON bytes, HTML-escaped as encoding/json does
	Indent int64 // the sum of every value's nesting depth below this one (YAML indents each level by two spaces)
	Depth  int64 // the deepest nesting below this value
	// Partial: measuring stopped at the budget, so the value is larger
	// than this says (and over the budget).
	Partial bool
}

func (c Cost) Plus(d Cost) Cost {
	return Cost{Nodes: Sat(c.Nodes + d.Nodes), Bytes: Sat(c.Bytes + d.Bytes), Indent: Sat(c.Indent + d.Indent), Depth: max(c.Depth, d.Depth), Partial: c.Partial || d.Partial}
}

func (c Cost) Minus(d Cost) Cost {
	return Cost{Nodes: c.Nodes - d.Nodes, Bytes: c.Bytes - d.Bytes, Indent: c.Indent - d.Indent}
}

// at returns c as placed depth levels below the document root.
func (c Cost) At(depth int64) Cost {
	if depth > 0 && c.Nodes > CostCap/depth {
		c.Indent = CostCap
	} else {
		c.Indent = Sat(c.Indent + c.Nodes*depth)
	}
	c.Depth += depth
	return c
}

// Budget is the allowance of one Compile (see Options.Budget). used grows
// monotonically with what the compile builds: the values it parses
// (template and files it reads, after alias expansion), the expanded size
// of every $ref spliced into a template's schema (shared in memory, but
// that is the output the compile makes), and what patch operations add.
// work counts the values the resolver creates (decodes and copies), which
// bounds the time spent even where nothing is spliced yet.
type Budget struct {
	Limit  int64 // bytes
	Values int64 // Limit/BudgetValueCost
	Used   Cost
	Work   int64
}

func NewBudget(limit Size) *Budget {
	if limit <= 0 {
		limit = DefaultBudget
	}
	return &Budget{Limit: int64(limit), Values: max(int64(limit)/BudgetValueCost, 1)}
}

// over explains how c exceeds the budget, or returns "".
func (b *Budget) Over(c Cost) string {
	if c.Partial {
		// Measuring stopped once past the budget: say only that.
		return fmt.Sprintf("more than the %d values a %s budget allows (one per %d bytes)", b.Values, Human(b.Limit), BudgetValueCost)
	}
	switch {
	case c.Bytes > b.Limit:
		have, limit := Human(c.Bytes), Human(b.Limit)
		if have == limit || have == strings.Replace(limit, " ", ".0 ", 1) {
			have, limit = fmt.Sprintf("%d bytes", c.Bytes), fmt.Sprintf("%d-byte (%s)", b.Limit, limit)
		}
		return fmt.Sprintf("%s of JSON, over the %s budget", have, limit)
	case c.Nodes > b.Values:
		return fmt.Sprintf("%s values, over the %d values a %s budget allows (one per %d bytes)", countString(c.Nodes), b.Values, Human(b.Limit), BudgetValueCost)
	case c.Indent > b.Limit:
		return fmt.Sprintf("YAML indentation of %s, over twice the %s budget (the values nest too deep for their number)", Human(Sat(2*c.Indent)), Human(b.Limit))
	}
	return ""
}

func countString(n int64) string {
	if n >= CostCap {
		return "more than 10^18"
	}
	return strconv.FormatInt(n, 10)
}

// charge adds c to what the compile has built and explains the excess
// when that goes over the budget.
func (b *Budget) Charge(c Cost) string {
	u := &b.Used
	u.Nodes, u.Bytes, u.Indent = Sat(u.Nodes+c.Nodes), Sat(u.Bytes+c.Bytes), Sat(u.Indent+c.Indent)
	u.Partial = u.Partial || c.Partial
	return b.Over(*u)
}

// chargeWork adds n created values and reports whether that is over.
func (b *Budget) ChargeWork(n int64) bool {
	b.Work = Sat(b.Work + n)
	return b.Work > b.Values
}

// raiseHint ends every budget message.
const raiseHint = "; if the CRD is really this large, raise the budget with --budget (Options.Budget)"

// BudgetError is the cause of an *Error for an exceeded budget: msg
// says what crossed it and by how much.
func BudgetError(msg string) error {
	return fmt.Errorf("%w: %s%s", ErrBudget, msg, raiseHint)
}

// ScalarJSONLen is the length encoding/json writes for a scalar.
func ScalarJSONLen(v any) int64 {
	switch t := v.(type) {
	case nil:
		return 4
	case bool:
		if t {
			return 4
		}
		return 5
	case string:
		return JSONStringLen(t)
	case json.Number:
		if len(t) > 0 {
			return int64(len(t))
		}
		return 1 // encoding/json writes an empty json.Number as 0
	case int:
		return int64(len(strconv.Itoa(t)))
	case int64:
		return int64(len(strconv.FormatInt(t, 10)))
	case float64:
		return int64(len(strconv.FormatFloat(t, 'g', -1, 64)))
	}
	return int64(len(fmt.Sprint(v)))
}

// JSONLen is the length of json.Marshal(v) for a JSON-like value (what
// the readers give: maps with string keys, slices, and the scalars
// ScalarJSONLen counts), counted without writing it.
func JSONLen(v any) int64 {
	switch t := v.(type) {
	case map[string]any:
		n := int64(2 + max(len(t)-1, 0)) // braces, commas
		for k, e := range t {
			n += JSONStringLen(k) + 1 + JSONLen(e)
		}
		return n
	case []any:
		n := int64(2 + max(len(t)-1, 0)) // brackets, commas
		for _, e := range t {
			n += JSONLen(e)
		}
		return n
	}
	return ScalarJSONLen(v)
}

// jsonExtra[c] is how many bytes encoding/json adds to an ASCII byte c
// inside a string: \" \\ \n \r \t \b \f take 2, other control characters
// and the HTML-sensitive <, > and & take 6 (\u003c).
var jsonExtra = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			t[c] = 1
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			t[c] = 5
		}
	}
	return t
}()

// JSONStringLen is the length of s as a JSON string written by
// encoding/json (quotes and escapes included; invalid UTF-8 bytes become
// \ufffd, U+2028 and U+2029 are escaped).
func JSONStringLen(s string) int64 {
	n := int64(len(s)) + 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += int64(jsonExtra[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5
		case r == '\u2028' || r == '\u2029':
			n += 3
		}
		i += size
	}
	return n
}
