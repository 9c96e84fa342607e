package tensor

import (
	"fmt"
	"strings"
)

// Trace is the index mapping of one element, term by term, for teaching:
//
//	Offset = Base + Σ_d Terms[d].Index·Terms[d].Stride
//
// A term with stride 0 is a broadcast dim: every index along it reads the
// same element. The visual layer animates exactly these terms.
type Trace struct {
	Index  []int       // the output (view) index
	Base   int         // the layout's base offset
	Terms  []TraceTerm // one per dim
	Offset int         // the buffer position the index maps to
}

// TraceTerm is one dim's contribution Index·Stride to an offset.
type TraceTerm struct {
	Dim, Index, Stride int
	Broadcast          bool // stride 0 on a dim of size > 1: the index is ignored
}

// Product returns Index·Stride.
func (t TraceTerm) Product() int { return t.Index * t.Stride }

// Trace returns the term-by-term mapping of index to its offset. It fails
// with ErrIndex if index has the wrong rank or is out of range.
func (l Layout) Trace(index []int) (Trace, error) {
	op := fmt.Sprintf("trace %v in %v", index, l.shape)
	if len(index) != len(l.shape) {
		return Trace{}, newError(ErrIndex, op, "%d coordinates for %d dims", len(index), len(l.shape))
	}
	tr := Trace{Index: append([]int{}, index...), Base: l.base, Offset: l.base}
	for d, i := range index {
		if i < 0 || i >= l.shape[d] {
			return Trace{}, newError(ErrIndex, op, "coordinate %d is %d, outside dim %d of size %d", d, i, d, l.shape[d])
		}
		term := TraceTerm{Dim: d, Index: i, Stride: l.stride[d], Broadcast: l.stride[d] == 0 && l.shape[d] > 1}
		tr.Terms = append(tr.Terms, term)
		tr.Offset += term.Product()
	}
	return tr, nil
}

// String writes the sum out: "[1 0 2] → 0 + 1·0 (broadcast) + 0·5 + 2·1 = 2".
func (t Trace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v → %d", t.Index, t.Base)
	for _, term := range t.Terms {
		fmt.Fprintf(&b, " + %d·%d", term.Index, term.Stride)
		if term.Broadcast {
			b.WriteString(" (broadcast)")
		}
	}
	fmt.Fprintf(&b, " = %d", t.Offset)
	return b.String()
}
