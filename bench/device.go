package bench

import (
	"fmt"
	"time"

	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor"
)

// DeviceResult is one case timed on a WebGPU device beside the device's
// own copies of the same traffic, all measured in the same run: the kernel
// alone on device-resident buffers (no upload, no readback), the plain
// vec4 copy kernel and copyBufferToBuffer, each moving Bytes/2 bytes (so
// Bytes read + written, as the case does).
type DeviceResult struct {
	Case       string  `json:"case"`
	Bytes      int64   `json:"bytes"`
	Kernel     float64 `json:"kernel_s"`      // median time per run
	CopyKernel float64 `json:"copy_kernel_s"` // the vec4 copy kernel
	BufferCopy float64 `json:"buffer_copy_s"` // copyBufferToBuffer
	KernelGBps float64 `json:"kernel_gb_per_s"`
	CopyGBps   float64 `json:"copy_kernel_gb_per_s"`
	BufferGBps float64 `json:"buffer_copy_gb_per_s"`
	Ratio      float64 `json:"ratio_of_copy_kernel"` // median over rounds of the round's kernel GB/s / copy kernel GB/s
	Target     float64 `json:"target_ratio"`         // 0.8 for data movement, 0.6 for reductions
	// Invocations is what one run dispatches (workgroups × workgroup
	// size, summed over its dispatches), Dispatches their number, and
	// Elements the case's input and output elements: a case of at least
	// FillInvocations elements should dispatch at least that many.
	Invocations uint64 `json:"invocations"`
	Dispatches  int    `json:"dispatches"`
	Elements    int64  `json:"elements"`
	// GPUInvocations and GPUDispatches are, where the device's own tuning
	// is a CPU adapter's, what the same case dispatches under TuneGPU
	// (Dispatched on a second device of the same adapter, its output
	// checked too): what a discrete GPU gets, on any machine. Where the
	// device is tuned as a GPU they equal Invocations and Dispatches.
	GPUInvocations uint64 `json:"gpu_invocations"`
	GPUDispatches  int    `json:"gpu_dispatches"`
	// TorchCUDA is, where the bench ran PyTorch's CUDA kernels beside
	// (RunTorchCUDA), their median time on the same case; 0 otherwise.
	// Theirs include each call's launch, ours are back-to-back runs.
	TorchCUDA float64 `json:"torch_cuda_s,omitempty"`
	// DatasheetGBps is the memory bandwidth the GPU's datasheet states,
	// where the bench knows the GPU (DatasheetFor), and OfDatasheet the
	// kernel's GB/s over it; 0 otherwise.
	DatasheetGBps float64 `json:"datasheet_gb_per_s,omitempty"`
	OfDatasheet   float64 `json:"ratio_of_datasheet,omitempty"`
}

// FillInvocations is the fewest invocations a bench case dispatches
// where its input and output hold at least as many elements: a quarter
// of an H200's resident threads (132 SMs × 2,048), the least that keeps
// a large GPU busy (shaders.fillInvocations is the reduce kernel's).
const FillInvocations = 1 << 16

// Elements is the elements c's operands and its output hold: Bytes in
// float32s.
func (c Case) Elements() int64 { return c.Bytes() / 4 }

// Target is the least ratio of the copy kernel's throughput a case's
// kernel should reach: 0.8 for the data-movement kernels (expand, repeat,
// binary, unary), 0.6 for reductions, which also combine what they read,
// and softmax, a max, a sum and a write per line.
func (c Case) Target() float64 {
	if c.Op == "sum" || c.Op == "softmax" {
		return 0.6
	}
	return 0.8
}

// DeviceOptions tune MeasureDevice.
type DeviceOptions struct {
	Rounds  int           // rounds of kernel, copy kernel, buffer copy in turn (median of rounds)
	MinTime time.Duration // least time one batch of back-to-back runs takes
}

// MeasureDevice times c on g's device: it prepares the kernel once, checks
// one run's output against the CPU reference (one readback), then times
// batches of back-to-back runs of the kernel and of both copies in turn,
// round after round, so a slow spell of the machine hits all three.
func MeasureDevice(g *shaders.GPU, c Case, opt DeviceOptions) (DeviceResult, error) {
	opt.Rounds = max(opt.Rounds, 1)
	in, err := c.Inputs()
	if err != nil {
		return DeviceResult{}, err
	}
	kernel, err := g.Prepare(func(be tensor.Backend) (tensor.Tensor, error) { return c.Run(be, in) })
	if err != nil {
		return DeviceResult{}, fmt.Errorf("%s: %w", c.Name, err)
	}
	defer kernel.Release()
	if err := verify(kernel, c, in); err != nil {
		return DeviceResult{}, err
	}
	copyKernel, err := g.Device().PrepareCopy(uint64(c.Bytes() / 2))
	if err != nil {
		return DeviceResult{}, err
	}
	defer copyKernel.Release()
	bufferCopy, err := g.Device().PrepareBufferCopy(uint64(c.Bytes() / 2))
	if err != nil {
		return DeviceResult{}, err
	}
	defer bufferCopy.Release()
	all := []*shaders.Kernel{kernel, copyKernel, bufferCopy}
	reps := make([]int, len(all))
	for i, k := range all {
		if reps[i], err = calibrate(k, opt.MinTime); err != nil {
			return DeviceResult{}, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	times := make([][]float64, len(all))
	for range opt.Rounds {
		for i, k := range all {
			t, err := k.Run(reps[i])
			if err != nil {
				return DeviceResult{}, fmt.Errorf("%s: %w", c.Name, err)
			}
			times[i] = append(times[i], t.Seconds())
		}
	}
	r := DeviceResult{Case: c.Name, Bytes: c.Bytes(), Target: c.Target(),
		Kernel: median(times[0]), CopyKernel: median(times[1]), BufferCopy: median(times[2]),
		Invocations: kernel.Invocations(), Dispatches: kernel.Dispatches(), Elements: c.Elements()}
	r.GPUInvocations, r.GPUDispatches = r.Invocations, r.Dispatches
	gb := func(s float64) float64 { return float64(r.Bytes) / s / 1e9 }
	r.KernelGBps, r.CopyGBps, r.BufferGBps = gb(r.Kernel), gb(r.CopyKernel), gb(r.BufferCopy)
	// Each round times the kernel and the copy kernel back to back, so the
	// round's ratio is a paired measurement: a slow spell of the machine
	// slows both. The median of those ratios is steadier than the ratio
	// of the medians, which pairs times from different rounds.
	ratios := make([]float64, len(times[0]))
	for i := range ratios {
		ratios[i] = times[1][i] / times[0][i]
	}
	r.Ratio = median(ratios)
	return r, nil
}

// Dispatched prepares c's kernel on g, checks one run's output against
// the CPU reference and returns how many invocations and dispatches one
// run makes, timing nothing: the counts of another tuning beside a
// measured one.
func Dispatched(g *shaders.GPU, c Case) (uint64, int, error) { return dispatched(g, c, true) }

// dispatched is Dispatched, checking the output only where check is set.
func dispatched(g *shaders.GPU, c Case, check bool) (uint64, int, error) {
	in, err := c.Inputs()
	if err != nil {
		return 0, 0, err
	}
	kernel, err := g.Prepare(func(be tensor.Backend) (tensor.Tensor, error) { return c.Run(be, in) })
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", c.Name, err)
	}
	defer kernel.Release()
	if check {
		if err := verify(kernel, c, in); err != nil {
			return 0, 0, err
		}
	}
	return kernel.Invocations(), kernel.Dispatches(), nil
}

// calibrate runs k once (compiling, warming), then doubles a batch of
// back-to-back runs until it takes at least minTime (at most 1024 runs),
// so the submit-and-wait overhead of a batch fades from the figure.
func calibrate(k *shaders.Kernel, minTime time.Duration) (int, error) {
	if _, err := k.Run(1); err != nil {
		return 0, err
	}
	reps := 1
	for ; reps < 1024; reps *= 2 {
		t, err := k.Run(reps)
		if err != nil {
			return 0, err
		}
		if t*time.Duration(reps) >= minTime {
			break
		}
	}
	return reps, nil
}

// verify reads the prepared kernel's output back once and compares it with
// the CPU reference: a benchmark of a wrong kernel is worthless.
func verify(k *shaders.Kernel, c Case, in []tensor.Tensor) error {
	want, err := c.Run(tensor.CPU{}, in)
	if err != nil {
		return err
	}
	if _, err := k.Run(1); err != nil {
		return err
	}
	got, err := tensor.Empty(want.DType(), want.Shape())
	if err != nil {
		return err
	}
	if err := k.ReadInto(got); err != nil {
		return err
	}
	w, g := want.Float64s(), got.Float64s()
	tol := 0.0
	switch c.Op {
	case "sum", "softmax":
		tol = 1e-5 // f32 accumulation on the GPU, float64 on the CPU
	case "exp":
		tol = 1e-6 // WGSL allows exp 3 + 2·|x| ulp: 5 ulp for these inputs in [0, 1)
	}
	for i := range w {
		if d := g[i] - w[i]; d > tol*max(1, w[i], -w[i]) || -d > tol*max(1, w[i], -w[i]) {
			return fmt.Errorf("%s: the GPU kernel's output differs from the CPU at element %d: %g, want %g", c.Name, i, g[i], w[i])
		}
	}
	return nil
}
