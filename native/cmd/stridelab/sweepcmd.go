package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stridelab/stridelab/importer"
	"github.com/stridelab/stridelab/internal/atomicfile"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/sweep"
	"github.com/stridelab/stridelab/sbp/sweep/chart"
)

const sweepSynopsis = "(--file P | --src TEXT | --model FILE.py:CLASS --example NAME=DTYPE:SHAPE ... [import's flags] [--batch global|per-device]) --cluster FAMILY|NAME|FILE [--devices 1,2,4,8] [--mesh 1d|2d] [--strategy exact|greedy] [--json] [--plot OUT.svg|OUT.png] [--timeout 10m]"

// runSweep plans one program on each device count (package sweep) and
// prints a row each: stridelab sweep.
func runSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep", sweepSynopsis, stderr)
	file := fs.String("file", "", "the program's file")
	src := fs.String("src", "", "the program itself, statements separated by ';' or newlines")
	clu := fs.String("cluster", "", "a family of presets, sized for each count ("+strings.Join(cluster.FamilyUsages(), ", ")+": give h100-nodes or tpu-v5e), or one preset or cluster file for every count")
	devices := fs.String("devices", "1,2,4,8", "the device counts, comma-separated")
	mesh := fs.String("mesh", "1d", "1d: a placement of n devices; 2d: a mesh of nodes by the devices of a node (the program's SBPs written for a 2-D mesh)")
	strategy := fs.String("strategy", string(planner.Exact), "exact (the least time on the cluster) or greedy (OneFlow's eager rule)")
	asJSON := fs.Bool("json", false, `print {"rows": [{"devices", "placement", "time_s", "comm_time_s", "compute_time_s", "peak_held_bytes", "layouts", …}, …]}`)
	plotTo := fs.String("plot", "", "draw step time and memory against devices to this .svg or .png")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	imp := addImportFlags(fs)
	batch := fs.String("batch", "global", "with --model: global (the examples' shapes at every count) or per-device (each example's dim 0 times the device count: the model traced again for each count)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *batch != "global" && *batch != "per-device" {
		return usagef("--batch %q: choose global or per-device", *batch)
	}
	var source string
	var traced func(context.Context, sbp.Placement) (string, error)
	if *imp.model != "" {
		if *file != "" || *src != "" {
			return usagef("give one of --file, --src and --model")
		}
		req, err := imp.request("", commandLine("sweep", args))
		if err != nil {
			return err
		}
		if traced, err = sweepTrace(req, *batch == "per-device"); err != nil {
			return err
		}
	} else {
		if *batch == "per-device" {
			return usagef("--batch per-device traces the model again at each count's batch: give --model (a program's shapes are fixed)")
		}
		var err error
		if source, _, err = programSource(*file, *src); err != nil {
			return err
		}
	}
	strat, err := planner.ParseStrategy(*strategy)
	if err != nil {
		return usagef("--strategy %q: choose greedy or exact", *strategy)
	}
	counts, err := sweep.ParseDevices(*devices)
	if err != nil {
		return usagef("--devices %v", err)
	}
	o := sweep.Options{Devices: counts, Strategy: strat, Program: traced}
	if o.Mesh, err = sweep.ParseMesh(*mesh); err != nil {
		return usagef("--mesh %v", err)
	}
	format := ""
	if *plotTo != "" {
		if format, err = chart.Format(*plotTo); err != nil {
			return usagef("%v", err)
		}
	}
	if *clu == "" {
		return usagef("--cluster is required: a family (h100-nodes, tpu-v5e), a preset or a cluster file")
	}
	if o.Cluster, err = sweep.ClusterOf(*clu, func(name string) (cluster.Cluster, error) { return cluster.Resolve(name, os.ReadFile) }); err != nil {
		return err
	}
	start := time.Now()
	o.Progress = func(i, n int, r sweep.Row) {
		what := cluster.FormatSeconds(r.TimeS)
		if r.Error != "" {
			what = "not planned"
		}
		fmt.Fprintf(stderr, "sweep: %d of %d: %d devices, %s (%.1f s so far)\n", i+1, n, r.Devices, what, time.Since(start).Seconds())
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	res, err := sweep.Run(ctx, source, o)
	if err != nil {
		return err
	}
	if *plotTo != "" {
		title := "sweep on " + *clu
		if err := atomicfile.WriteFile(*plotTo, func(w io.Writer) error { return chart.Write(w, format, title, res) }); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return writeSweep(stdout, res)
}

// sweepTrace returns the sweep's program for a placement, req's module
// traced (importer.Import) into a folder removed after: once, at the
// first placement asked for, where the batch is global; for each
// placement, each example's dim 0 times its devices, where it is per
// device (perDevice), which needs every example given by its shape.
func sweepTrace(req importer.Request, perDevice bool) (func(context.Context, sbp.Placement) (string, error), error) {
	if perDevice {
		for _, e := range req.Examples {
			if e.File != "" || len(e.Shape) == 0 {
				return nil, usagef("--batch per-device multiplies each example's dim 0 by the device count: give --example %s=DTYPE:SHAPE, not a file or a scalar", e.Name)
			}
		}
	}
	once := ""
	return func(ctx context.Context, p sbp.Placement) (string, error) {
		if once != "" && !perDevice {
			return once, nil
		}
		r := req
		r.Placement = p
		if perDevice {
			r.Examples = slices.Clone(req.Examples)
			for i := range r.Examples {
				r.Examples[i].Shape = slices.Clone(r.Examples[i].Shape)
				r.Examples[i].Shape[0] *= p.Size()
			}
		}
		dir, err := os.MkdirTemp("", "stridelab-sweep-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		r.Out = filepath.Join(dir, "model")
		res, err := importer.Import(ctx, r)
		if err != nil {
			return "", errors.New(strings.TrimPrefix(err.Error(), "import: "))
		}
		once = res.Text
		return res.Text, nil
	}, nil
}

// writeSweep prints a sweep as a table, a row per device count
// (sweep.Result.Table, which the playground shows too).
func writeSweep(w io.Writer, res *sweep.Result) error {
	t := res.Table()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range t.Notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}
