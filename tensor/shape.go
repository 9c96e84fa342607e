package tensor

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Shape is the size of each dimension, outermost first. The empty Shape is a
// 0-d tensor (a scalar) with one element.
type Shape []int

// String formats the shape as Go prints an []int, [4 3 1 2] (a scalar:
// []), for error messages and descriptions: the words of this package's
// errors name shapes this way. A shape written for a command line, a
// program or a URL to read back is Spell's.
func (s Shape) String() string { return fmt.Sprint([]int(s)) }

// Spell writes s as ParseShape reads it back, the one spelling of a
// shape that a command line's --shape, a program's input statement and
// a scene's URL take: 4,3,1,2, and () for a scalar (an empty string
// would read as a flag not given).
func (s Shape) Spell() string { return SpellInts(s) }

// Clone returns a copy that does not alias s.
func (s Shape) Clone() Shape { return append(Shape{}, s...) }

// Equal reports whether s and t have the same rank and sizes.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Unravel returns the index at row-major position n of s: the index i
// with n = Σ_d i[d]·Π_{e>d} s[e], each i[d] in [0, s[d]).
func (s Shape) Unravel(n int) []int {
	idx := make([]int, len(s))
	for d := len(s) - 1; d >= 0; d-- {
		if s[d] > 0 {
			idx[d] = n % s[d]
			n /= s[d]
		}
	}
	return idx
}

// NumElements returns Π shape[d] (1 for a scalar). It fails with ErrShape on
// a negative size and ErrOverflow when the product does not fit an int.
func (s Shape) NumElements() (int, error) {
	n := 1
	for d, v := range s {
		if v < 0 {
			return 0, newError(ErrShape, "shape "+s.String(), "dim %d has negative size %d", d, v)
		}
	}
	for d, v := range s {
		if v == 0 {
			return 0, nil
		}
		hi, lo := bits.Mul64(uint64(n), uint64(v))
		if hi != 0 || lo > maxInt {
			return 0, newError(ErrOverflow, "shape "+s.String(), "the element count overflows at dim %d", d)
		}
		n = int(lo)
	}
	return n, nil
}

const maxInt = uint64(^uint(0) >> 1)

// ContiguousStrides returns the row-major strides of shape:
//
//	stride[n-1] = 1, stride[d] = stride[d+1]·shape[d+1]
//
// Sizes of 0 are treated as 1 so that strides stay meaningful (as NumPy and
// PyTorch do). The shape must have a valid element count.
func ContiguousStrides(shape Shape) []int {
	stride := make([]int, len(shape))
	acc := 1
	for d := len(shape) - 1; d >= 0; d-- {
		stride[d] = acc
		acc *= max(shape[d], 1)
	}
	return stride
}

// ParseShape parses a shape such as "4,1,3,5", "[4, 1, 3, 5]", "4 1 3 5" or
// "()" / "[]" / "" for a scalar. Every size must be >= 0.
func ParseShape(s string) (Shape, error) {
	v, err := parseInts("shape", s)
	if err != nil {
		return nil, err
	}
	for d, x := range v {
		if x < 0 {
			return nil, newError(ErrParse, fmt.Sprintf("shape %q", s), "dim %d is %d; sizes must be >= 0", d, x)
		}
	}
	shape := Shape(v)
	if _, err := shape.NumElements(); err != nil {
		return nil, err
	}
	return shape, nil
}

// SpellInts writes v as ParseInts reads it back: 4,-1,3, and () for an
// empty list (Shape.Spell for a shape).
func SpellInts(v []int) string {
	if len(v) == 0 {
		return "()"
	}
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// ParseInts parses a list of integers in the spellings ParseShape accepts,
// allowing negative values (expand sizes use -1). what names the list in
// errors, e.g. "expand size".
func ParseInts(what, s string) ([]int, error) { return parseInts(what, s) }

func parseInts(what, s string) ([]int, error) {
	op := fmt.Sprintf("%s %q", what, s)
	t := strings.TrimSpace(s)
	if len(t) >= 2 && (t[0] == '[' && t[len(t)-1] == ']' || t[0] == '(' && t[len(t)-1] == ')') {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	var fields []string
	if strings.Contains(t, ",") {
		t = strings.TrimSuffix(t, ",") // "(5,)" is the 1-d shape [5], as Python spells it
		fields = strings.Split(t, ",")
	} else {
		fields = strings.Fields(t)
	}
	out := make([]int, 0, len(fields))
	for i, f := range fields {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, newError(ErrParse, op, "entry %d is empty", i)
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, newError(ErrParse, op, "entry %d is %q, not an integer", i, f)
		}
		out = append(out, v)
	}
	return out, nil
}
