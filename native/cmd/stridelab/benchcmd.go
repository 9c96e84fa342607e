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
	fs := newFlags("bench", "[--runs 15] [--rounds 3] [--json FILE] [--no-numpy] [--backend cpu]", stderr)
	runs := fs.Int("runs", 15, "timed runs per case and round, at least (the median is reported)")
	rounds := fs.Int("rounds", 3, "rounds per case, NumPy and Go taking turns (the median of the round medians is reported)")
	jsonOut := fs.String("json", "", "also write the results as JSON to this file")
	noNumPy := fs.Bool("no-numpy", false, "skip the NumPy peer")
	backend := backendFlag(fs, stderr)
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
	// NumPy and Go take turns case by case and round by round, so a slow
	// spell of a shared machine hits both sides of a ratio alike.
	cases := bench.Cases()
	var results, gcResults, peer []bench.Result
	version := ""
	for i, c := range cases {
		var mine, gc, theirs []bench.Result
		for round := 1; round <= *rounds; round++ {
			fmt.Fprintf(stderr, "stridelab bench: [%d/%d] %s, round %d of %d\n", i+1, len(cases), c.Name, round, *rounds)
			if !*noNumPy {
				p, v, err := bench.RunNumPy(cases[i:i+1], *runs)
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
		}
		results, gcResults = append(results, bench.MedianOf(mine)), append(gcResults, bench.MedianOf(gc))
		if theirs != nil {
			peer = append(peer, bench.MedianOf(theirs))
		}
	}
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
