package shaders

import (
	"fmt"
	"testing"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/conform"
)

// chunkedReductions are reductions with few outputs and long folds: TuneCPU
// cuts each output's reduced elements into chunks and combines them in a
// second dispatch. They keep the inner dim, an outer one or the middle,
// read vec4s or scalars, and run on contiguous, permuted, sliced and
// reversed views.
func chunkedReductions() []struct {
	name string
	src  func(tensor.DType) (tensor.Tensor, error)
	to   tensor.Shape
} {
	// Values (7919·i) mod 1000 keep every float sum an integer below 2^24,
	// so f32 sums are exact in any order.
	arange := func(dt tensor.DType, s ...int) tensor.Tensor { return arangeMod(dt, tensor.Shape(s)) }
	type c = struct {
		name string
		src  func(tensor.DType) (tensor.Tensor, error)
		to   tensor.Shape
	}
	whole := func(s ...int) func(tensor.DType) (tensor.Tensor, error) {
		return func(dt tensor.DType) (tensor.Tensor, error) { return arange(dt, s...), nil }
	}
	return []c{
		{"[3,5000] to [3,1]", whole(3, 5000), tensor.Shape{3, 1}},
		{"[5003] to [1]", whole(5003), tensor.Shape{1}},
		{"[64,8,1024] to [1,8,1]", whole(64, 8, 1024), tensor.Shape{1, 8, 1}},
		{"[2048,8] to [1,8]", whole(2048, 8), tensor.Shape{1, 8}},
		{"[4100,3] to [1,3]", whole(4100, 3), tensor.Shape{1, 3}},
		{"[6,4096] permuted to [4096,6], to [1,6]", func(dt tensor.DType) (tensor.Tensor, error) {
			return arange(dt, 6, 4096).Permute([]int{1, 0})
		}, tensor.Shape{1, 6}},
		{"[5,9000][:, 1::3] to [5,1]", func(dt tensor.DType) (tensor.Tensor, error) {
			return arange(dt, 5, 9000).Slice(tensor.All(), tensor.From(1, 3))
		}, tensor.Shape{5, 1}},
		{"[4,3000][:, ::-1] to [4,1]", func(dt tensor.DType) (tensor.Tensor, error) {
			return arange(dt, 4, 3000).Slice(tensor.All(), tensor.Stepped(-1))
		}, tensor.Shape{4, 1}},
	}
}

// Both tunings agree with the CPU on one adapter: TuneCPU (chunks folded
// alone, combined by a second dispatch) and TuneGPU (lanes combined in a
// workgroup tree), over the chunked reductions and every reduction of the
// conformance sweep at sizes 65 and 700.
func TestReductionsAgreeWithTheCPUUnderBothTunings(t *testing.T) {
	sweep := conform.Only(conform.Cases(conform.Options{Sizes: []int{65, 700}}), "sum", "max", "min")
	for _, tuning := range []Tuning{TuneCPU, TuneGPU} {
		d := openOrSkip(t, Options{Tuning: tuning})
		var cases []conform.Case
		for _, r := range chunkedReductions() {
			for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
				for _, op := range tensor.ReduceOps() {
					run := func(be tensor.Backend) (tensor.Tensor, error) {
						src, err := r.src(dt)
						if err != nil {
							return tensor.Tensor{}, err
						}
						return be.Reduce(op, src, r.to)
					}
					cases = append(cases, conform.Case{Name: fmt.Sprintf("tuning %d: %v %v %s", tuning, op, dt, r.name), Run: run})
					if tuning == TuneCPU && dt == tensor.Float32 && op == tensor.Sum {
						k, err := NewBackend(d).Prepare(run)
						if err != nil {
							t.Fatal(err)
						}
						if len(k.job.steps) != 2 {
							t.Errorf("sum %s ran in %d dispatches under TuneCPU, want 2 (chunks, then their combination)", r.name, len(k.job.steps))
						}
						k.Release()
					}
				}
			}
		}
		check(t, d, append(cases, sweep...))
	}
}

func TestSplitChunks(t *testing.T) {
	for _, c := range []struct{ items, total, rvec, maxChunks, chunks, chunk int }{
		{256, 65536, 4, 1 << 20, 16, 4096}, // sum [64,256,1024] to [1,256,1]: 4096 items
		{3, 5000, 4, 1 << 20, 4, 1252},     // as many chunks as 1024-element pieces fit
		{3, 5003, 1, 1 << 20, 4, 1251},
		{1 << 20, 4, 1, 1 << 20, 1, 4}, // enough outputs: no split
		{1, 1 << 20, 4, 3, 3, 349528},  // the partials' binding holds 3 chunks
		{1, 1023, 1, 1 << 20, 1, 1023}, // too short to cut
		{2, 2048, 4, 1 << 20, 2, 1024},
	} {
		chunks, chunk := splitChunks(c.items, c.total, c.rvec, c.maxChunks)
		if chunks != c.chunks || chunk != c.chunk {
			t.Errorf("splitChunks(%d items, %d elements, rvec %d, at most %d) = %d chunks of %d, want %d of %d",
				c.items, c.total, c.rvec, c.maxChunks, chunks, chunk, c.chunks, c.chunk)
		}
		if chunks > 1 && (chunk%c.rvec != 0 || (chunks-1)*chunk >= c.total || chunks*chunk < c.total) {
			t.Errorf("splitChunks(%d, %d): %d chunks of %d do not cover %d elements in whole loads", c.items, c.total, chunks, chunk, c.total)
		}
	}
}

func fill[T tensor.Elem](x tensor.Tensor, n int, f func(int) T) {
	b, _ := tensor.Buffer[T](x)
	for i := range n {
		b[i] = f(i)
	}
}
