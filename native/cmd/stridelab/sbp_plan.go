package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/stridelab/stridelab/engine/script"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

func sbpPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sbp plan", "--op OP --shape 4,3,1,2 [--b-shape ...] [op args] --sbp S --placement P [--strict] [--cluster NAME|FILE] [--cost bytes|time] [--json] [--emit oneflow|pytorch]", stderr)
	ops := defineOpFlags(fs)
	shapeA := fs.String("shape", "", "the (first) input's logical shape")
	shapeB := fs.String("b-shape", "", "the second input's logical shape (binary ops, matmul)")
	lay := defineLayoutFlags(fs)
	dtName := fs.String("dtype", "float32", "element type, for --emit: float32, int32 or uint32")
	asJSON := fs.Bool("json", false, "print JSON")
	strict := fs.Bool("strict", false, "refuse inputs that fit no signature (listing the valid ones) instead of boxing them as OneFlow would")
	clu := defineClusterFlags(fs, true)
	engine := emitFlag(fs)
	op, err := parseOp(fs, args, ops, engine)
	if err != nil {
		return err
	}
	if *engine == "torch" {
		return usagef("--emit torch writes a program that runs: use it on sbp run, sbp boxing or sbp program")
	}
	dt, err := tensor.ParseDType(*dtName)
	if err != nil {
		return usagef("--dtype: %v", err)
	}
	var shapes []tensor.Shape
	for i, s := range []string{*shapeA, *shapeB}[:op.Arity()] {
		name := []string{"shape", "b-shape"}[i]
		if s == "" {
			return usagef("--op %s needs --%s", op.Name(), name)
		}
		sh, err := parseShapeFlag(name, s)
		if err != nil {
			return err
		}
		shapes = append(shapes, sh)
	}
	p, nds, err := lay.parse(op.Arity())
	if err != nil {
		return err
	}
	opts, err := clu.options()
	if err != nil {
		return err
	}
	if err := fitsMesh(opts, p); err != nil {
		return err
	}
	plan, err := sbp.PlanOp(op, shapes, p, nds)
	if err != nil {
		if *strict || !errors.Is(err, sbp.ErrSignature) {
			return err
		}
		return sbpPlanBoxed(stdout, err, op, shapes, p, nds, boxedOptions{json: *asJSON, engine: *engine, dtype: dt, command: commandLine("sbp plan", args), plan: opts})
	}
	var took *cluster.OpTime
	if opts.Cluster != nil {
		t, err := cluster.TimeOp(*opts.Cluster, op, plan, dt.Precision())
		if err != nil {
			return err
		}
		took = &t
	}
	switch {
	case *engine != "":
		return writeOpScript(stdout, script.Engine(*engine), op, p, nds, shapes, script.Options{Command: commandLine("sbp plan", args), DType: dt})
	case *asJSON && took != nil:
		return writeJSON(stdout, timedOpPlan{plan, opts.Cluster, took})
	case *asJSON:
		return writeJSON(stdout, plan)
	}
	writePlan(stdout, plan, op)
	if took != nil {
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, opTimeLine(*opts.Cluster, *took))
	}
	return nil
}

// timedOpPlan is an op's plan timed on a cluster, as --json writes it:
// the plan's fields, the cluster and the op's time (every device's
// roofline, the slowest first).
type timedOpPlan struct {
	sbp.OpPlan
	Cluster *cluster.Cluster `json:"cluster"`
	OpTime  *cluster.OpTime  `json:"op_time"`
}

// opTimeLine spells an op's time on a cluster: the slowest device's
// roofline, both of its sides, and which one bounds it.
//
//	time on h100-node: 256 µs on rank 0, the slowest device: 17.2 GFLOP take 256 µs at 67 TFLOP/s, 80.0 MiB read and written 25.0 µs at 3.35 TB/s: compute-bound
func opTimeLine(c cluster.Cluster, t cluster.OpTime) string {
	return fmt.Sprintf("time on %s: %s on rank %d, the slowest device: %s take %s at %s, %s read and written %s at %s: %s-bound",
		c.Name, cluster.FormatSeconds(t.TimeS), t.Rank, cluster.FormatFLOPs(t.FLOPs), cluster.FormatSeconds(t.ComputeS), cluster.FormatFLOPRate(c.Device.FLOPs), formatBytes(t.Bytes), cluster.FormatSeconds(t.MemoryS), cluster.FormatRate(c.Device.MemBytes), t.Bound)
}

type boxedOptions struct {
	json    bool
	engine  string
	dtype   tensor.DType
	command string
	plan    planner.Options // the cluster and cost (--cluster, --cost)
}

// sbpPlanBoxed shows an op whose inputs fit none of its signatures (why
// says so) as a one-op program shows it: the boxing the planner inserts
// (the valid signature whose boxing sends the fewest bytes, OneFlow's
// greedy rule; under cost time on a cluster, exact's: the one whose
// boxing and op take the least time), then the op's plan on the boxed
// inputs. When no boxing can be planned, why is the error.
func sbpPlanBoxed(w io.Writer, why error, op sbp.Op, shapes []tensor.Shape, p sbp.Placement, nds []sbp.NdSbp, o boxedOptions) error {
	names := make([]string, op.Arity())
	for i := range names {
		names[i] = program.OneOpInputs(op)[i]
	}
	prog, err := program.OneOp(p, op, names, shapes, nds)
	if err != nil {
		return why
	}
	strategy, rule := planner.Greedy, "whose boxing sends the fewest bytes, as OneFlow does (--strict refuses instead)"
	if o.plan.Cluster != nil && o.plan.Cost != planner.Bytes {
		strategy, rule = planner.Exact, fmt.Sprintf("whose boxing and op take the least time on %s (--cost bytes: the fewest bytes, as OneFlow does; --strict refuses instead)", o.plan.Cluster.Name)
	}
	plan, err := planner.NewPlanWith(prog, strategy, o.plan)
	if err != nil {
		return why
	}
	step := plan.Steps[len(plan.Steps)-1]
	opPlan, err := sbp.PlanOp(op, shapes, p, step.InSbp)
	if err != nil {
		return err
	}
	var boxing []planner.Step
	for _, s := range plan.Steps {
		if s.Kind == planner.StepBoxing {
			boxing = append(boxing, s)
		}
	}
	reason := strings.TrimPrefix(why.Error(), "sbp: ")
	switch {
	case o.engine != "":
		return script.Write(w, plan, script.Engine(o.engine), script.Options{Command: o.command, DType: o.dtype})
	case o.json:
		return writeJSON(w, struct {
			sbp.OpPlan
			Boxed          string           `json:"boxed"`
			Boxing         []planner.Step   `json:"boxing"`
			TotalSendBytes int64            `json:"total_send_bytes"`
			Cluster        *cluster.Cluster `json:"cluster,omitempty"`
			*planner.Timing
		}{opPlan, reason, boxing, plan.TotalSendBytes, plan.Cluster, plan.Timing})
	}
	fmt.Fprintf(w, "%s\nso the inputs are boxed to the valid signature %s:\n\n", reason, rule)
	writeProgramPlan(w, plan)
	fmt.Fprintln(w)
	writePlan(w, opPlan, op)
	return nil
}

// writePlan prints the plan's signature and a row per device.
func writePlan(w io.Writer, plan sbp.OpPlan, op sbp.Op) {
	fmt.Fprintf(w, "%s on %v\n", plan.Op, plan.Placement)
	in := make([]string, len(plan.InSbp))
	for i, nd := range plan.InSbp {
		in[i] = nd.String()
	}
	fmt.Fprintf(w, "in %s -> out %v   (signature per mesh dim: %s)\n\n", strings.Join(in, " x "), plan.OutSbp, strings.Join(plan.Signatures, "; "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "rank\tcoord\tin shape\tin stride\tin range"
	if op.Arity() == 2 {
		header += "\tb shape\tb stride"
	}
	argName := map[string]string{"expand": "\texpand size", "repeat": "\trepeat times", "reduce": "\treduce to"}[op.Name()]
	fmt.Fprintln(tw, header+argName+"\tout shape\tout stride\tout range")
	for _, r := range plan.Ranks {
		row := fmt.Sprintf("%d\t%v\t%v\t%v\t%s", r.Rank, r.Coord, r.InShape, r.InStride, formatRange(r.InRange))
		if op.Arity() == 2 {
			row += fmt.Sprintf("\t%v\t%v", r.BShape, r.BStride)
		}
		switch op.Name() {
		case "expand":
			row += fmt.Sprintf("\t%v", r.ExpandSize)
		case "repeat":
			row += fmt.Sprintf("\t%v", r.RepeatTimes)
		case "reduce":
			row += fmt.Sprintf("\t%v", r.ReduceTo)
		}
		out := formatRange(r.OutRange)
		if r.Partial {
			out += " (partial)"
		}
		fmt.Fprintln(tw, row+fmt.Sprintf("\t%v\t%v\t%s", r.OutShape, r.OutStride, out))
	}
	tw.Flush()
}

// formatRange spells logical ranges as NumPy slices: [0:4, 2:3].
func formatRange(r [][2]int) string {
	parts := make([]string, len(r))
	for i, lr := range r {
		parts[i] = fmt.Sprintf("%d:%d", lr[0], lr[1])
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
