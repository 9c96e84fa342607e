package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
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
	fs := newFlags("bench", "[--runs 15] [--rounds 3] [--json FILE] [--svg FILE] [--no-numpy] [--backend cpu|gpu|auto]", stderr)
	runs := fs.Int("runs", 15, "timed runs per case and round, at least (the median is reported)")
	rounds := fs.Int("rounds", 3, "rounds per case, NumPy and Go taking turns (the median of the round medians is reported)")
	jsonOut := fs.String("json", "", "also write the results as JSON to this file")
	noNumPy := fs.Bool("no-numpy", false, "skip the NumPy peer")
	svgOut := fs.String("svg", "", "gpu: also draw the results as an SVG bar chart in this file")
	backend := computeFlags(fs, stderr)
	if err := fs.parse(args); err != nil {
		return err
	}
	if *runs < 1 {
		return usagef("--runs must be at least 1, not %d", *runs)
	}
	if *rounds < 1 {
		return usagef("--rounds must be at least 1, not %d", *rounds)
	}
	be, err := backend()
	if err != nil {
		return err
	}
	if g, ok := be.(*shaders.GPU); ok {
		return runDeviceBench(g, *rounds, *jsonOut, *svgOut, stdout, stderr)
	}
	if *svgOut != "" {
		return usagef("--svg charts the GPU benchmark: add --backend gpu")
	}
	// NumPy and Go take turns case by case and round by round, so a slow
	// spell of a shared machine hits both sides of a ratio alike.
	cases := bench.Cases()
	var results, gcResults, peer []bench.Result
	version := ""
	bar := newProgress(len(cases)**rounds, stderr)
	for _, c := range cases {
		var mine, gc, theirs []bench.Result
		for round := 1; round <= *rounds; round++ {
			bar.Describe(c.Name)
			if !*noNumPy {
				p, v, err := bench.RunNumPy([]bench.Case{c}, *runs)
				if err != nil {
					return fmt.Errorf("%v (run with --no-numpy to skip the peer)", err)
				}
				theirs, version = append(theirs, p...), v
			}
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
		if theirs != nil {
			peer = append(peer, bench.MedianOf(theirs))
		}
	}
	bar.Finish()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	name := be.Name()
	fmt.Fprintf(tw, "case\t%s ms\t%s GB/s\t%s+gc ms\tnumpy ms\tnumpy GB/s\tspeedup vs numpy\t\n", name, name, name)
	for i, r := range results {
		if peer == nil {
			fmt.Fprintf(tw, "%s\t%.3f\t%.1f\t%.3f\t-\t-\t-\t\n", r.Case, r.Median*1e3, r.GBps, gcResults[i].Median*1e3)
			continue
		}
		p := peer[i]
		fmt.Fprintf(tw, "%s\t%.3f\t%.1f\t%.3f\t%.3f\t%.1f\t%.2fx\t\n", r.Case, r.Median*1e3, r.GBps, gcResults[i].Median*1e3, p.Median*1e3, p.GBps, p.Median/r.Median)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "median of %d rounds' medians of at least %d runs and %v, fresh output per run: %s releases it at the end of each run as NumPy frees it, %s+gc leaves it to the garbage collector", *rounds, *runs, bench.MinTime, name, name)
	if version != "" {
		fmt.Fprintf(stdout, "; NumPy %s", version)
	}
	fmt.Fprintln(stdout, "; GB/s counts bytes read + written")
	if *jsonOut != "" {
		body, _ := json.MarshalIndent(map[string]any{"numpy_version": version, "results": append(append(results, gcResults...), peer...)}, "", "  ")
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
func runDeviceBench(g *shaders.GPU, rounds int, jsonOut, svgOut string, stdout, stderr io.Writer) error {
	info := g.Device().Info()
	cases := bench.Cases()
	bar := newProgress(len(cases), stderr)
	var results []bench.DeviceResult
	for _, c := range cases {
		bar.Describe(c.Name)
		r, err := bench.MeasureDevice(g, c, bench.DeviceOptions{Rounds: rounds, MinTime: 50 * time.Millisecond})
		if err != nil {
			return err
		}
		results = append(results, r)
		bar.Add(1)
	}
	bar.Finish()
	device := fmt.Sprintf("%s (%s, %s)", info.Name, info.Backend, info.Type)
	fmt.Fprintf(stdout, "device: %s\n", device)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "case\tkernel ms\tkernel GB/s\tcopy kernel GB/s\tcopyBufferToBuffer GB/s\tof copy kernel\ttarget\t\n")
	for _, r := range results {
		mark := ""
		if r.Ratio < r.Target {
			mark = " (below)"
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.1f\t%.1f\t%.1f\t%.2f\t%.1f%s\t\n", r.Case, r.Kernel*1e3, r.KernelGBps, r.CopyGBps, r.BufferGBps, r.Ratio, r.Target, mark)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "median of %d rounds; each round times the kernel, the vec4 copy kernel and copyBufferToBuffer in turn (batches of back-to-back runs of at least 50ms, inputs resident on the device, no readback); \"of copy kernel\" is the median of the rounds' kernel/copy-kernel ratios; the copies move half the case's bytes, so all three move the same bytes read + written; every kernel's output was checked against the CPU first\n", rounds)
	if jsonOut != "" {
		body, _ := json.MarshalIndent(map[string]any{"device": info, "results": results}, "", "  ")
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
