package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/internal/atomicfile"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/tensor"
)

// runCalibrate measures this machine's collectives and writes a cluster
// file: stridelab calibrate --engine torch [--placement N] [-o FILE]
// [--name NAME] [--runs R] [--per-collective=false]. The workers are the
// torch engine's (torch.Calibrate); the fit is cluster.Fit over every
// collective, each collective's own fit beside it, and the file's link
// carries each collective's own α and β (cluster.Link.Collectives) unless
// --per-collective=false asks for the plain link. The cluster file goes to -o (written
// whole by internal/atomicfile) or, without it, to stdout, and the
// report to stdout with -o, else to stderr, so that stdout is the file
// alone. A progress bar runs on stderr.
func runCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", "--engine torch [--placement 4] [-o FILE] [--name loopback] [--runs 5] [--per-collective=true] [--python PATH] [--timeout 10m]", stderr)
	engineName := fs.String("engine", "torch", "the engine whose collectives are measured: torch (one torch.distributed process per device, gloo over 127.0.0.1)")
	placement := fs.String("placement", "4", "the processes and their mesh: 4, [[0,1],[2,3]] (each mesh dim gets its own link)")
	out := fs.String("o", "", "write the cluster file here (default: stdout)")
	name := fs.String("name", "loopback", "the cluster's name in the file")
	runs := fs.Int("runs", torch.DefaultRuns, "timed runs of each collective at each size (after one warm-up)")
	perCollective := fs.Bool("per-collective", true, "give each collective of the file's links its own α and β, its own fit (\"collectives\"): gloo runs a reduce-scatter as an all-reduce and a slice; false writes one α and β per link")
	python := fs.String("python", "", "the interpreter the workers run (default: the first python3 that imports torch, else /usr/bin/python3)")
	timeout := fs.Duration("timeout", torch.CalibrateTimeout, "the longest the whole calibration may take; past it every worker is killed")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *engineName != "torch" {
		return usagef("--engine %q: calibrate measures a real engine's collectives; the only one is torch (sim's collectives are copies in this process)", *engineName)
	}
	if *runs < 1 {
		return usagef("--runs %d: give 1 or more", *runs)
	}
	if *timeout <= 0 {
		return usagef("--timeout %v: give a positive duration, e.g. 10m", *timeout)
	}
	if err := cluster.CheckName(*name); err != nil {
		return usagef("--name: %v", err)
	}
	p, err := sbp.ParsePlacement(*placement)
	if err != nil {
		return usagef("--placement: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := torch.FindPython(ctx, *python); err != nil {
		return err
	}
	total := p.MeshRank()*len(torch.Collectives)*len(torch.DefaultSizes) + 1
	bar := newProgress(total, stderr)
	cal, err := torch.Calibrate(ctx, torch.CalibrateOptions{Python: *python, Timeout: *timeout, Placement: p, Runs: *runs,
		Progress: func(done, _ int) { bar.Set(done - 1) }})
	bar.Finish()
	if err != nil {
		return err
	}
	c, fits, err := cal.Fit(*name)
	report := stderr
	if *out != "" {
		report = stdout
	}
	writeCalibration(report, cal, fits, *runs)
	if err != nil {
		return err
	}
	if !*perCollective {
		for i, l := range c.Links {
			c.Links[i] = l.Plain()
		}
	}
	file, err := rounded(c).File()
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(file)
		return err
	}
	if err := atomicfile.WriteFile(*out, func(w io.Writer) error { _, err := w.Write(file); return err }); err != nil {
		return err
	}
	fmt.Fprintf(report, "wrote %s (cluster %s)\n", *out, c.Name)
	return nil
}

// rounded returns c with every number to 3 significant digits: a
// calibration on a shared machine is not better than that, and the file
// reads better.
func rounded(c cluster.Cluster) cluster.Cluster {
	r := func(v float64) float64 {
		x, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
		return x
	}
	c = c.Clone()
	for i, l := range c.Links {
		c.Links[i] = cluster.Link{Alpha: r(l.Alpha), Beta: r(l.Beta)}
		for _, col := range cluster.OwnCollectives() {
			if o, ok := l.Own(col); ok {
				c.Links[i], _ = c.Links[i].WithOwn(col, cluster.Own{Alpha: r(o.Alpha), Beta: r(o.Beta)}) // col is one of OwnCollectives
			}
		}
	}
	c.Device = cluster.Device{FLOPs: r(c.Device.FLOPs), MemBytes: r(c.Device.MemBytes), MemCapacity: r(c.Device.MemCapacity)}
	return c
}

// ranAs says how the torch engine runs a collective where gloo has none.
var ranAs = map[sbp.Collective]string{
	sbp.ReduceScatter: "run as all_reduce + slice (gloo in torch 1.13 has no reduce_scatter), as the engine runs it",
}

// writeCalibration prints what was measured and the fits: per mesh dim
// the link over every collective, each collective's own, and every
// point's measured time beside both fits' and their relative residuals;
// then the device.
func writeCalibration(w io.Writer, cal *torch.Calibration, fits []torch.DimFit, runs int) {
	sizes := torch.DefaultSizes
	fmt.Fprintf(w, "calibrated gloo: %d processes of %s on %v, %d sizes from %s to %s, %d runs each (a run's time is its slowest rank's; a point is the median run), in %v\n",
		cal.Placement.Size(), cal.Python, cal.Placement, len(sizes), tensor.FormatBytes(sizes[0]), tensor.FormatBytes(sizes[len(sizes)-1]), runs, cal.Wall.Round(100*time.Millisecond))
	for _, f := range fits {
		n := 0
		if len(f.Points) > 0 {
			n = f.Points[0].Devices
		}
		fmt.Fprintf(w, "\nmesh dim %d (groups of %d): α = %s, β = %s over every collective (RMS residual %.0f%%)\n",
			f.MeshDim, n, cluster.FormatSeconds(f.All.Link.Alpha), cluster.FormatRate(f.All.Link.Beta), 100*f.All.RMS)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  own fit\tα\tβ\tRMS residual\t")
		for _, e := range f.Each {
			note := ranAs[e.Collective]
			if e.Err != nil {
				fmt.Fprintf(tw, "  %s\t-\t-\t-\t%v\n", e.Collective, e.Err)
				continue
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%.0f%%\t%s\n", e.Collective, cluster.FormatSeconds(e.Fitted.Link.Alpha), cluster.FormatRate(e.Fitted.Link.Beta), 100*e.Fitted.RMS, note)
		}
		tw.Flush()
		// Each point beside the fit over every collective and its own
		// collective's fit (whose points are its collective's, in order).
		own := map[sbp.Collective]cluster.Fitted{}
		for _, e := range f.Each {
			if e.Err == nil {
				own[e.Collective] = e.Fitted
			}
		}
		seen := map[sbp.Collective]int{}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  collective\tS\tmeasured\tfit\tresidual\town fit\tresidual\t")
		for i, pt := range f.Points {
			j := seen[pt.Collective]
			seen[pt.Collective]++
			ownFit, ownRes := "-", "-"
			if o, ok := own[pt.Collective]; ok && j < len(o.Predicted) {
				ownFit, ownRes = cluster.FormatSeconds(o.Predicted[j]), fmt.Sprintf("%+.0f%%", percent(o.Residuals[j]))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%+.0f%%\t%s\t%s\t\n", pt.Collective, tensor.FormatBytes(int64(pt.Bytes)), cluster.FormatSeconds(pt.Seconds), cluster.FormatSeconds(f.All.Predicted[i]), percent(f.All.Residuals[i]), ownFit, ownRes)
		}
		tw.Flush()
	}
	d := cal.Device
	fmt.Fprintf(w, "\ndevice (the slowest process's): %s (torch.mm of 512×512 float32, one thread), memory %s (a 64 MiB copy), %s (this machine's memory over %d processes)\n",
		cluster.FormatFLOPRate(d.FLOPs), cluster.FormatRate(d.MemBytes), tensor.FormatBytes(int64(d.MemCapacity)), cal.Placement.Size())
}

// percent is r in whole percent, with no "-0".
func percent(r float64) float64 {
	p := math.Round(100 * r)
	if p == 0 {
		return 0
	}
	return p
}
