package shaders

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// TestBinaryReduceIsTheTwoCalls: the one job gives, bit for bit, what the
// binary call and the reduce call give one after the other, under every
// tuning (TuneCPU splits long folds into partials and a second
// dispatch), for matmuls (mul then sum over k, as package sbp runs
// them), other ops and reductions, views that are expanded, permuted
// and sliced, every dtype; empty work and bad operands answer as the
// two calls do.
func TestBinaryReduceIsTheTwoCalls(t *testing.T) {
	type c struct {
		name     string
		bop      tensor.BinaryOp
		rop      tensor.ReduceOp
		dt       tensor.DType
		a, b, to tensor.Shape
		view     func(a, b tensor.Tensor) (tensor.Tensor, tensor.Tensor, error)
	}
	matmul := func(m, k, n int) c {
		return c{fmt.Sprintf("matmul [%d,%d]·[%d,%d]", m, k, k, n), tensor.Mul, tensor.Sum, tensor.Float32,
			tensor.Shape{m, k, 1}, tensor.Shape{1, k, n}, tensor.Shape{m, 1, n}, nil}
	}
	cases := []c{
		matmul(1, 1, 1), matmul(3, 5, 7), matmul(17, 33, 4), matmul(64, 128, 96), matmul(2, 3000, 3),
		{"batched matmul [2,4,6]·[2,6,5]", tensor.Mul, tensor.Sum, tensor.Float32, tensor.Shape{2, 4, 6, 1}, tensor.Shape{2, 1, 6, 5}, tensor.Shape{2, 4, 1, 5}, nil},
		{"add then max over rows, int32", tensor.Add, tensor.MaxAll, tensor.Int32, tensor.Shape{9, 1}, tensor.Shape{1, 13}, tensor.Shape{1, 13}, nil},
		{"sub then min to a scalar, uint32", tensor.Sub, tensor.MinAll, tensor.Uint32, tensor.Shape{5, 6}, tensor.Shape{6}, tensor.Shape{}, nil},
		{"mul then sum, b transposed", tensor.Mul, tensor.Sum, tensor.Float32, tensor.Shape{6, 10, 1}, tensor.Shape{1, 7, 10}, tensor.Shape{6, 1, 7},
			func(a, b tensor.Tensor) (tensor.Tensor, tensor.Tensor, error) {
				bt, err := b.Permute([]int{0, 2, 1})
				return a, bt, err
			}},
		{"mul then sum, a sliced and expanded", tensor.Mul, tensor.Sum, tensor.Float32, tensor.Shape{8, 12}, tensor.Shape{4, 1}, tensor.Shape{4, 1},
			func(a, b tensor.Tensor) (tensor.Tensor, tensor.Tensor, error) {
				s, err := a.Slice(tensor.Stepped(2), tensor.From(0, 3))
				if err != nil {
					return a, b, err
				}
				bx, err := b.Expand([]int{4, 4})
				return s, bx, err
			}},
	}
	for _, tuning := range []Tuning{TuneAuto, TuneGPU, TuneCPU} {
		g := NewBackend(openOrSkip(t, Options{Tuning: tuning}))
		for _, tc := range cases {
			a, b := arangeMod(tc.dt, tc.a), arangeMod(tc.dt, tc.b)
			if tc.view != nil {
				var err error
				if a, b, err = tc.view(a, b); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
			}
			want, err := tensor.BinaryThenReduce(g, tc.bop, tc.rop, a, b, tc.to)
			if err != nil {
				t.Fatalf("%s: the two calls: %v", tc.name, err)
			}
			got, err := g.BinaryReduce(tc.bop, tc.rop, a, b, tc.to)
			if err != nil {
				t.Fatalf("tuning %v, %s: %v", tuning, tc.name, err)
			}
			if !got.Shape().Equal(want.Shape()) || !bytes.Equal(tensor.RawBytes(got), tensor.RawBytes(want)) {
				t.Errorf("tuning %v, %s: one job %v, the two calls %v", tuning, tc.name, got, want)
			}
			cpu, _ := tensor.BinaryThenReduce(tensor.CPU{}, tc.bop, tc.rop, a, b, tc.to)
			if tc.dt != tensor.Float32 && !bytes.Equal(tensor.RawBytes(got), tensor.RawBytes(cpu)) {
				t.Errorf("tuning %v, %s: one job %v, the CPU %v", tuning, tc.name, got, cpu)
			}
		}
	}
	g := NewBackend(openOrSkip(t, Options{}))
	empty, err := g.BinaryReduce(tensor.Mul, tensor.Sum, arangeMod(tensor.Float32, tensor.Shape{0, 3, 1}), arangeMod(tensor.Float32, tensor.Shape{1, 3, 2}), tensor.Shape{0, 1, 2})
	if err != nil || !empty.Shape().Equal(tensor.Shape{0, 1, 2}) {
		t.Errorf("an empty matmul: %v, %v", empty, err)
	}
	zeroK, err := g.BinaryReduce(tensor.Mul, tensor.Sum, arangeMod(tensor.Float32, tensor.Shape{2, 0, 1}), arangeMod(tensor.Float32, tensor.Shape{1, 0, 3}), tensor.Shape{2, 1, 3})
	if err != nil || tensor.RawBytes(zeroK) == nil || !bytes.Equal(tensor.RawBytes(zeroK), make([]byte, 4*6)) {
		t.Errorf("a matmul over k = 0 sums nothing: %v, %v", zeroK, err)
	}
	for _, bad := range []struct {
		name string
		a, b tensor.Tensor
		to   tensor.Shape
		want error
	}{
		{"dtypes differ", arangeMod(tensor.Float32, tensor.Shape{2, 3}), arangeMod(tensor.Int32, tensor.Shape{2, 3}), tensor.Shape{2, 1}, tensor.ErrDType},
		{"shapes do not broadcast", arangeMod(tensor.Float32, tensor.Shape{2, 3}), arangeMod(tensor.Float32, tensor.Shape{4}), tensor.Shape{2, 1}, tensor.ErrShape},
		{"the target does not broadcast to the products", arangeMod(tensor.Float32, tensor.Shape{2, 3}), arangeMod(tensor.Float32, tensor.Shape{3}), tensor.Shape{3, 1}, tensor.ErrShape},
	} {
		_, got := g.BinaryReduce(tensor.Mul, tensor.Sum, bad.a, bad.b, bad.to)
		_, want := tensor.BinaryThenReduce(tensor.CPU{}, tensor.Mul, tensor.Sum, bad.a, bad.b, bad.to)
		if !errors.Is(got, bad.want) || got.Error() != want.Error() {
			t.Errorf("%s: %v, want the CPU's %v", bad.name, got, want)
		}
	}
}

// arangeMod returns (7919·i) mod 1000 in dtype dt over shape: float sums
// of them stay integers below 2^24, exact in any order.
func arangeMod(dt tensor.DType, s tensor.Shape) tensor.Tensor {
	n, _ := s.NumElements()
	x, _ := tensor.Zeros(dt, s)
	switch dt {
	case tensor.Float32:
		fill(x, n, func(i int) float32 { return float32(7919 * i % 1000) })
	case tensor.Int32:
		fill(x, n, func(i int) int32 { return int32(7919 * i % 1000) })
	default:
		fill(x, n, func(i int) uint32 { return uint32(7919 * i % 1000) })
	}
	return x
}
