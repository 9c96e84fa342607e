package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/stridelab/stridelab/bench"
)

// runBench times every benchmark case on the chosen backend and, in the
// same run, with NumPy, and prints a table of medians and their ratio.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", "[--runs 15] [--json FILE] [--no-numpy] [--backend cpu]", stderr)
	runs := fs.Int("runs", 15, "timed runs per case (the median is reported)")
	jsonOut := fs.String("json", "", "also write the results as JSON to this file")
	noNumPy := fs.Bool("no-numpy", false, "skip the NumPy peer")
	backend := backendFlag(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if *runs < 1 {
		return usagef("--runs must be at least 1, not %d", *runs)
	}
	be, err := backend()
	if err != nil {
		return err
	}
	cases := bench.Cases()
	var peer []bench.Result
	version := ""
	if !*noNumPy {
		fmt.Fprintln(stderr, "stridelab bench: timing NumPy...")
		if peer, version, err = bench.RunNumPy(cases, *runs); err != nil {
			return fmt.Errorf("%v (run with --no-numpy to skip the peer)", err)
		}
	}
	var results []bench.Result
	for i, c := range cases {
		fmt.Fprintf(stderr, "stridelab bench: [%d/%d] %s on %s\n", i+1, len(cases), c.Name, be.Name())
		r, err := bench.Measure(be, c, *runs)
		if err != nil {
			return fmt.Errorf("%s: %v", c.Name, err)
		}
		results = append(results, r)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "case\t%s ms\t%s GB/s\tnumpy ms\tnumpy GB/s\tspeedup vs numpy\t\n", be.Name(), be.Name())
	for i, r := range results {
		if peer == nil {
			fmt.Fprintf(tw, "%s\t%.2f\t%.1f\t-\t-\t-\t\n", r.Case, r.Median*1e3, r.GBps)
			continue
		}
		p := peer[i]
		fmt.Fprintf(tw, "%s\t%.2f\t%.1f\t%.2f\t%.1f\t%.2fx\t\n", r.Case, r.Median*1e3, r.GBps, p.Median*1e3, p.GBps, p.Median/r.Median)
	}
	tw.Flush()
	if version != "" {
		fmt.Fprintf(stdout, "medians of %d runs, fresh output per run; NumPy %s; GB/s counts bytes read + written\n", *runs, version)
	}
	if *jsonOut != "" {
		body, _ := json.MarshalIndent(map[string]any{"numpy_version": version, "results": append(results, peer...)}, "", "  ")
		if err := os.WriteFile(*jsonOut, body, 0o644); err != nil {
			return err
		}
	}
	return nil
}
