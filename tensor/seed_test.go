package tensor

import (
	"errors"
	"slices"
	"testing"
)

// The worked examples of OneFlow's "Adding Expand and Repeat Ops" article.

func TestExpandSeedStrides(t *testing.T) {
	tests := []struct {
		in         Shape
		size       []int
		wantStride []int // input strides are contiguous: checked below
		wantIn     []int
	}{
		{Shape{4, 1, 3, 5}, []int{2, 1, 4, 4, 3, 5}, []int{0, 0, 15, 0, 5, 1}, []int{15, 15, 5, 1}},
		{Shape{4, 3, 1, 2}, []int{2, 4, 3, 4, 2}, []int{0, 6, 2, 0, 1}, []int{6, 2, 2, 1}},
	}
	for _, tt := range tests {
		l, _ := Contiguous(tt.in)
		if got := l.Strides(); !slices.Equal(got, tt.wantIn) {
			t.Errorf("Contiguous(%v) strides = %v, want %v", tt.in, got, tt.wantIn)
		}
		e, err := l.Expand(tt.size)
		if err != nil {
			t.Fatalf("expand %v to %v: %v", tt.in, tt.size, err)
		}
		if got := e.Strides(); !slices.Equal(got, tt.wantStride) {
			t.Errorf("expand %v to %v: strides = %v, want %v", tt.in, tt.size, got, tt.wantStride)
		}
		if got := e.Shape(); !slices.Equal(got, tt.size) {
			t.Errorf("expand %v to %v: shape = %v", tt.in, tt.size, got)
		}
	}
}

func TestExpandSpellings(t *testing.T) {
	tests := []struct {
		in   Shape
		size []int
		want Shape // nil: invalid
	}{
		// [4 3 1 2]: dim 2 may grow, the others only be kept; new dims in front.
		{Shape{4, 3, 1, 2}, []int{4, 3, 1, 2}, Shape{4, 3, 1, 2}},
		{Shape{4, 3, 1, 2}, []int{-1, -1, -1, -1}, Shape{4, 3, 1, 2}},
		{Shape{4, 3, 1, 2}, []int{4, 3, 4, 2}, Shape{4, 3, 4, 2}},
		{Shape{4, 3, 1, 2}, []int{-1, 3, 4, -1}, Shape{4, 3, 4, 2}},
		{Shape{4, 3, 1, 2}, []int{2, 4, 3, 4, 2}, Shape{2, 4, 3, 4, 2}},
		{Shape{4, 3, 1, 2}, []int{2, -1, -1, 4, -1}, Shape{2, 4, 3, 4, 2}},
		{Shape{4, 3, 1, 2}, []int{1, 4, 3, 1, 2}, Shape{1, 4, 3, 1, 2}},
		{Shape{4, 3, 1, 2}, []int{3, 2, 4, 3, 7, 2}, Shape{3, 2, 4, 3, 7, 2}},
		{Shape{4, 3, 1, 2}, []int{4, 3, 0, 2}, Shape{4, 3, 0, 2}},
		{Shape{4, 3, 1, 2}, []int{0, 4, 3, 1, 2}, Shape{0, 4, 3, 1, 2}},
		{Shape{4, 3, 1, 2}, []int{4, 3, 1}, nil},          // fewer dims than the input
		{Shape{4, 3, 1, 2}, []int{8, 3, 1, 2}, nil},       // a non-1 dim changed
		{Shape{4, 3, 1, 2}, []int{4, 3, 1, 4}, nil},       // a non-1 dim changed
		{Shape{4, 3, 1, 2}, []int{4, 1, 1, 2}, nil},       // a non-1 dim shrunk
		{Shape{4, 3, 1, 2}, []int{-1, 4, 3, 1, 2}, nil},   // a new dim cannot be -1
		{Shape{4, 3, 1, 2}, []int{4, 3, 1, 2, 1}, nil},    // new dims go in front only
		{Shape{4, 3, 1, 2}, []int{4, 3, -2, 2}, nil},      // negative size other than -1
		{Shape{4, 3, 1, 2}, []int{2, 4, 3, 4, 2, 2}, nil}, // misaligned
		// [1 4 3 5]: only dim 0 may grow.
		{Shape{1, 4, 3, 5}, []int{1, 4, 3, 5}, Shape{1, 4, 3, 5}},
		{Shape{1, 4, 3, 5}, []int{2, 4, 3, 5}, Shape{2, 4, 3, 5}},
		{Shape{1, 4, 3, 5}, []int{2, -1, -1, -1}, Shape{2, 4, 3, 5}},
		{Shape{1, 4, 3, 5}, []int{-1, -1, -1, -1}, Shape{1, 4, 3, 5}},
		{Shape{1, 4, 3, 5}, []int{3, 2, 4, 3, 5}, Shape{3, 2, 4, 3, 5}},
		{Shape{1, 4, 3, 5}, []int{3, -1, 4, 3, 5}, Shape{3, 1, 4, 3, 5}},
		{Shape{1, 4, 3, 5}, []int{2, 4, 3, 1}, nil},
		{Shape{1, 4, 3, 5}, []int{2, 8, 3, 5}, nil},
		{Shape{1, 4, 3, 5}, []int{-1, 2, 4, 3, 5}, nil},
		{Shape{1, 4, 3, 5}, []int{4, 3, 5}, nil},
		{Shape{1, 4, 3, 5}, []int{1, 4, 3, 5, 2}, nil},
	}
	for _, tt := range tests {
		l, _ := Contiguous(tt.in)
		got, err := l.Expand(tt.size)
		if tt.want == nil {
			if err == nil || !errors.Is(err, ErrShape) {
				t.Errorf("expand %v to %v: err = %v, want an ErrShape (got shape %v)", tt.in, tt.size, err, got.Shape())
			}
			continue
		}
		if err != nil {
			t.Errorf("expand %v to %v: %v", tt.in, tt.size, err)
			continue
		}
		if !got.Shape().Equal(tt.want) {
			t.Errorf("expand %v to %v: shape %v, want %v", tt.in, tt.size, got.Shape(), tt.want)
		}
	}
}

func TestExpandErrorMessage(t *testing.T) {
	l, _ := Contiguous(Shape{4, 3, 1, 2})
	_, err := l.Expand([]int{4, 5, 1, 2})
	want := "tensor: expand [4 3 1 2] to [4 5 1 2]: dim 1 has size 3, so the new size must be 3 or -1, not 5"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestRepeatSeed(t *testing.T) {
	tests := []struct {
		in                   Shape
		times                []int
		inReshape, size, out Shape
	}{
		{Shape{4, 1, 3, 5}, []int{2, 1, 2, 4, 1, 1}, Shape{1, 4, 1, 3, 5}, Shape{2, 1, 2, 4, 4, 3, 5}, Shape{2, 1, 8, 4, 3, 5}},
		{Shape{5}, []int{3}, Shape{1, 5}, Shape{3, 5}, Shape{15}},
		{Shape{3, 1, 5}, []int{5, 3, 1}, Shape{1, 3, 1, 5}, Shape{5, 3, 3, 5}, Shape{15, 3, 5}},
		{Shape{3, 1, 5}, []int{2, 5, 3, 1}, Shape{1, 3, 1, 5}, Shape{2, 5, 3, 3, 5}, Shape{2, 15, 3, 5}},
		{Shape{}, []int{}, Shape{}, Shape{}, Shape{}},
		{Shape{}, []int{3, 2}, Shape{}, Shape{3, 2}, Shape{3, 2}},
		{Shape{2, 3}, []int{0, 1}, Shape{1, 2, 3}, Shape{0, 2, 3}, Shape{0, 3}},
	}
	for _, tt := range tests {
		p, err := PlanRepeat(tt.in, tt.times)
		if err != nil {
			t.Fatalf("PlanRepeat(%v, %v): %v", tt.in, tt.times, err)
		}
		if !p.InReshape.Equal(tt.inReshape) || !p.ExpandSize.Equal(tt.size) || !p.OutShape.Equal(tt.out) {
			t.Errorf("PlanRepeat(%v, %v) = in %v expand %v out %v, want %v %v %v",
				tt.in, tt.times, p.InReshape, p.ExpandSize, p.OutShape, tt.inReshape, tt.size, tt.out)
		}
	}
	for _, bad := range []struct {
		in    Shape
		times []int
	}{{Shape{4, 1, 3}, []int{2, 2}}, {Shape{3}, []int{-1}}, {Shape{2}, []int{1 << 40, 1 << 40}}} {
		if _, err := PlanRepeat(bad.in, bad.times); err == nil {
			t.Errorf("PlanRepeat(%v, %v) succeeded, want an error", bad.in, bad.times)
		}
	}
}

func TestRepeatSeedValues(t *testing.T) {
	// [5] repeated 3 times is 0..4 three times over.
	x, _ := Arange(Float32, Shape{5})
	y, err := CPU{}.Repeat(x, []int{3})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4}
	if got := y.Float64s(); !slices.Equal(got, want) {
		t.Errorf("repeat [5] by [3] = %v, want %v", got, want)
	}
}

func TestContiguousAndOffset(t *testing.T) {
	l, _ := Contiguous(Shape{4, 1, 3, 5})
	if got := l.Offset([]int{2, 0, 1, 4}); got != 2*15+1*5+4 {
		t.Errorf("Offset = %d, want %d", got, 39)
	}
	if !l.IsContiguous() {
		t.Error("contiguous layout reports not contiguous")
	}
	p, _ := l.Permute([]int{1, 0, 2, 3}) // swapping with a size-1 dim keeps it contiguous
	if !p.IsContiguous() {
		t.Errorf("%v: want contiguous", p)
	}
	q, _ := l.Permute([]int{0, 1, 3, 2})
	if q.IsContiguous() {
		t.Errorf("%v: want not contiguous", q)
	}
	e, _ := l.Expand([]int{4, 2, 3, 5})
	if e.IsContiguous() {
		t.Errorf("%v: an expanded layout is not contiguous", e)
	}
}

func TestTraceSeed(t *testing.T) {
	l, _ := Contiguous(Shape{4, 1, 3, 5})
	e, _ := l.Expand([]int{2, 1, 4, 4, 3, 5})
	tr, err := e.Trace([]int{1, 0, 2, 3, 1, 4})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Offset != 2*15+1*5+4 {
		t.Errorf("trace offset %d, want 39", tr.Offset)
	}
	want := "[1 0 2 3 1 4] → 0 + 1·0 (broadcast) + 0·0 + 2·15 + 3·0 (broadcast) + 1·5 + 4·1 = 39"
	if tr.String() != want {
		t.Errorf("trace\n got %s\nwant %s", tr, want)
	}
	if _, err := e.Trace([]int{2, 0, 0, 0, 0, 0}); !errors.Is(err, ErrIndex) {
		t.Errorf("out-of-range trace: err = %v, want ErrIndex", err)
	}
}
