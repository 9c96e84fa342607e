package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

const sbpUsage = `usage: stridelab sbp plan    --op OP --shape 4,3,1,2 [op args] --sbp 'S(3)' --placement 2 [--strict] [--json] [--emit oneflow|pytorch]
       stridelab sbp boxing  --shape 25,33 --from 'S(0)' --to 'S(1)' --placement 4 [--json] [--emit oneflow|pytorch] [--in X.npy] [--out Y.npy] [--engine sim|torch]
       stridelab sbp run     --op OP --in X.npy [--b B.npy] [op args] --sbp 'S(3)' [--b-sbp B] --placement 2 [--out Y.npy] [--backend cpu] [--engine sim|torch]
       stridelab sbp program (--file P | --src 'placement 4; x = input 8,4 S(0); …') [--strategy greedy|exact] [--json] [--out DIR] [--emit oneflow|pytorch] [--backend cpu] [--engine sim|torch]

engines: sim (the simulated devices, default) or torch (one torch.distributed process per device,
     gloo on this machine's CPUs; --python PATH, --timeout 120s): its values are checked against
     sim's run of the same plan and it prints each rank's pid, step times and bytes beside the plan's

ops: expand (--size), repeat (--times), add, sub, mul, div, max, min, eq, matmul (two inputs),
     reduce (--reduce sum|max|min --to 1,3)
SBP: S(axis), B, P (sum), P(max), P(min); on a mesh one per mesh dim: '(S(0), B)'
placement: 4 | 0-3 | cpu:0,1,2,3 | cuda:[[0,1],[2,3]]
program: one statement a line or separated by ';' (docs/reference.md has the language):
     placement 4; x = input 64,32 S(0); w = input 32,16 B from w.npy; y = matmul x w;
     s = sum y 1,1; t = box y B; grad s
`

// sbpCommands are the words after sbp.
var sbpCommands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"plan": sbpPlan, "boxing": sbpBoxing, "run": sbpRun, "program": sbpProgram,
}

func runSbp(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("say which: sbp plan, sbp boxing, sbp run or sbp program (see stridelab sbp --help)")
	}
	if c, ok := sbpCommands[args[0]]; ok {
		return c(args[1:], stdout, stderr)
	}
	switch args[0] {
	case "-h", "--help", "help":
		io.WriteString(stderr, sbpUsage)
		return nil
	}
	return usagef("unknown sbp command %q; the commands are plan, boxing, run and program", args[0])
}

// opFlags are the flags that name an op and its arguments.
type opFlags struct {
	op, size, times, to, reduce *string
}

func defineOpFlags(fs *flagSet) *opFlags {
	return &opFlags{
		op:     fs.String("op", "", "expand, repeat, add, sub, mul, div, max, min, eq, matmul or reduce"),
		size:   fs.String("size", "", "expand: the expand size (-1 keeps a dim)"),
		times:  fs.String("times", "", "repeat: the repeat count per dim"),
		to:     fs.String("to", "", "reduce: the target shape (each dim the input's or 1)"),
		reduce: fs.String("reduce", "sum", "reduce: sum, max or min"),
	}
}

// build returns the op the flags name (sbp.ParseOp); a bad op or a
// missing argument is a usage error.
func (f *opFlags) build() (sbp.Op, error) {
	op, err := sbp.ParseOp(*f.op, sbp.OpArgs{Size: *f.size, Times: *f.times, To: *f.to, Reduce: *f.reduce})
	if err != nil {
		return nil, usagef("%v", err)
	}
	return op, nil
}

// layoutFlags are the placement and the inputs' SBPs.
type layoutFlags struct {
	placement, sbp, bSbp *string
}

func defineLayoutFlags(fs *flagSet) *layoutFlags {
	return &layoutFlags{
		placement: fs.String("placement", "", "devices: 4, 0-3, cpu:0,1,2,3 or a mesh cuda:[[0,1],[2,3]]"),
		sbp:       fs.String("sbp", "", "the (first) input's SBP, one per mesh dim: S(0), B, P, P(max), (S(0), B)"),
		bSbp:      fs.String("b-sbp", "B", "the second input's SBP"),
	}
}

func (f *layoutFlags) parse(arity int) (sbp.Placement, []sbp.NdSbp, error) {
	if *f.placement == "" {
		return sbp.Placement{}, nil, usagef("--placement is required (see --help)")
	}
	if *f.sbp == "" {
		return sbp.Placement{}, nil, usagef("--sbp is required (see --help)")
	}
	p, err := sbp.ParsePlacement(*f.placement)
	if err != nil {
		return sbp.Placement{}, nil, usagef("--placement: %v", err)
	}
	var nds []sbp.NdSbp
	for i, s := range []string{*f.sbp, *f.bSbp}[:arity] {
		nd, err := sbp.ParseNd(s)
		if err != nil {
			return sbp.Placement{}, nil, usagef("--%s: %v", []string{"sbp", "b-sbp"}[i], err)
		}
		nds = append(nds, nd)
	}
	return p, nds, nil
}

func emitFlag(fs *flagSet) *string {
	return fs.String("emit", "", "print the equivalent program instead: oneflow, pytorch (DTensor) or torch (torch.distributed collectives, run with torchrun; not on sbp plan)")
}

func checkEmit(engine string) error {
	if engine != "" && engine != "oneflow" && engine != "pytorch" && engine != "torch" {
		return usagef("--emit %q: choose oneflow or pytorch (DTensor), or torch (torch.distributed collectives, for torchrun)", engine)
	}
	return nil
}

// parseOp parses the command line of an op command and returns its op.
func parseOp(fs *flagSet, args []string, ops *opFlags, engine *string) (sbp.Op, error) {
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	if err := checkEmit(*engine); err != nil {
		return nil, err
	}
	return ops.build()
}

func sbpPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sbp plan", "--op OP --shape 4,3,1,2 [--b-shape ...] [op args] --sbp S --placement P [--strict] [--json] [--emit oneflow|pytorch]", stderr)
	ops := defineOpFlags(fs)
	shapeA := fs.String("shape", "", "the (first) input's logical shape")
	shapeB := fs.String("b-shape", "", "the second input's logical shape (binary ops, matmul)")
	lay := defineLayoutFlags(fs)
	dtName := fs.String("dtype", "float32", "element type, for --emit: float32, int32 or uint32")
	asJSON := fs.Bool("json", false, "print JSON")
	strict := fs.Bool("strict", false, "refuse inputs that fit no signature (listing the valid ones) instead of boxing them as OneFlow would")
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
	plan, err := sbp.PlanOp(op, shapes, p, nds)
	if err != nil {
		if *strict || !errors.Is(err, sbp.ErrSignature) {
			return err
		}
		return sbpPlanBoxed(stdout, err, op, shapes, p, nds, boxedOptions{json: *asJSON, engine: *engine, dtype: dt, command: commandLine("sbp plan", args)})
	}
	switch {
	case *engine != "":
		pr := sbp.Program{Command: commandLine("sbp plan", args), Placement: p, Op: op, OutSbp: plan.OutSbp}
		for i, sh := range shapes {
			pr.Inputs = append(pr.Inputs, sbp.Input{Name: inputName(op, i), Shape: sh, DType: dt, Sbp: nds[i]})
		}
		return sbp.Emit(stdout, *engine, pr)
	case *asJSON:
		return writeJSON(stdout, plan)
	}
	writePlan(stdout, plan, op)
	return nil
}

type boxedOptions struct {
	json    bool
	engine  string
	dtype   tensor.DType
	command string
}

// sbpPlanBoxed shows an op whose inputs fit none of its signatures (why
// says so) as a one-op program shows it: the boxing the planner inserts
// (the valid signature whose boxing sends the fewest bytes), then the
// op's plan on the boxed inputs. When no boxing can be planned, why is
// the error.
func sbpPlanBoxed(w io.Writer, why error, op sbp.Op, shapes []tensor.Shape, p sbp.Placement, nds []sbp.NdSbp, o boxedOptions) error {
	names := make([]string, op.Arity())
	for i := range names {
		names[i] = inputName(op, i)
	}
	prog, err := program.OneOp(p, op, names, shapes, nds)
	if err != nil {
		return why
	}
	plan, err := program.NewPlan(prog, program.Greedy)
	if err != nil {
		return why
	}
	step := plan.Steps[len(plan.Steps)-1]
	in := make([]sbp.NdSbp, len(step.InSbp))
	for i, s := range step.InSbp {
		if in[i], err = sbp.ParseNd(s); err != nil {
			return err
		}
	}
	opPlan, err := sbp.PlanOp(op, shapes, p, in)
	if err != nil {
		return err
	}
	var boxing []program.Step
	for _, s := range plan.Steps {
		if s.Kind == program.StepBoxing {
			boxing = append(boxing, s)
		}
	}
	reason := strings.TrimPrefix(why.Error(), "sbp: ")
	switch {
	case o.engine != "":
		return plan.Emit(w, o.engine, program.EmitOptions{Command: o.command, DType: o.dtype})
	case o.json:
		return writeJSON(w, struct {
			sbp.OpPlan
			Boxed          string         `json:"boxed"`
			Boxing         []program.Step `json:"boxing"`
			TotalSendBytes int64          `json:"total_send_bytes"`
		}{opPlan, reason, boxing, plan.TotalSendBytes})
	}
	fmt.Fprintf(w, "%s\nso the inputs are boxed to the valid signature whose boxing sends the fewest bytes, as OneFlow does (--strict refuses instead):\n\n", reason)
	writeProgramPlan(w, plan)
	fmt.Fprintln(w)
	writePlan(w, opPlan, op)
	return nil
}

func inputName(op sbp.Op, i int) string {
	if op.Arity() == 1 {
		return "x"
	}
	return []string{"a", "b"}[i]
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

func sbpBoxing(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sbp boxing", "--shape 25,33 --from 'S(0)' --to 'S(1)' --placement 4 [--dtype float32] [--json] [--emit oneflow|pytorch] [--in X.npy] [--out Y.npy] [--engine sim|torch] [--python PATH] [--timeout 120s]", stderr)
	shapeFlag := fs.String("shape", "", "the logical shape (with --in, the file's when not given)")
	from := fs.String("from", "", "the SBP now, one per mesh dim")
	to := fs.String("to", "", "the SBP wanted")
	placement := fs.String("placement", "", "devices: 4, 0-3, cpu:0,1,2,3 or a mesh [[0,1],[2,3]]")
	dtName := fs.String("dtype", "float32", "element type: float32, int32 or uint32 (all 4 bytes)")
	asJSON := fs.Bool("json", false, "print JSON")
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
			*shapeFlag = spellShape(t.Shape())
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
	plan, err := sbp.PlanBoxing(shape, dt, p, fromNd, toNd)
	if err != nil {
		return err
	}
	runIt := *inPath != "" || *out != "" || eng.torch()
	switch {
	case *emitTo == "torch":
		plan, err := planSource(engine.BoxingProgram(p, shape, fromNd, toNd))
		if err != nil {
			return err
		}
		opt := torch.EmitOptions{Command: commandLine("sbp boxing", args)}
		if *inPath != "" {
			opt.Files = map[string]string{"x": *inPath}
		}
		return torch.Emit(stdout, plan, opt)
	case *emitTo != "":
		return sbp.Emit(stdout, *emitTo, sbp.Program{
			Command: commandLine("sbp boxing", args), Placement: p, To: toNd,
			Inputs: []sbp.Input{{Name: "x", Shape: shape, DType: dt, Sbp: fromNd}},
		})
	case runIt:
		return runBoxing(stdout, stderr, eng, backend, plan, x, *inPath, *out, *asJSON)
	case *asJSON:
		return writeJSON(stdout, plan)
	}
	writeBoxing(stdout, plan)
	return nil
}

// runBoxing runs the boxing b on data, as the one-statement program
// engine.BoxingProgram writes, on the engine the flags name: x's values
// (0, 1, 2, … when x is not given). The gathered result must equal x
// (a boxing moves values, it does not change them), and for torch the
// simulated run's. It is written to out (whole) or printed.
func runBoxing(stdout, stderr io.Writer, eng *engineFlags, backend func() (tensor.Backend, error), b sbp.Boxing, x tensor.Tensor, inPath, out string, asJSON bool) error {
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
			f, err := toFloat32(x)
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
	vals, res, err := eng.run(plan, be, program.Values{"x": x})
	if err != nil {
		return err
	}
	defer vals.Release()
	y := vals["y"]
	if a := engine.CompareTensor(y, x); !a.Agree {
		return fmt.Errorf("the boxed result differs from the input: %s (a bug; please report it)", a.Problem)
	}
	if asJSON {
		if out != "" {
			if err := saveNpy(out, y); err != nil {
				return err
			}
		}
		return writeJSON(stdout, b)
	}
	writeBoxing(stdout, b)
	where := fmt.Sprintf("\nran on %d simulated devices (%s backend)", b.Placement.Size(), be.Name())
	if res != nil {
		if err := writeReport(stdout, res); err != nil {
			return err
		}
		where = "the torch engine's result agrees with the simulated run's"
	}
	fmt.Fprintf(stdout, "%s: the gathered result, laid out as %v, equals the input\n", where, b.To)
	return emit(y, out, stdout)
}

// spellShape writes a shape as --shape takes it: 4,3,1 (and an empty
// string for a scalar).
func spellShape(s tensor.Shape) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ",")
}

// writeBoxing prints the collective, the steps, and a row per device.
func writeBoxing(w io.Writer, b sbp.Boxing) {
	fmt.Fprintf(w, "boxing %s %v from %v to %v on %v: %s\n", b.DType, b.Shape, b.From, b.To, b.Placement, b.Collective)
	for i, st := range b.Steps {
		fmt.Fprintf(w, "  step %d: %s along mesh dim %d, %v -> %v\n", i+1, st.Collective, st.MeshDim, st.From, st.To)
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

func sbpRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sbp run", "--op OP --in X.npy [--b B.npy] [op args] --sbp S [--b-sbp S] --placement P [--out Y.npy] [--backend cpu] [--json] [--emit oneflow|pytorch] [--engine sim|torch] [--python PATH] [--timeout 120s]", stderr)
	ops := defineOpFlags(fs)
	inPath := fs.String("in", "", "the (first) input .npy file")
	bPath := fs.String("b", "", "the second input .npy file (binary ops, matmul)")
	lay := defineLayoutFlags(fs)
	out := fs.String("out", "", "output .npy file (default: print)")
	asJSON := fs.Bool("json", false, "print the run (signature, boxing, per-device plan) as JSON")
	engine := emitFlag(fs)
	backend := computeFlags(fs, stderr)
	eng := defineEngineFlags(fs)
	op, err := parseOp(fs, args, ops, engine)
	if err != nil {
		return err
	}
	if err := eng.check(map[string]bool{"json": *asJSON, "emit": *engine != ""}); err != nil {
		return err
	}
	paths := []string{*inPath, *bPath}[:op.Arity()]
	for i, p := range paths {
		if p == "" {
			return usagef("--op %s needs --%s", op.Name(), []string{"in", "b"}[i])
		}
	}
	p, nds, err := lay.parse(op.Arity())
	if err != nil {
		return err
	}
	be, err := backend()
	if err != nil {
		return err
	}
	var full []tensor.Tensor
	var globals []*sbp.Global
	for i, path := range paths {
		t, err := load(path, stderr)
		if err != nil {
			return err
		}
		g, err := sbp.Scatter(be, t, p, nds[i])
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		full, globals = append(full, t), append(globals, g)
	}
	if eng.torch() {
		return runOpOnEngine(stdout, stderr, eng, be, op, p, nds, paths, full, *out)
	}
	if *engine == "torch" {
		return emitTorchOp(stdout, commandLine("sbp run", args), op, p, nds, paths, full)
	}
	y, applied, err := sbp.Apply(op, globals...)
	if err != nil {
		return err
	}
	result, err := y.Full()
	if err != nil {
		return err
	}
	check, err := compareSingle(be, op, full, result)
	if err != nil {
		return err
	}
	switch {
	case *engine != "":
		pr := sbp.Program{Command: commandLine("sbp run", args), Placement: p, Op: op, OutSbp: applied.Plan.OutSbp, Out: *out}
		for i, path := range paths {
			pr.Inputs = append(pr.Inputs, sbp.Input{Name: inputName(op, i), Path: path, Shape: full[i].Shape(), DType: full[i].DType(), Sbp: nds[i]})
		}
		return sbp.Emit(stdout, *engine, pr)
	case *asJSON:
		if *out != "" {
			if err := saveNpy(*out, result); err != nil {
				return err
			}
		}
		return writeJSON(stdout, struct {
			sbp.Applied
			Backend string `json:"backend"`
			Check   string `json:"check"`
			Out     string `json:"out,omitempty"`
		}{applied, be.Name(), check, *out})
	}
	for i, b := range applied.Boxing {
		if len(b.Steps) > 0 {
			fmt.Fprintf(stdout, "input %d boxed %v -> %v by %s, %d bytes sent\n", i, b.From, b.To, b.Collective, b.SendBytes)
		}
	}
	writePlan(stdout, applied.Plan, op)
	fmt.Fprintf(stdout, "\nran on %d simulated devices (%s backend); the gathered result %s\n", p.Size(), be.Name(), check)
	return emit(result, *out, stdout)
}

// compareSingle runs op on one device of be and compares: exact for
// integers, and for floats the largest difference, which only the order
// of a partial sum's additions can make.
func compareSingle(be tensor.Backend, op sbp.Op, full []tensor.Tensor, got tensor.Tensor) (string, error) {
	shapes := make([]tensor.Shape, len(full))
	for i, t := range full {
		shapes[i] = t.Shape()
	}
	outShape, err := op.OutShape(shapes)
	if err != nil {
		return "", err
	}
	want, err := op.Local(be, full, outShape)
	if err != nil {
		return "", err
	}
	worst, rel, ok := difference(got, want)
	if !ok {
		return "", fmt.Errorf("the sharded result differs from the single-device result by up to %g (a bug; please report it)", worst)
	}
	return agreement(rel), nil
}

// difference is the largest elementwise difference of got and want, that
// difference relative to the largest value that differs (at least 1),
// and whether it is one only the order of a partial sum's additions can
// make: none for integers, for float32 a relative 1e-5.
func difference(got, want tensor.Tensor) (worst, rel float64, ok bool) {
	g, w := got.Float64s(), want.Float64s()
	scale := 0.0
	for i := range g {
		if g[i] == w[i] || math.IsNaN(g[i]) && math.IsNaN(w[i]) {
			continue
		}
		worst, scale = max(worst, math.Abs(g[i]-w[i])), max(scale, math.Abs(w[i]))
	}
	rel = worst / max(scale, 1)
	return worst, rel, worst == 0 || got.DType() == tensor.Float32 && rel <= 1e-5
}

// agreement says in words how a sharded result agrees with one device's,
// given their relative difference.
func agreement(rel float64) string {
	if rel == 0 {
		return "equals the single-device result"
	}
	return fmt.Sprintf("matches the single-device result to a relative %.2g (float sums in another order)", rel)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// commandLine spells the command as a shell would take it back, quoting
// arguments such as 'S(0)' and '[[0,1],[2,3]]'.
func commandLine(cmd string, args []string) string {
	parts := []string{"stridelab", cmd}
	for _, a := range args {
		if a == "" || strings.ContainsFunc(a, func(r rune) bool { return !strings.ContainsRune(shellSafe, r) }) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=+@%"

// runOpOnEngine runs op as a one-statement program (program.OneOp) on
// the torch engine: the plan, each rank's report, the result checked
// against the simulated run's and one device's, then the result written
// to out (whole) or printed.
func runOpOnEngine(stdout, stderr io.Writer, eng *engineFlags, be tensor.Backend, op sbp.Op, p sbp.Placement, nds []sbp.NdSbp, paths []string, full []tensor.Tensor, out string) error {
	plan, err := opPlan(op, p, nds, full)
	if err != nil {
		return err
	}
	names := program.OneOpInputs(op)
	inputs := program.Values{}
	for i, t := range full {
		if t.DType() != tensor.Float32 {
			f, err := toFloat32(t)
			if err != nil {
				return fmt.Errorf("%s: %v", paths[i], err)
			}
			defer f.Release()
			fmt.Fprintf(stderr, "stridelab: notice: %s: %v values converted to float32 (the engines run float32 programs)\n", paths[i], t.DType())
			t = f
		}
		inputs[names[i]] = t
	}
	vals, res, err := eng.run(plan, be, inputs)
	if err != nil {
		return err
	}
	defer vals.Release()
	check, err := compareSingle(be, op, full, vals["y"])
	if err != nil {
		return err
	}
	writeProgramPlan(stdout, plan)
	if err := writeReport(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "the gathered result agrees with the simulated run's and %s\n", check)
	return emit(vals["y"], out, stdout)
}

// planSource parses a program and plans it greedily, as OneFlow would.
func planSource(src string) (*program.Plan, error) {
	prog, err := program.Parse(src)
	if err != nil {
		return nil, err
	}
	return program.NewPlan(prog, program.Greedy)
}

// emitTorchOp prints op's one-statement program as a file for torchrun
// (torch.Emit), its inputs read from the .npy files given.
func emitTorchOp(stdout io.Writer, command string, op sbp.Op, p sbp.Placement, nds []sbp.NdSbp, paths []string, full []tensor.Tensor) error {
	plan, err := opPlan(op, p, nds, full)
	if err != nil {
		return err
	}
	files := map[string]string{}
	for i, name := range program.OneOpInputs(op) {
		files[name] = paths[i]
	}
	return torch.Emit(stdout, plan, torch.EmitOptions{Command: command, Files: files})
}

// opPlan plans op on inputs of full's shapes laid out by nds, as the
// one-statement program program.OneOp builds.
func opPlan(op sbp.Op, p sbp.Placement, nds []sbp.NdSbp, full []tensor.Tensor) (*program.Plan, error) {
	shapes := make([]tensor.Shape, len(full))
	for i, t := range full {
		shapes[i] = t.Shape()
	}
	prog, err := program.OneOp(p, op, program.OneOpInputs(op), shapes, nds)
	if err != nil {
		return nil, err
	}
	return program.NewPlan(prog, program.Greedy)
}
