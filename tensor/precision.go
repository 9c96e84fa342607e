package tensor

import "fmt"

// Precision is how a real chip stores a tensor and computes on it:
// float32 (F32, the zero value), bfloat16 (BF16), float16 (F16) or int32
// ids (I32). stridelab computes every value in float32 (ids in int32) on
// every engine; a tensor's precision is what the cost model counts: the
// bytes an element takes in memory and on the wire (Bytes) and the peak
// a chip computes it at (a cluster's 16-bit FLOP/s for BF16 and F16).
type Precision uint8

const (
	F32 Precision = iota
	BF16
	F16
	I32
)

// Bytes is the width of one element: 4 for F32 and I32, 2 for BF16 and
// F16.
func (p Precision) Bytes() int {
	if p == BF16 || p == F16 {
		return 2
	}
	return 4
}

// Half reports whether p is a 16-bit float (BF16 or F16): what a chip's
// tensor cores run at their 16-bit peak.
func (p Precision) Half() bool { return p == BF16 || p == F16 }

// String is the language's word: f32, bf16, f16, i32.
func (p Precision) String() string {
	switch p {
	case F32:
		return "f32"
	case BF16:
		return "bf16"
	case F16:
		return "f16"
	case I32:
		return "i32"
	}
	return fmt.Sprintf("Precision(%d)", uint8(p))
}

// ParsePrecision reads a precision's word (f32, bf16, f16, i32),
// reporting whether it is one.
func ParsePrecision(word string) (Precision, bool) {
	for _, p := range []Precision{F32, BF16, F16, I32} {
		if p.String() == word {
			return p, true
		}
	}
	return F32, false
}

// PromotePrecision is the precision of an op's float result from the
// precisions of its float operands, as PyTorch's type promotion gives
// it: the operands' own when they agree, F32 when any is F32 or when
// BF16 meets F16 (neither holds the other). Ids (I32) are not operands
// of arithmetic and are skipped; with no float operand the result is
// F32.
func PromotePrecision(ps ...Precision) Precision {
	out, seen := F32, false
	for _, p := range ps {
		switch {
		case p == I32:
		case !seen:
			out, seen = p, true
		case p != out:
			out = F32
		}
	}
	return out
}

// MarshalText writes p's word, so JSON shows "bf16".
func (p Precision) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a precision's word.
func (p *Precision) UnmarshalText(b []byte) error {
	v, ok := ParsePrecision(string(b))
	if !ok {
		return newError(ErrDType, fmt.Sprintf("precision %q", b), "the precisions are f32, bf16, f16 and i32")
	}
	*p = v
	return nil
}

// Precision is the precision a value of dtype d is counted at: F32 for
// float32, I32 for the 4-byte integers.
func (d DType) Precision() Precision {
	if d == Float32 {
		return F32
	}
	return I32
}
