package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/stridelab/stridelab/bench"
	"github.com/stridelab/stridelab/bench/chart"
	"github.com/stridelab/stridelab/shaders"
)

// runBench times every benchmark case on the chosen backend and, in the
// same run, with NumPy, and prints a table of medians and their ratio.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", "[--runs 15] [--rounds 3] [--cases sum,add] [--json FILE] [--svg FILE] [--no-numpy] [--no-torch] [--backend cpu|gpu|auto] [--tune auto|gpu|cpu]", stderr)
	only := fs.String("cases", "", "run only the cases whose names start with one of these words, comma-separated (sum,add)")
	torchCUDA := fs.Bool("torch-cuda", false, "gpu: time PyTorch's CUDA kernels on each case beside (needs PyTorch with CUDA)")
	datasheet := fs.Float64("datasheet-gbps", 0, "gpu: the device's memory bandwidth by its datasheet, GB/s, for the \"of datasheet\" column (0: the bench's own table of NVIDIA H100 and H200 parts)")
	runs := fs.Int("runs", 15, "timed runs per case and round, at least (the median is reported)")
	rounds := fs.Int("rounds", 3, "rounds per case, NumPy and Go taking turns (the median of the round medians is reported)")
	jsonOut := fs.String("json", "", "also write the results as JSON to this file")
	noNumPy := fs.Bool("no-numpy", false, "skip the NumPy and PyTorch peers")
	noTorch := fs.Bool("no-torch", false, "skip the PyTorch peer (PyTorch on the CPU at stridelab's thread count)")
	svgOut := fs.String("svg", "", "gpu: also draw the results as an SVG bar chart in this file")
	backend := computeFlags(fs, stderr)
	tune := fs.String("tune", "auto", "gpu: how the kernels share out work: auto (as the adapter asks), gpu (what a discrete GPU gets: its invocation counts on any adapter) or cpu")
	if err := fs.parse(args); err != nil {
		return err
	}
	tuning, err := shaders.ParseTuning(*tune)
	if err != nil {
		return usagef("--tune %v", err)
	}
	if *runs < 1 {
		return usagef("--runs must be at least 1, not %d", *runs)
	}
	if *datasheet < 0 {
		return usagef("--datasheet-gbps must be a bandwidth in GB/s, not %g", *datasheet)
	}
	if *rounds < 1 {
		return usagef("--rounds must be at least 1, not %d", *rounds)
	}
	be, err := backend(tuning)
	if err != nil {
		return err
	}
	if _, ok := be.(*shaders.GPU); !ok && tuning != shaders.TuneAuto {
		return usagef("--tune tunes the GPU kernels: add --backend gpu")
	}
	if g, ok := be.(*shaders.GPU); ok {
		cases, err := bench.Select(bench.Cases(), *only)
		if err != nil {
			return usagef("--cases: %v", err)
		}
		return runDeviceBench(g, cases, *rounds, *torchCUDA, *datasheet, *jsonOut, *svgOut, stdout, stderr)
	}
	if *svgOut != "" {
		return usagef("--svg charts the GPU benchmark: add --backend gpu")
	}
	// NumPy and Go take turns case by case and round by round, so a slow
	// spell of a shared machine hits both sides of a ratio alike.
	cases, err := bench.Select(bench.Cases(), *only)
	if err != nil {
		return usagef("--cases: %v", err)
	}
	var results, gcResults, peer, torchPeer, memcpy []bench.Result
	version, torchVersion := "", ""
	threads := runtime.GOMAXPROCS(0)
	bar := newProgress(len(cases)**rounds, stderr)
	for _, c := range cases {
		var mine, gc, theirs, torchs, copies []bench.Result
		for round := 1; round <= *rounds; round++ {
			bar.Describe(c.Name)
			if !*noNumPy {
				p, v, err := bench.RunNumPy([]bench.Case{c}, *runs)
				if err != nil {
					return fmt.Errorf("%v (run with --no-numpy to skip the peer)", err)
				}
				theirs, version = append(theirs, p...), v
				if !*noTorch {
					p, v, err := bench.RunTorch([]bench.Case{c}, *runs, threads)
					if err != nil {
						return fmt.Errorf("%v (run with --no-torch to skip the peer)", err)
					}
					torchs, torchVersion = append(torchs, p...), v
				}
			}
			copies = append(copies, bench.MeasureMemcpy(c, *runs))
			r, err := bench.Measure(be, c, *runs, true)
			if err != nil {
				return fmt.Errorf("%s: %v", c.Name, err)
			}
			g, err := bench.Measure(be, c, *runs, false)
			if err != nil {
				return fmt.Errorf("%s: %v", c.Name, err)
			}
			mine, gc = append(mine, r), append(gc, g)
			bar.Add(1)
		}
		results, gcResults = append(results, bench.MedianOf(mine)), append(gcResults, bench.MedianOf(gc))
		memcpy = append(memcpy, bench.MedianOf(copies))
		if theirs != nil {
			peer = append(peer, bench.MedianOf(theirs))
		}
		if torchs != nil {
			torchPeer = append(torchPeer, bench.MedianOf(torchs))
		}
	}
	bar.Finish()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	name := be.Name()
	fmt.Fprintf(tw, "case\t%s ms\t%s GB/s\t%s+gc ms\tnumpy ms\tvs numpy\ttorch ms\tvs torch\tmemcpy GB/s\tof memcpy\t\n", name, name, name)
	for i, r := range results {
		cells := []string{r.Case, fmt.Sprintf("%.3f", r.Median*1e3), fmt.Sprintf("%.1f", r.GBps), fmt.Sprintf("%.3f", gcResults[i].Median*1e3)}
		for _, ps := range [][]bench.Result{peer, torchPeer} {
			if ps == nil {
				cells = append(cells, "-", "-")
				continue
			}
			cells = append(cells, fmt.Sprintf("%.3f", ps[i].Median*1e3), fmt.Sprintf("%.2fx", ps[i].Median/r.Median))
		}
		cells = append(cells, fmt.Sprintf("%.1f", memcpy[i].GBps), fmt.Sprintf("%.2f", memcpy[i].Median/r.Median))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintf(stdout, "median of %d rounds' medians of at least %d runs and %v, fresh output per run: %s releases it at the end of each run as NumPy frees it, %s+gc leaves it to the garbage collector", *rounds, *runs, bench.MinTime, name, name)
	if version != "" {
		fmt.Fprintf(stdout, "; NumPy %s", version)
	}
	if torchVersion != "" {
		fmt.Fprintf(stdout, "; PyTorch %s on the CPU at %d threads, as %s's GOMAXPROCS", torchVersion, threads, name)
	}
	fmt.Fprintln(stdout, "; GB/s counts bytes read + written; memcpy is Go's copy of half the case's bytes on one thread, \"of memcpy\" its time over the case's")
	if *jsonOut != "" {
		body, _ := json.MarshalIndent(map[string]any{"numpy_version": version, "torch_version": torchVersion, "threads": threads,
			"results": slices.Concat(results, gcResults, peer, torchPeer, memcpy)}, "", "  ")
		if err := os.WriteFile(*jsonOut, body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// newProgress is the bar a benchmark shows on stderr while it runs.
func newProgress(steps int, stderr io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions(steps,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
}

// runDeviceBench times every case's kernel on the GPU alone (inputs
// resident, no readback) beside the device's vec4 copy kernel and
// copyBufferToBuffer moving the same bytes, in the same run.
func runDeviceBench(g *shaders.GPU, cases []bench.Case, rounds int, torchCUDA bool, datasheetGBps float64, jsonOut, svgOut string, stdout, stderr io.Writer) error {
	info := g.Device().Info()
	sheet, known := bench.DatasheetFor(info.Name, datasheetGBps)

	torchVersion := ""
	bar := newProgress(len(cases), stderr)
	var results []bench.DeviceResult
	for _, c := range cases {
		bar.Describe(c.Name)
		r, err := bench.MeasureDevice(g, c, bench.DeviceOptions{Rounds: rounds, MinTime: 50 * time.Millisecond})
		if err != nil {
			return err
		}
		if torchCUDA {
			p, v, err := bench.RunTorchCUDA([]bench.Case{c}, 15)
			if err != nil {
				return fmt.Errorf("%v (PyTorch with CUDA; leave out --torch-cuda to skip it)", err)
			}
			r.TorchCUDA, torchVersion = p[0].Median, v
		}
		if known {
			r.DatasheetGBps, r.OfDatasheet = sheet.GBps, r.KernelGBps/sheet.GBps
		}
		results = append(results, r)
		bar.Add(1)
	}
	bar.Finish()
	// On an adapter tuned otherwise, a second device tuned as a GPU gives
	// each case's counts on a GPU beside the adapter's own: opened after
	// the timing, so the timed runs share the machine with nothing new.
	var asGPU *shaders.GPU
	if g.Device().Tuning() != shaders.TuneGPU {
		dev, err := shaders.Open(shaders.Options{Tuning: shaders.TuneGPU})
		if err != nil {
			return fmt.Errorf("opening the adapter again with a GPU's tuning: %w", err)
		}
		defer dev.Close()
		asGPU = shaders.NewBackend(dev)
		for i, c := range cases {
			r := &results[i]
			if r.GPUInvocations, r.GPUDispatches, err = bench.Dispatched(asGPU, c); err != nil {
				return fmt.Errorf("under a GPU's tuning: %w", err)
			}
		}
	}
	device := fmt.Sprintf("%s (%s, %s)", info.Name, info.Backend, info.Type)
	fmt.Fprintf(stdout, "device: %s\n", device)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	gpuHeader := ""
	if asGPU != nil {
		gpuHeader = "invocations on a GPU\t"
	}
	fmt.Fprintf(tw, "case\tkernel ms\tkernel GB/s\tcopy kernel GB/s\tcopyBufferToBuffer GB/s\tof copy kernel\ttarget\tof datasheet\tinvocations\t%storch cuda (speedup)\t\n", gpuHeader)
	for _, r := range results {
		mark := ""
		if r.Ratio < r.Target {
			mark = " (below)"
		}
		few := ""
		if r.GPUInvocations < bench.FillInvocations && r.Elements >= bench.FillInvocations {
			few = " (few)"
		}
		onGPU := ""
		if asGPU != nil {
			onGPU = fmt.Sprintf("%d in %d%s\t", r.GPUInvocations, r.GPUDispatches, few)
			few = ""
		}
		torch := ""
		if r.TorchCUDA > 0 {
			torch = fmt.Sprintf("%.3f ms (%.2fx)", r.TorchCUDA*1e3, r.TorchCUDA/r.Kernel)
		}
		sheetCell := "-"
		if r.DatasheetGBps > 0 {
			sheetCell = fmt.Sprintf("%.2f", r.OfDatasheet)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.1f\t%.1f\t%.1f\t%.2f\t%.1f%s\t%s\t%d in %d%s\t%s%s\t\n", r.Case, r.Kernel*1e3, r.KernelGBps, r.CopyGBps, r.BufferGBps, r.Ratio, r.Target, mark, sheetCell, r.Invocations, r.Dispatches, few, onGPU, torch)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "median of %d rounds; each round times the kernel, the vec4 copy kernel and copyBufferToBuffer in turn (batches of back-to-back runs of at least 50ms, inputs resident on the device, no readback); \"of copy kernel\" is the median of the rounds' kernel/copy-kernel ratios; the copies move half the case's bytes, so all three move the same bytes read + written; every kernel's output was checked against the CPU first; invocations: what one run dispatches (workgroups × workgroup size, in so many dispatches), \"(few)\" under %d where the case holds more elements\n", rounds, bench.FillInvocations)
	if asGPU != nil {
		fmt.Fprintf(stdout, "invocations on a GPU: what each case dispatches under a discrete GPU's tuning (--tune gpu), prepared and checked on this adapter, not timed; this adapter's own tuning (%s) shares out work for a CPU's threads\n", g.Device().Tuning())
	}
	if known {
		fmt.Fprintf(stdout, "of datasheet: the kernel's GB/s over %.0f GB/s (%s)\n", sheet.GBps, sheet.Source)
	} else {
		fmt.Fprintf(stdout, "of datasheet: no datasheet known for %q (give one with --datasheet-gbps)\n", info.Name)
	}
	if torchVersion != "" {
		fmt.Fprintf(stdout, "torch cuda: PyTorch %s's own kernels on the same values (torch.sum, expand().contiguous(), repeat, +, exp, softmax), each call timed between two synchronizes, launch included\n", torchVersion)
	}
	if jsonOut != "" {
		out := map[string]any{"device": info, "torch_version": torchVersion, "results": results}
		if known {
			out["datasheet"] = sheet
		}
		body, _ := json.MarshalIndent(out, "", "  ")
		if err := os.WriteFile(jsonOut, body, 0o644); err != nil {
			return err
		}
	}
	if svgOut != "" {
		f, err := os.Create(svgOut)
		if err != nil {
			return err
		}
		if err := chart.Write(f, "stridelab kernels on "+device, results); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
