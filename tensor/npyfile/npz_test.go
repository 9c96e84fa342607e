package npyfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// TestReadNumPyNpz reads testdata/savez.npz, written by NumPy 1.24
// (np.savez(a=float32 2x3 arange, b=int64 [1 2 3])): every member by
// its name, with the int64 member's narrowing named in a note.
func TestReadNumPyNpz(t *testing.T) {
	got, notes, err := ReadNpz("testdata/savez.npz", Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := got["a"], got["b"]
	if len(got) != 2 || !a.Valid() || !b.Valid() {
		t.Fatalf("got members %v, want a and b", got)
	}
	if a.DType() != tensor.Float32 || !a.Shape().Equal(tensor.Shape{2, 3}) || !slices.Equal(a.Float64s(), []float64{0, 1, 2, 3, 4, 5}) {
		t.Errorf("a: got %v %v %v, want float32 [2 3] 0…5", a.DType(), a.Shape(), a.Float64s())
	}
	if b.DType() != tensor.Int32 || !slices.Equal(b.Float64s(), []float64{1, 2, 3}) {
		t.Errorf("b: got %v %v, want int32 [1 2 3]", b.DType(), b.Float64s())
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "b: ") {
		t.Errorf("notes %q, want one note for b", notes)
	}
}

// TestNpzRoundTrip: EncodeNpz then ReadNpz gives every array back by
// name, a scalar, an empty array and a permuted view included.
func TestNpzRoundTrip(t *testing.T) {
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{3, 4})
	xt, err := x.Permute([]int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := tensor.FromSlice(tensor.Shape{}, []float32{7})
	e, _ := tensor.Zeros(tensor.Float32, tensor.Shape{2, 0})
	in := map[string]tensor.Tensor{"x": x, "xt": xt, "s": s, "e": e}
	var buf bytes.Buffer
	if err := EncodeNpz(&buf, in); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.npz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, notes, err := ReadNpz(path, Options{})
	if err != nil || len(notes) != 0 || len(got) != len(in) {
		t.Fatalf("got %d arrays, notes %q, %v; want %d arrays", len(got), notes, err, len(in))
	}
	for name, want := range in {
		g := got[name]
		if !g.Valid() || !g.Shape().Equal(want.Shape()) || !slices.Equal(g.Float64s(), want.Float64s()) {
			t.Errorf("%s: got %v %v, want %v %v", name, g.Shape(), g.Float64s(), want.Shape(), want.Float64s())
		}
	}
}

// TestNpzPastTheBudget: a member larger than the result budget is
// refused before it is read, and the error names it.
func TestNpzPastTheBudget(t *testing.T) {
	big, _ := tensor.Zeros(tensor.Float32, tensor.Shape{64, 64})
	var buf bytes.Buffer
	if err := EncodeNpz(&buf, map[string]tensor.Tensor{"big": big}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.npz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	prev := tensor.SetMaxBytes(tensor.Limit{Bytes: 1 << 10, Source: "the test's"})
	defer tensor.SetMaxBytes(prev)
	got, _, err := ReadNpz(path, Options{})
	if !errors.Is(err, tensor.ErrTooLarge) || err == nil || !strings.Contains(err.Error(), "big.npy") || got != nil {
		t.Errorf("got %v, %v; want the budget's refusal naming big.npy", got, err)
	}
}
