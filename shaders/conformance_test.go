package shaders

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/conform"
)

func TestConformance(t *testing.T) {
	d := openOrSkip(t, Options{})
	t.Logf("adapter: %+v", d.Info())
	cases := conform.Cases(conform.Options{Sizes: conform.DefaultSizes(), Huge: !testing.Short()})
	check(t, d, cases)
	if d.tuning == TuneCPU && !slices.ContainsFunc(slices.Collect(maps.Keys(d.pipelines)), func(k programKey) bool { return k.a == loadUniform || k.b == loadUniform }) {
		t.Error("no pipeline read an operand from a uniform binding (uniformLoads)")
	}
}

// The adapter here is a CPU (TuneCPU); TuneGPU, what a real GPU gets,
// shares out work differently (an item per invocation in small
// dispatches, lanes combined in a workgroup tree): it runs the sweep at
// sizes that hit workgroup tails too.
func TestGPUTuningAgreesWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{Tuning: TuneGPU})
	check(t, d, conform.Cases(conform.Options{Sizes: []int{0, 1, 2, 5, 17, 65, 257}}))
	if d.subgroups && !slices.ContainsFunc(slices.Collect(maps.Keys(d.pipelines)), func(k programKey) bool { return k.subgroups }) {
		t.Error("the device has subgroups, yet no reduction's lanes used them")
	}
}

// With subgroups the lanes' last steps are shuffles (lanesWGSL): every
// reduction must give the workgroup tree's result bit for bit, since lane
// 0 combines the same values in the same order. Where the adapter has no
// subgroups both devices run the tree and the test says so.
func TestSubgroupLanesEqualTheTree(t *testing.T) {
	shuffled := openOrSkip(t, Options{Tuning: TuneGPU})
	tree := openOrSkip(t, Options{Tuning: TuneGPU, NoSubgroups: true})
	if !shuffled.subgroups {
		t.Skip("the adapter has no subgroup operations")
	}
	cases := conform.Only(conform.Cases(conform.Options{Sizes: []int{5, 65, 257}}), "sum", "max", "min")
	check(t, shuffled, cases)
	differ := 0
	for _, c := range cases {
		a, errA := c.Run(NewBackend(shuffled))
		b, errB := c.Run(NewBackend(tree))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", c.Name, errA, errB)
		}
		av, bv := a.Float64s(), b.Float64s()
		for i := range av {
			if math.Float64bits(av[i]) != math.Float64bits(bv[i]) {
				if differ++; differ <= 10 {
					t.Errorf("%s: element %d is %v with subgroup shuffles, %v with the tree", c.Name, i, av[i], bv[i])
				}
				break
			}
		}
	}
	if !slices.ContainsFunc(slices.Collect(maps.Keys(shuffled.pipelines)), func(k programKey) bool { return k.subgroups }) {
		t.Error("no reduction's lanes used subgroups")
	}
	t.Logf("%d reductions, %d differ from the tree", len(cases), differ)
}

// check runs cases on d and reports the first 20 failures.
func check(t *testing.T, d *Device, cases []conform.Case) {
	t.Helper()
	fails := conform.Check(NewBackend(d), tensor.CPU{}, cases)
	for i, f := range fails {
		if i == 20 {
			t.Errorf("... and %d more", len(fails)-20)
			break
		}
		t.Error(f)
	}
	t.Logf("%d cases, %d failures", len(cases), len(fails))
}

// With a binding limit of 4 KiB every output past 1024 elements is split
// into chunks, each binding only the window of its inputs it reads
// (halving a chunk until its windows fit), and every reduction whose input
// or output passes 4 KiB is split in halves along a dim.
func TestChunkedKernelsAgreeWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{MaxBindingBytes: 4096})
	check(t, d, conform.Cases(conform.Options{Sizes: []int{700}}))
}

// With a binding limit of 512 bytes every reduction of more than 128
// elements (input span or output) is split in halves, recursively, along
// kept and reduced dims, and the halves' results are concatenated or
// combined.
func TestSplitReductionsAgreeWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{MaxBindingBytes: 512})
	cases := conform.Only(conform.Cases(conform.Options{Sizes: []int{65, 700}}), "sum", "max", "min")
	check(t, d, cases)
}

// A reduction of 4000 bytes under a 1 KiB binding limit runs in pieces;
// work that cannot be cut small enough (a copy under 8 bytes, a softmax
// line of 4000 bytes) fails with an error naming the size and the limit.
func TestTooLargeIsSplitOrAClearError(t *testing.T) {
	d := openOrSkip(t, Options{MaxBindingBytes: 1024})
	x, _ := tensor.Arange(tensor.Int32, tensor.Shape{1000})
	sum, err := NewBackend(d).Reduce(tensor.Sum, x, tensor.Shape{1})
	if err != nil || sum.At(0) != 999*1000/2 {
		t.Fatalf("sum of 0..999 under a 1024-byte binding limit: %v, %v", sum.Float64s(), err)
	}
	tiny := openOrSkip(t, Options{MaxBindingBytes: 8})
	_, err = NewBackend(tiny).Materialize(x)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "bytes") || !strings.Contains(err.Error(), "allows 8") {
		t.Fatalf("a copy under an 8-byte binding limit: %v", err)
	}
	t.Log(err)
	// softmax's lines are whole in every piece: a line of 1000 floats
	// cannot fit 1 KiB, and says so.
	f, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 1000})
	_, err = NewBackend(d).Softmax(f, 1)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "softmax") || !strings.Contains(err.Error(), "allows 1024") {
		t.Fatalf("softmax of lines of 4000 bytes under a 1024-byte binding limit: %v", err)
	}
	t.Log(err)
}

// With at most 3 workgroups per dimension every dispatch of more than 3
// workgroups runs on a 2-D grid, and items past the grid loop: the paths
// a tensor past 65535·256 items takes on a real device.
func TestTwoDimensionalGridsAgreeWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{MaxWorkgroupsPerDimension: 3})
	cases := conform.Cases(conform.Options{Sizes: []int{700}})
	check(t, d, cases)
}

// On a CPU adapter with one thread, dispatches of 16K work items and more
// take 16 and 32 items per invocation (Device.itemsPer): fanned and plain,
// in rows and not, with tails; tiled reductions likewise, while their
// items make at most foldLoadsPerInvocation loads.
func TestLongInvocationsAgreeWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{Tuning: TuneCPU, Threads: 1})
	x := func(shape ...int) tensor.Tensor { return arange(t, tensor.Float32, shape...) }
	expand := func(in tensor.Tensor, size ...int) conform.Case {
		return conform.Case{Name: fmt.Sprintf("expand %v to %v", in.Shape(), size), Run: func(be tensor.Backend) (tensor.Tensor, error) {
			return tensor.Expand(be, in, size)
		}}
	}
	repeat := func(in tensor.Tensor, times ...int) conform.Case {
		return conform.Case{Name: fmt.Sprintf("repeat %v by %v", in.Shape(), times), Run: func(be tensor.Backend) (tensor.Tensor, error) {
			return be.Repeat(in, times)
		}}
	}
	reduce := func(op tensor.ReduceOp, in tensor.Tensor, to ...int) conform.Case {
		return conform.Case{Name: fmt.Sprintf("%v %v to %v", op, in.Shape(), to), Run: func(be tensor.Backend) (tensor.Tensor, error) {
			return be.Reduce(op, in, to)
		}}
	}
	transposed, _ := x(512, 300).Permute([]int{1, 0})
	check(t, d, []conform.Case{
		expand(x(64, 1, 4096), 64, 4, 4096), // 64K fanned vec4 items in rows: 32 per invocation
		expand(x(300, 1, 100), 300, 8, 100), // 30K scalar items, rows of 100: 16, stepping coordinates
		expand(x(1, 4093), 77, 4093),
		expand(x(300, 1, 768), 300, 4, 768), // rows of 768 hold runs of 8 items per lane, not of 32
		repeat(x(64, 4096), 2, 2),
		repeat(x(96, 1000), 3, 1),
		repeat(x(5, 7, 999), 2, 3, 5),
		binaryCase(tensor.Add, x(64, 1, 4096), x(1, 4, 4096)),
		binaryCase(tensor.Add, x(333, 1, 97), x(1, 5, 97)),
		reduce(tensor.Sum, x(64, 4, 4096), 64, 1, 4096),    // 64K vec4 items of 4 loads: 32 per invocation
		reduce(tensor.MaxAll, x(300, 7, 101), 300, 1, 101), // 30K scalar items of 7 loads: 16, with a tail
		reduce(tensor.MinAll, x(20001, 16), 20001, 1),      // 20K items of 4 vec4 loads: 16, with a tail
		reduce(tensor.Sum, x(7, 2, 333), 1, 2, 1),          // 2 chunks of 1166 per output: folds start and end mid-row
		reduce(tensor.MaxAll, x(7, 2, 336), 1, 2, 1),       // the same in vec4 loads (RVEC 4), chunks of 1176
		{Name: "materialize a transposed [512,300]", Run: func(be tensor.Backend) (tensor.Tensor, error) { return be.Materialize(transposed) }},
	})
}

func TestItemsPerInvocation(t *testing.T) {
	cpu := &Device{tuning: TuneCPU, threads: 2}
	gpu := &Device{tuning: TuneGPU}
	for _, c := range []struct {
		d           *Device
		items, want int
	}{
		{cpu, 1, 8}, {cpu, 16383, 8}, {cpu, 16384, 8}, {cpu, 32767, 8}, {cpu, 32768, 16}, {cpu, 65536, 32}, {cpu, 1 << 24, 32},
		{gpu, 1, 1}, {gpu, 2*fillInvocations - 1, 1}, {gpu, 2 * fillInvocations, 2}, {gpu, 8 * fillInvocations, 8}, {gpu, 1 << 24, 8},
	} {
		if got := c.d.itemsPer(c.items); got != c.want {
			t.Errorf("%v with %d threads, %d items: %d per invocation, want %d", c.d.tuning, c.d.threads, c.items, got, c.want)
		}
	}
}

func TestReduceItemsPerInvocation(t *testing.T) {
	d := &Device{tuning: TuneCPU, threads: 1, limits: Limits{MaxComputeWorkgroupsPerDimension: 65535}}
	for _, c := range []struct{ items, fold, rvec, want int }{
		{65536, 4, 1, 32}, {30300, 7, 1, 16}, {20001, 16, 4, 16}, {1000, 4, 1, 8},
		{65536, 16, 1, 8}, {65536, 1024, 4, 1}, {65536, 1 << 20, 4, 1},
	} {
		dp := dispatch{key: programKey{kernel: kernelReduce, rvec: c.rvec, lanes: 1}}
		d.tile(&dp, c.items, c.fold)
		if !dp.key.tiled || int(dp.params.per) != c.want {
			t.Errorf("%d items folding %d (rvec %d): tiled %v, %d per invocation, want %d", c.items, c.fold, c.rvec, dp.key.tiled, dp.params.per, c.want)
		}
	}
}

// TuneCPUOpBound (SwiftShader's) walks broadcast binary ops
// (binary_walk.wgsl): the sweep, and walks with and without tails along
// W and F, either operand held, on a non-commutative op.
func TestOpBoundTuningAgreesWithTheCPU(t *testing.T) {
	d := openOrSkip(t, Options{Tuning: TuneCPUOpBound, Threads: 1})
	cases := conform.Cases(conform.Options{Sizes: []int{0, 1, 2, 5, 17, 65, 257}})
	x := func(dt tensor.DType, shape ...int) tensor.Tensor { return arange(t, dt, shape...) }
	binary := binaryCase
	cases = append(cases,
		binary(tensor.Add, x(tensor.Float32, 64, 1, 4096), x(tensor.Float32, 1, 4, 4096)), // b held, 32 steps
		binary(tensor.Sub, x(tensor.Float32, 1, 4, 4096), x(tensor.Float32, 64, 1, 4096)), // a held
		binary(tensor.Sub, x(tensor.Int32, 77, 1, 12), x(tensor.Int32, 1, 19, 12)),        // F of 19: a fan of 16 with a tail; W of 77
		binary(tensor.Div, x(tensor.Uint32, 9, 1, 5, 1, 3), x(tensor.Uint32, 1, 33, 1, 7, 3)),
		binary(tensor.Max, x(tensor.Float32, 1000, 1, 3), x(tensor.Float32, 1, 37, 3)), // scalar items
		binary(tensor.Mul, x(tensor.Float32, 64, 1, 1), x(tensor.Float32, 1, 4, 8)),    // the walker splat
		binary(tensor.Min, x(tensor.Int32, 64, 1, 8), x(tensor.Int32, 1, 4, 1)),        // the held operand splat
		binary(tensor.Eq, x(tensor.Uint32, 40, 1, 4), x(tensor.Uint32, 1, 9, 4)),       // ones where the held and walked rows meet
	)
	check(t, d, cases)
	walks := 0
	for k := range d.pipelines {
		if k.kernel == kernelBinaryWalk {
			walks++
		}
	}
	if walks < 5 {
		t.Errorf("%d binary_walk pipelines compiled, want the walks above", walks)
	}
}

// arange is tensor.Arange of dt over shape, failing t on an error.
func arange(t *testing.T, dt tensor.DType, shape ...int) tensor.Tensor {
	t.Helper()
	v, err := tensor.Arange(dt, shape)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// binaryCase is the conformance case op(a, b).
func binaryCase(op tensor.BinaryOp, a, b tensor.Tensor) conform.Case {
	return conform.Case{Name: fmt.Sprintf("%v %v, %v", op, a.Shape(), b.Shape()), Run: func(be tensor.Backend) (tensor.Tensor, error) {
		return be.Binary(op, a, b)
	}}
}

// Eq on the GPU agrees with the CPU on the values a comparison can get
// wrong: NaN (equal to nothing, itself included), -0 and 0, infinities,
// neighbouring floats; in scalar and vec4 items, with tails, in every
// dtype and under every tuning (the walk included).
func TestEqAgreesWithTheCPU(t *testing.T) {
	special := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)), 1, math.Nextafter32(1, 2), -2.5}
	var cases []conform.Case
	for _, n := range []int{1, 7, 8, 64, 1027} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = special[i%len(special)], special[(i*i+i/len(special))%len(special)]
		}
		av, _ := tensor.FromSlice(tensor.Shape{n}, a)
		bv, _ := tensor.FromSlice(tensor.Shape{n}, b)
		col, _ := av.Reshape([]int{n, 1})
		cases = append(cases,
			binaryCase(tensor.Eq, av, bv),  // both contiguous: vec4 items where n allows
			binaryCase(tensor.Eq, av, av),  // NaN against itself
			binaryCase(tensor.Eq, col, bv), // every pair, b along the row
			binaryCase(tensor.Eq, bv, col)) // a along the row, b splat
		for _, dt := range []tensor.DType{tensor.Int32, tensor.Uint32} {
			x := arange(t, dt, n, 1)
			cases = append(cases, binaryCase(tensor.Eq, x, arange(t, dt, 1, 8)), binaryCase(tensor.Eq, x, arange(t, dt, 1, 3))) // rows of vec4s, and of scalars
		}
	}
	compiled := map[string]bool{} // "float32 vec4": an eq pipeline of that dtype and vector width
	for _, tuning := range []struct {
		name string
		t    Tuning
	}{{"TuneCPU", TuneCPU}, {"TuneGPU", TuneGPU}, {"TuneCPUOpBound", TuneCPUOpBound}} {
		t.Run(tuning.name, func(t *testing.T) {
			d := openOrSkip(t, Options{Tuning: tuning.t})
			check(t, d, cases)
			for k := range d.pipelines {
				if k.op == "eq" {
					compiled[fmt.Sprintf("%v vec%d", k.dtype, k.vec)] = true
				}
			}
		})
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
		for _, vec := range []int{1, 4} {
			if w := fmt.Sprintf("%v vec%d", dt, vec); !compiled[w] {
				t.Errorf("no eq pipeline of %s compiled; compiled: %v", w, slices.Sorted(maps.Keys(compiled)))
			}
		}
	}
}
