package tensor

import (
	"errors"
	"testing"
)

// FuzzParseShape: never panics; what parses formats back to itself,
// through String and through Spell.
func FuzzParseShape(f *testing.F) {
	for _, s := range []string{"4,1,3,5", "[2, 3]", "()", "(5,)", "", "1 2 3", "4,,3", "-1", "99999999999,99999999999", " [ 7 ] "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		shape, err := ParseShape(s)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("ParseShape(%q): error %v is not a *tensor.Error", s, err)
			}
			return
		}
		for _, spelt := range []string{shape.String(), shape.Spell()} {
			again, err := ParseShape(spelt)
			if err != nil || !again.Equal(shape) {
				t.Fatalf("ParseShape(%q) = %v, written %q, which re-parses as %v, %v", s, shape, spelt, again, err)
			}
		}
		if _, err := Contiguous(shape); err != nil {
			t.Fatalf("ParseShape(%q) = %v, which has no layout: %v", s, shape, err)
		}
	})
}

// FuzzParseIndices: never panics; slicing with what parses never panics
// and always stays inside the buffer.
func FuzzParseIndices(f *testing.F) {
	for _, s := range []string{"1:3, 0", ":, None, -1", "::-2", "2..5:2", "-1..0:-1", "5", "a:b", "1:2:3:4", "::0", "..3"} {
		f.Add(s)
	}
	x, _ := Arange(Int32, Shape{4, 5, 3})
	f.Fuzz(func(t *testing.T, s string) {
		idx, err := ParseIndices(s)
		if err != nil {
			return
		}
		v, err := x.Slice(idx...)
		if err != nil {
			return
		}
		if _, err := x.WithLayout(v.Layout()); err != nil {
			t.Fatalf("slice %q left the buffer: %v", s, err)
		}
		again, err := ParseIndices(FormatIndices(idx))
		if err != nil || FormatIndices(again) != FormatIndices(idx) {
			t.Fatalf("%q formats as %q, which re-parses as %q (%v)", s, FormatIndices(idx), FormatIndices(again), err)
		}
	})
}

// FuzzViewChain applies a random chain of view ops, read from the fuzz
// bytes, to an arange and checks each step against the dense model.
func FuzzViewChain(f *testing.F) {
	f.Add([]byte{2, 3, 1, 0, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{1, 4, 2, 9, 9, 3, 3, 1, 0, 7, 7, 7})
	f.Add([]byte{3, 2, 2, 1, 4, 0, 2, 5, 5, 1, 1, 3})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 2 {
			return
		}
		next := func() int {
			if len(prog) == 0 {
				return 0
			}
			b := int(prog[0])
			prog = prog[1:]
			return b
		}
		rank := 1 + next()%3
		shape := make(Shape, rank)
		for d := range shape {
			shape[d] = next() % 5
		}
		c := newChecker(t, Float32, shape)
		// Bounded so expand and new axes cannot grow the model past what a
		// fuzz iteration can check index by index.
		for steps := 0; len(prog) > 0 && steps < 8 && len(c.model.vals) <= 1<<10 && len(c.model.shape) <= 6; steps++ {
			s := c.model.shape
			switch next() % 4 {
			case 0: // expand: size-1 dims to a small size, maybe a new dim
				size := make([]int, 0, len(s)+1)
				if next()%2 == 0 {
					size = append(size, next()%3)
				}
				for _, n := range s {
					if n == 1 {
						size = append(size, next()%4)
					} else {
						size = append(size, -1)
					}
				}
				c.expand(size)
			case 1: // permute: rotate by a random amount
				perm := make([]int, len(s))
				k := next()
				for d := range perm {
					perm[d] = (d + k) % len(s)
				}
				c.permute(perm)
			case 2: // reshape: merge or split the last dims
				n := len(c.model.vals)
				if next()%2 == 0 || n == 0 {
					c.reshape([]int{-1})
				} else if k := 1 + next()%4; n%k == 0 {
					c.reshape([]int{k, -1})
				}
			case 3: // slice a random dim
				idx := make([]Index, 0, len(s))
				for range s {
					switch next() % 5 {
					case 0:
						idx = append(idx, All())
					case 1:
						idx = append(idx, Interval(next()%7-3, next()%7-3, next()%5-2))
					case 2:
						idx = append(idx, IntervalInclusive(next()%7-3, next()%7-3, next()%5-2))
					case 3:
						idx = append(idx, NewAxis(), All())
					case 4:
						idx = append(idx, Point(next()%5-2))
					}
				}
				c.slice(idx...)
			}
		}
	})
}
