package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/engine/script"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor"
)

func sbpBoxing(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sbp boxing", "--shape 25,33 --from 'S(0)' --to 'S(1)' --placement 4 [--dtype float32] [--cluster NAME|FILE] [--json] [--emit oneflow|pytorch] [--in X.npy] [--out Y.npy] [--engine sim|torch] [--python PATH] [--timeout 120s] [--time-runs 5]", stderr)
	shapeFlag := fs.String("shape", "", "the logical shape (with --in, the file's when not given)")
	from := fs.String("from", "", "the SBP now, one per mesh dim")
	to := fs.String("to", "", "the SBP wanted")
	placement := fs.String("placement", "", "devices: 4, 0-3, cpu:0,1,2,3 or a mesh [[0,1],[2,3]]")
	dtName := fs.String("dtype", "float32", "element type: float32, int32 or uint32 (all 4 bytes)")
	asJSON := fs.Bool("json", false, "print JSON")
	clu := defineClusterFlags(fs, false)
	emitTo := emitFlag(fs)
	inPath := fs.String("in", "", "run the boxing on this .npy file's values (without it, with --out or --engine torch: 0, 1, 2, …)")
	out := fs.String("out", "", "run the boxing and write the gathered result to this .npy file")
	backend := computeFlags(fs, stderr)
	eng := defineEngineFlags(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := eng.check(map[string]bool{"json": *asJSON, "emit": *emitTo != ""}); err != nil {
		return err
	}
	var x tensor.Tensor
	if *inPath != "" {
		t, err := load(*inPath, stderr)
		if err != nil {
			return err
		}
		defer t.Release()
		if *shapeFlag == "" {
			*shapeFlag = t.Shape().Spell()
		}
		x = t
	}
	if err := required(map[string]string{"shape": *shapeFlag, "from": *from, "to": *to, "placement": *placement}); err != nil {
		return err
	}
	if err := checkEmit(*emitTo); err != nil {
		return err
	}
	shape, err := parseShapeFlag("shape", *shapeFlag)
	if err != nil {
		return err
	}
	dt, err := tensor.ParseDType(*dtName)
	if err != nil {
		return usagef("--dtype: %v", err)
	}
	p, err := sbp.ParsePlacement(*placement)
	if err != nil {
		return usagef("--placement: %v", err)
	}
	fromNd, err := sbp.ParseNd(*from)
	if err != nil {
		return usagef("--from: %v", err)
	}
	toNd, err := sbp.ParseNd(*to)
	if err != nil {
		return usagef("--to: %v", err)
	}
	opts, err := clu.options()
	if err != nil {
		return err
	}
	if err := fitsMesh(opts, p); err != nil {
		return err
	}
	plan, err := sbp.PlanBoxing(shape, dt, p, fromNd, toNd)
	if err != nil {
		return err
	}
	timed := timedBoxing{Boxing: plan, Cluster: opts.Cluster}
	if opts.Cluster != nil {
		t, err := cluster.TimeBoxing(*opts.Cluster, plan)
		if err != nil {
			return err
		}
		timed.BoxingTime = &t
	}
	runIt := *inPath != "" || *out != "" || eng.torch()
	switch {
	case *emitTo != "":
		plan, err := planSource(engine.BoxingProgram(p, shape, fromNd, toNd))
		if err != nil {
			return err
		}
		opt := script.Options{Command: commandLine("sbp boxing", args), DType: dt, Result: "y"}
		if *inPath != "" {
			opt.Files = map[string]string{"x": *inPath}
		}
		return script.Write(stdout, plan, script.Engine(*emitTo), opt)
	case runIt:
		return runBoxing(stdout, stderr, eng, backend, timed, x, *inPath, *out, *asJSON)
	case *asJSON:
		return writeJSON(stdout, timed)
	}
	writeBoxing(stdout, timed)
	return nil
}

// timedBoxing is a boxing and, on a cluster, its time there: what
// `sbp boxing` prints, and its --json (the boxing's fields, then
// cluster and boxing_time, left out without a cluster).
type timedBoxing struct {
	sbp.Boxing
	Cluster    *cluster.Cluster    `json:"cluster,omitempty"`
	BoxingTime *cluster.BoxingTime `json:"boxing_time,omitempty"`
}

// runBoxing runs the boxing b on data, as the one-statement program
// engine.BoxingProgram writes, on the engine the flags name: x's values
// (0, 1, 2, … when x is not given). The gathered result must agree with
// x (tensor.Agree; a boxing moves values, and only a partial sum's order
// can change their last bits), and for torch with the simulated run's.
// It is written to out (whole) or printed.
func runBoxing(stdout, stderr io.Writer, eng *engineFlags, backend func(...shaders.Tuning) (tensor.Backend, error), timed timedBoxing, x tensor.Tensor, inPath, out string, asJSON bool) error {
	b := timed.Boxing
	be, err := backend()
	if err != nil {
		return err
	}
	if b.DType != tensor.Float32.String() {
		return usagef("--dtype %v: a boxing runs on float32 values (the engines run float32 programs)", b.DType)
	}
	if !x.Valid() {
		if x, err = tensor.Arange(tensor.Float32, b.Shape); err != nil {
			return err
		}
		defer x.Release()
	} else {
		if !x.Shape().Equal(b.Shape) {
			return fmt.Errorf("%s holds %v but --shape is %v", inPath, x.Shape(), b.Shape)
		}
		if x.DType() != tensor.Float32 {
			f, err := tensor.ExactFloat32(x)
			if err != nil {
				return fmt.Errorf("%s: %v", inPath, err)
			}
			defer f.Release()
			fmt.Fprintf(stderr, "stridelab: notice: %s: %v values converted to float32 (the engines run float32 programs)\n", inPath, x.DType())
			x = f
		}
	}
	plan, err := planSource(engine.BoxingProgram(b.Placement, b.Shape, b.From, b.To))
	if err != nil {
		return err
	}
	vals, res, err := eng.run(plan, be, planner.Values{"x": x})
	if err != nil {
		return err
	}
	defer vals.Release()
	y := vals["y"]
	ag, err := tensor.Agree(y, x, tensor.Tolerance)
	if err != nil {
		return fmt.Errorf("the boxed result: %w (a bug; please report it)", err)
	}
	if !ag.Agrees {
		return fmt.Errorf("the boxed result %s (a bug; please report it)", ag.Words("the input"))
	}
	if asJSON {
		if out != "" {
			if err := saveNpy(out, y); err != nil {
				return err
			}
		}
		return writeJSON(stdout, timed)
	}
	writeBoxing(stdout, timed)
	where := fmt.Sprintf("\nran on %d simulated devices (%s backend)", b.Placement.Size(), be.Name())
	if res != nil {
		if err := writeReport(stdout, res); err != nil {
			return err
		}
		where = "the torch engine's result agrees with the simulated run's"
	}
	fmt.Fprintf(stdout, "%s: the gathered result, laid out as %v, %s\n", where, b.To, ag.Words("the input"))
	return emit(y, out, stdout)
}

// writeBoxing prints the collective, the steps, and a row per device;
// on a cluster each step's time after it (the link of its mesh dim, α
// and β, the bytes S its ring moves a share of) and the boxing's time.
func writeBoxing(w io.Writer, timed timedBoxing) {
	b := timed.Boxing
	fmt.Fprintf(w, "boxing %s %v from %v to %v on %v: %s\n", b.DType, b.Shape, b.From, b.To, b.Placement, b.Collective)
	for i, st := range b.Steps {
		fmt.Fprintf(w, "  step %d: %s along mesh dim %d, %v -> %v\n", i+1, st.Collective, st.MeshDim, st.From, st.To)
		if t := timed.BoxingTime; t != nil {
			fmt.Fprintf(w, "          %s\n", stepTime(t.Steps[i]))
		}
	}
	if t := timed.BoxingTime; t != nil {
		fmt.Fprintf(w, "time on %s: %s (the steps one after another)\n", timed.Cluster.Name, cluster.FormatSeconds(t.TimeS))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tcoord\tbefore\tafter\tsend bytes\trecv bytes\t")
	var recv int64
	for _, r := range b.Ranks {
		fmt.Fprintf(tw, "%d\t%v\t%v\t%v\t%d\t%d\t\n", r.Rank, r.Coord, r.Before, r.After, r.SendBytes, r.RecvBytes)
		recv += r.RecvBytes
	}
	fmt.Fprintf(tw, "total\t\t\t\t%d\t%d\t\n", b.SendBytes, recv)
	tw.Flush()
}
