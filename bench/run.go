package bench

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"time"

	"github.com/stridelab/stridelab/internal/python"
	"github.com/stridelab/stridelab/tensor"
)

// Result is one case measured on one implementation.
type Result struct {
	Case   string  `json:"case"`
	Impl   string  `json:"impl"` // "cpu", "numpy", …
	Median float64 `json:"median_s"`
	GBps   float64 `json:"gb_per_s"` // Bytes / Median / 1e9
}

// MinTime is the least time Measure and the NumPy peer spend timing a case:
// short cases run more than `runs` times, so their median is not at the
// mercy of a few scheduler hiccups.
const MinTime = 200 * time.Millisecond

// Measure runs c on be at least `runs` times and for at least MinTime,
// after one warm-up call, and returns the median time. Every run allocates its own output, as NumPy does. With
// release, each run ends (inside the timed region) by handing its output
// back with Tensor.Release, NumPy's discipline: the array is freed when its
// last reference goes, and malloc hands the memory to the next one. Without
// it the output is left to Go's garbage collector, and the Result's Impl
// gets a "+gc" suffix.
func Measure(be tensor.Backend, c Case, runs int, release bool) (Result, error) {
	in, err := c.Inputs()
	if err != nil {
		return Result{}, err
	}
	warm, err := c.Run(be, in)
	if err != nil {
		return Result{}, err
	}
	warm.Release()
	runtime.GC() // start from a quiet heap, as testing.B does
	var times []float64
	for start := time.Now(); len(times) < runs || time.Since(start) < MinTime; {
		t0 := time.Now()
		out, err := c.Run(be, in)
		if err != nil {
			return Result{}, err
		}
		if release {
			out.Release()
		}
		times = append(times, time.Since(t0).Seconds())
	}
	impl := be.Name()
	if !release {
		impl += "+gc"
	}
	return newResult(c, impl, median(times)), nil
}

// MeasureMemcpy times Go's copy (the runtime's memmove, one thread) of
// half c's bytes into a buffer allocated once, as Measure times c: so it
// reads and writes c's bytes in all, and its GB/s is the bandwidth c's
// kernel is measured against ("of memcpy").
func MeasureMemcpy(c Case, runs int) Result {
	n := c.Bytes() / 2
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // warm: both buffers' pages in
	var times []float64
	for start := time.Now(); len(times) < runs || time.Since(start) < MinTime; {
		t0 := time.Now()
		copy(dst, src)
		times = append(times, time.Since(t0).Seconds())
	}
	return newResult(c, "memcpy", median(times))
}

// MedianOf combines measurements of one case and implementation taken in
// several rounds: the median of their medians. Rounds interleaved with the
// peer's spread a shared machine's slow spells over both sides of a ratio.
func MedianOf(rounds []Result) Result {
	meds := make([]float64, len(rounds))
	for i, r := range rounds {
		meds[i] = r.Median
	}
	r := rounds[0]
	r.Median = median(meds)
	r.GBps = r.GBps * rounds[0].Median / r.Median
	return r
}

func newResult(c Case, impl string, med float64) Result {
	return Result{Case: c.Name, Impl: impl, Median: med, GBps: float64(c.Bytes()) / med / 1e9}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

//go:embed peer.py
var peerScript []byte

// NumPyPython is the interpreter that imports NumPy (python.Find): the
// first python3 on PATH that does, else Debian's with python3-numpy.
// When none does, the error wraps python.ErrNoNumPy.
func NumPyPython(ctx context.Context) (string, error) {
	need := python.NumPy
	need.Prefix = "bench"
	return python.Find(ctx, "", need)
}

// RunNumPy measures the cases with NumPy (median of at least runs runs and
// MinTime per case, as Measure) and returns the results and NumPy's
// version. It fails if python3 or NumPy is missing.
func RunNumPy(cases []Case, runs int) ([]Result, string, error) {
	return runPeer("numpy", 0, "cpu", cases, runs)
}

// RunTorch measures the cases with PyTorch on the CPU at threads threads
// (the peer at stridelab's own thread count), as RunNumPy does NumPy.
func RunTorch(cases []Case, runs, threads int) ([]Result, string, error) {
	return runPeer("torch", threads, "cpu", cases, runs)
}

// RunTorchCUDA measures the cases with PyTorch's CUDA kernels, each run
// timed between two torch.cuda.synchronize() calls: the peer of the GPU
// bench where PyTorch with CUDA is installed. Its results are named
// "torch-cuda".
func RunTorchCUDA(cases []Case, runs int) ([]Result, string, error) {
	res, v, err := runPeer("torch", 0, "cuda", cases, runs)
	for i := range res {
		res[i].Impl = "torch-cuda"
	}
	return res, v, err
}

// runPeer runs peer.py for lib ("numpy" or "torch", with threads
// threads, on device "cpu" or "cuda") on the interpreter NumPyPython
// finds: the results, named lib, and lib's version.
func runPeer(lib string, threads int, device string, cases []Case, runs int) ([]Result, string, error) {
	py, err := NumPyPython(context.Background())
	if err != nil {
		return nil, "", err
	}
	type jcase struct {
		Name string `json:"name"`
		Op   string `json:"op"`
		In   []int  `json:"in"`
		B    []int  `json:"b"`
		Arg  []int  `json:"arg"`
	}
	req := struct {
		Lib     string  `json:"lib"`
		Threads int     `json:"threads"`
		Device  string  `json:"device"`
		Cases   []jcase `json:"cases"`
		Runs    int     `json:"runs"`
		MinS    float64 `json:"min_s"`
	}{Lib: lib, Threads: threads, Device: device, Runs: runs, MinS: MinTime.Seconds()}
	for _, c := range cases {
		req.Cases = append(req.Cases, jcase{c.Name, c.Op, c.In, c.B, c.Arg})
	}
	body, _ := json.Marshal(req)
	cmd := exec.Command(py, "-c", string(peerScript))
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("bench: %s peer (%s): %v: %s", lib, py, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var resp struct {
		Version string `json:"version"`
		Results []struct {
			Name   string  `json:"name"`
			Median float64 `json:"median_s"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, "", fmt.Errorf("bench: %s peer printed %q: %v", lib, out, err)
	}
	var res []Result
	for i, r := range resp.Results {
		res = append(res, newResult(cases[i], lib, r.Median))
	}
	return res, resp.Version, nil
}
