package tensor

import (
	"fmt"
	"strconv"
	"strings"
)

// Index is one entry of a view-creating index expression, like one item of
// x[1:3, 0, :, None] in NumPy. The four kinds are:
//
//   - Interval: start, stop and step along one dim, stop exclusive or
//     inclusive; the view keeps the dim with size ⌈(stop-start)/step⌉
//     and stride·step;
//   - Point: one position; the dim disappears;
//   - All: the whole dim, unchanged;
//   - NewAxis: a new dim of size 1 (stride 0), consuming no input dim.
//
// Start and stop may be negative (counted from the end) and are clamped to
// the dim as in Python; a Point must lie inside the dim.
type Index struct {
	kind        indexKind
	start, stop int
	step        int
	hasStart    bool
	hasStop     bool
	inclusive   bool
}

type indexKind uint8

const (
	kindAll indexKind = iota
	kindInterval
	kindPoint
	kindNewAxis
)

// All keeps a whole dim (":").
func All() Index { return Index{kind: kindAll, step: 1} }

// Point selects position i of a dim and drops the dim ("2", "-1").
func Point(i int) Index { return Index{kind: kindPoint, start: i} }

// NewAxis inserts a dim of size 1 ("None").
func NewAxis() Index { return Index{kind: kindNewAxis} }

// Interval selects start, start+step, … up to but excluding stop
// ("start:stop:step"). step must not be 0.
func Interval(start, stop, step int) Index {
	return Index{kind: kindInterval, start: start, stop: stop, step: step, hasStart: true, hasStop: true}
}

// IntervalInclusive is Interval with stop included ("start..stop:step").
func IntervalInclusive(start, stop, step int) Index {
	ix := Interval(start, stop, step)
	ix.inclusive = true
	return ix
}

// From returns the interval from start to the end of the dim with the given
// step ("start::step"); with a negative step it runs down to the first element.
func From(start, step int) Index {
	return Index{kind: kindInterval, start: start, step: step, hasStart: true}
}

// Stepped returns the whole dim taken every step elements ("::step").
func Stepped(step int) Index { return Index{kind: kindInterval, step: step} }

// String spells the index as ParseIndices reads it.
func (ix Index) String() string {
	switch ix.kind {
	case kindAll:
		return ":"
	case kindPoint:
		return strconv.Itoa(ix.start)
	case kindNewAxis:
		return "None"
	}
	var b strings.Builder
	if ix.hasStart {
		b.WriteString(strconv.Itoa(ix.start))
	}
	if ix.inclusive {
		b.WriteString("..")
	} else {
		b.WriteString(":")
	}
	if ix.hasStop {
		b.WriteString(strconv.Itoa(ix.stop))
	}
	if ix.step != 1 {
		b.WriteString(":" + strconv.Itoa(ix.step))
	}
	return b.String()
}

// Slice returns the view selected by idx, one entry per input dim except
// NewAxis, which consumes none. Missing trailing entries mean All. The
// result shares the buffer: base moves to the first selected element and
// each kept dim's stride is multiplied by its step.
func (l Layout) Slice(idx ...Index) (Layout, error) {
	op := fmt.Sprintf("slice %v by %s", l.shape, FormatIndices(idx))
	consumed := 0
	for _, ix := range idx {
		if ix.kind != kindNewAxis {
			consumed++
		}
	}
	if consumed > len(l.shape) {
		return Layout{}, newError(ErrIndex, op, "%d indices for %d dims", consumed, len(l.shape))
	}
	shape := make(Shape, 0, len(l.shape)+len(idx))
	stride := make([]int, 0, cap(shape))
	base := l.base
	d := 0
	for k, ix := range idx {
		switch ix.kind {
		case kindNewAxis:
			shape, stride = append(shape, 1), append(stride, 0)
			continue
		case kindAll:
			shape, stride = append(shape, l.shape[d]), append(stride, l.stride[d])
		case kindPoint:
			n, i := l.shape[d], ix.start
			if i < -n || i >= n {
				return Layout{}, newError(ErrIndex, op, "index %d (entry %d) is outside dim %d of size %d", i, k, d, n)
			}
			if i < 0 {
				i += n
			}
			base += i * l.stride[d]
		case kindInterval:
			if ix.step == 0 {
				return Layout{}, newError(ErrIndex, op, "entry %d has step 0", k)
			}
			start, count := ix.resolve(l.shape[d])
			if count > 0 {
				base += start * l.stride[d]
			}
			shape, stride = append(shape, count), append(stride, l.stride[d]*ix.step)
		}
		d++
	}
	for ; d < len(l.shape); d++ {
		shape, stride = append(shape, l.shape[d]), append(stride, l.stride[d])
	}
	return Layout{shape: shape, stride: stride, base: base}, nil
}

// resolve returns the first position and the element count of an interval
// on a dim of size n, with Python's clamping rules (slice.indices).
func (ix Index) resolve(n int) (start, count int) {
	step := ix.step
	lower, upper := 0, n // the clamping range of positions for step > 0
	if step < 0 {
		lower, upper = -1, n-1
	}
	clamp := func(v int) int {
		if v < 0 {
			v += n
		}
		return min(max(v, lower), upper)
	}
	start, stop := lower, upper
	if step < 0 {
		start, stop = upper, lower
	}
	if ix.hasStart {
		start = clamp(ix.start)
	}
	switch {
	case ix.hasStop && ix.inclusive:
		// The inclusive stop names a position; the exclusive stop is one step past it.
		s := ix.stop
		if s < 0 {
			s += n
		}
		if step > 0 {
			stop = min(max(s+1, lower), upper)
		} else {
			stop = min(max(s-1, lower), upper)
		}
	case ix.hasStop:
		stop = clamp(ix.stop)
	}
	if step > 0 && stop > start {
		count = (stop - start + step - 1) / step
	} else if step < 0 && stop < start {
		count = (start - stop - step - 1) / -step
	}
	return start, count
}

// FormatIndices spells an index list as ParseIndices reads it: "1:3, 0, None".
func FormatIndices(idx []Index) string {
	parts := make([]string, len(idx))
	for i, ix := range idx {
		parts[i] = ix.String()
	}
	return strings.Join(parts, ", ")
}

// ParseIndices parses a NumPy-style index list: entries separated by
// commas, each one of
//
//	:            all
//	5, -1        point
//	None         new axis (also "newaxis")
//	a:b:c        interval, stop exclusive; any part may be left out
//	a..b[:c]     interval, stop inclusive
func ParseIndices(s string) ([]Index, error) {
	t := strings.TrimSpace(s)
	if len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' {
		t = t[1 : len(t)-1]
	}
	if strings.TrimSpace(t) == "" {
		return nil, nil
	}
	var out []Index
	for k, f := range strings.Split(t, ",") {
		ix, err := parseIndex(strings.TrimSpace(f))
		if err != nil {
			return nil, newError(ErrParse, fmt.Sprintf("index %q", s), "entry %d %q: %v", k, strings.TrimSpace(f), err)
		}
		out = append(out, ix)
	}
	return out, nil
}

func parseIndex(f string) (Index, error) {
	switch f {
	case "":
		return Index{}, fmt.Errorf("empty entry")
	case ":", "::":
		return All(), nil
	case "None", "newaxis", "np.newaxis":
		return NewAxis(), nil
	}
	num := func(s string) (int, bool, error) {
		s = strings.TrimSpace(s)
		if s == "" {
			return 0, false, nil
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, false, fmt.Errorf("%q is not an integer", s)
		}
		return v, true, nil
	}
	ix := Index{kind: kindInterval, step: 1}
	var bounds, step string
	if a, b, ok := strings.Cut(f, ".."); ok {
		ix.inclusive = true
		stop, st, _ := strings.Cut(b, ":")
		bounds, step = a+":"+stop, st
	} else if !strings.Contains(f, ":") {
		v, _, err := num(f)
		if err != nil {
			return Index{}, err
		}
		return Point(v), nil
	} else {
		parts := strings.Split(f, ":")
		if len(parts) > 3 {
			return Index{}, fmt.Errorf("too many colons")
		}
		bounds = parts[0] + ":" + parts[1]
		if len(parts) == 3 {
			step = parts[2]
		}
	}
	a, b, _ := strings.Cut(bounds, ":")
	var err error
	if ix.start, ix.hasStart, err = num(a); err != nil {
		return Index{}, err
	}
	if ix.stop, ix.hasStop, err = num(b); err != nil {
		return Index{}, err
	}
	if ix.inclusive && !ix.hasStop {
		return Index{}, fmt.Errorf("an inclusive interval needs a stop")
	}
	if v, ok, err := num(step); err != nil {
		return Index{}, err
	} else if ok {
		if v == 0 {
			return Index{}, fmt.Errorf("step is 0")
		}
		ix.step = v
	}
	return ix, nil
}

// Narrow returns the view of l that keeps [start, stop) of dim axis and
// every other dim whole: x[…, start:stop, …] with the interval at axis
// (PyTorch's narrow). It is how split work takes its part.
func (l Layout) Narrow(axis, start, stop int) (Layout, error) {
	if axis < 0 || axis >= len(l.shape) {
		return Layout{}, newError(ErrIndex, fmt.Sprintf("narrow %v along axis %d", l.shape, axis), "the layout has %d dims", len(l.shape))
	}
	idx := make([]Index, len(l.shape))
	for d := range idx {
		idx[d] = All()
	}
	idx[axis] = Interval(start, stop, 1)
	return l.Slice(idx...)
}
