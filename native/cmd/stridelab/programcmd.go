package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/engine/script"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

const programSynopsis = "(--file P | --src 'placement 4; x = input 8,4 S(0); …') [--strategy greedy|exact] [--cluster NAME|FILE] [--cost bytes|time] [--json] [--out DIR] [--emit oneflow|pytorch] [--backend cpu|gpu|auto] [--max-bytes N] [--engine sim|torch] [--python PATH] [--timeout 120s] [--time-runs 5]"

// sbpProgram plans a program (package sbp/program) and prints the plan as
// a table, or as JSON, or as a program for OneFlow or PyTorch; with --out
// it runs the plan on simulated devices, checks every tensor and gradient
// against one device, and writes them as DIR/NAME.npy.
func sbpProgram(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sbp program", programSynopsis, stderr)
	file := fs.String("file", "", "the program's file; its inputs' from-files are found beside it")
	src := fs.String("src", "", "the program itself, statements separated by ';' or newlines; from-files are found in the working directory")
	strategy := fs.String("strategy", string(planner.Greedy), "greedy (OneFlow's eager rule) or exact (the least cost for the whole program: bytes, or time with --cluster)")
	clu := defineClusterFlags(fs, true)
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	out := fs.String("out", "", "run the program and write every tensor as DIR/NAME.npy and every gradient as DIR/grad_NAME.npy (DIR is made if missing); with --emit, where the emitted program saves them")
	emitTo := emitFlag(fs)
	backend := computeFlags(fs, stderr)
	eng := defineEngineFlags(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := checkEmit(*emitTo); err != nil {
		return err
	}
	if err := eng.check(map[string]bool{"emit": *emitTo != ""}); err != nil {
		return err
	}
	source, dir, err := programSource(*file, *src)
	if err != nil {
		return err
	}
	strat, err := planner.ParseStrategy(*strategy)
	if err != nil {
		return usagef("--strategy %q: choose greedy or exact", *strategy)
	}
	opts, err := clu.options()
	if err != nil {
		return err
	}
	be, err := backend()
	if err != nil {
		return err
	}
	prog, err := program.Parse(source)
	if err != nil {
		return err
	}
	if err := fitsMesh(opts, prog.Placement); err != nil {
		return err
	}
	plan, err := planner.NewPlanWith(prog, strat, opts)
	if err != nil {
		return err
	}
	if err := capacity(plan); err != nil {
		return err
	}
	path := func(from string) string {
		if dir == "" || filepath.IsAbs(from) {
			return from
		}
		return filepath.Join(dir, from)
	}
	inputs, err := loadProgramInputs(prog, path, stderr)
	if err != nil {
		return err
	}
	defer inputs.Release()
	if *emitTo != "" {
		return script.Write(stdout, plan, script.Engine(*emitTo), script.Options{Command: commandLine("sbp program", args), Path: path, OutDir: *out})
	}
	var check string
	var written []string
	var res *engine.Result
	ran := *out != "" || eng.torch()
	if ran {
		// only what is computed is bounded by the budget: a plan is
		// metadata, and what it holds is judged against the cluster's
		// capacity (above)
		if err := plan.CheckBudget(); err != nil {
			return err
		}
		if check, written, res, err = runProgram(plan, be, inputs, *out, eng); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeProgramJSON(stdout, plan, res)
	}
	writeProgramPlan(stdout, plan)
	if res != nil {
		if err := writeReport(stdout, res); err != nil {
			return err
		}
	}
	if err := writeTimes(stdout, plan, res); err != nil {
		return err
	}
	if ran {
		what := "every tensor"
		if prog.Grad != nil {
			what += " and gradient"
		}
		where := fmt.Sprintf("\nran on %d simulated devices (%s backend)", prog.Placement.Size(), be.Name())
		if res != nil {
			where = "the torch engine's values agree with the simulated run's"
		}
		fmt.Fprintf(stdout, "%s: %s %s\n", where, what, check)
	}
	if *out != "" {
		fmt.Fprintf(stdout, "wrote %d files to %s: %s\n", len(written), *out, strings.Join(written, " "))
	}
	return nil
}

// programSource reads the program from --file or --src (exactly one),
// and returns the folder its from-files are relative to ("" for the
// working directory).
func programSource(file, src string) (source, dir string, err error) {
	switch {
	case file != "" && src != "":
		return "", "", usagef("give the program once: --file or --src, not both")
	case file == "" && src == "":
		return "", "", usagef("--file or --src is required (see --help)")
	case src != "":
		return src, "", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", "", err
	}
	return string(b), filepath.Dir(file), nil
}

// loadProgramInputs reads the .npy file of every input that names one
// (path says where it is); a file of another shape than the input's is
// an error naming the statement and both shapes. Integer files of a
// float32 input become float32 when every value is exact there, and the
// values of an i32 input (token ids) int32 when each is a whole number.
func loadProgramInputs(prog *program.Program, path func(string) string, stderr io.Writer) (planner.Values, error) {
	vals := planner.Values{}
	for _, st := range prog.Inputs() {
		if st.From == "" {
			continue
		}
		fail := func(format string, args ...any) (planner.Values, error) {
			vals.Release()
			return nil, &program.Error{Line: st.Line, Col: st.Col, Stmt: st.Text, Err: fmt.Errorf(format, args...)}
		}
		file := path(st.From)
		t, err := load(file, stderr)
		if err != nil {
			return fail("%v", err)
		}
		if !t.Shape().Equal(st.Shape) {
			return fail("%s holds %v but the input is %v", file, t.Shape(), st.Shape)
		}
		switch {
		case st.Int() && t.DType() != tensor.Int32:
			ids, err := tensor.ExactInt32(t)
			if err != nil {
				return fail("%s: the input is i32 (token ids): %v", file, err)
			}
			t = ids
		case !st.Int() && t.DType() != tensor.Float32:
			f, err := tensor.ExactFloat32(t)
			if err != nil {
				return fail("%s: %v; the input is float32", file, err)
			}
			fmt.Fprintf(stderr, "stridelab: notice: %s: %v values converted to float32 (the input is float32; write i32 after its SBP for token ids)\n", file, t.DType())
			t = f
		}
		vals[st.Name] = t
	}
	return vals, nil
}

// runProgram runs the plan on the engine eng names (for torch, checked
// against the simulated devices' run) and on one CPU device, checks
// that every tensor and gradient agrees, and writes each to
// dir/NAME.npy (each file whole: render.WriteFileAtomic) when dir is
// given. It returns the agreement, in words, the files written, and the
// torch engine's report (nil for sim).
func runProgram(plan *planner.Plan, be tensor.Backend, inputs planner.Values, dir string, eng *engineFlags) (string, []string, *engine.Result, error) {
	got, res, err := eng.run(plan, be, inputs)
	if err != nil {
		return "", nil, nil, err
	}
	defer got.Release()
	want, err := plan.Reference(inputs)
	if err != nil {
		return "", nil, nil, err
	}
	defer want.Release()
	var names, grads []string // program order, then the gradients in that order
	for _, st := range plan.Program.Stmts {
		if st.Kind != program.Grad {
			names = append(names, st.Name)
			if _, ok := got[graph.GradName(st.Name)]; ok {
				grads = append(grads, graph.GradName(st.Name))
			}
		}
	}
	names = append(names, grads...)
	var worst engine.Agreement // the one of largest relative difference, for the words
	worst.Equal = true
	for _, a := range engine.Compare(got, want) {
		if !a.Agrees {
			return "", nil, nil, fmt.Errorf("%s on %d devices: %s (a bug; please report it)", a.Name, plan.Program.Placement.Size(), a.Verdict("the single-device result"))
		}
		if worst.Equal || !a.Equal && a.MaxRel > worst.MaxRel {
			worst = a
		}
	}
	check := worst.Words("the single-device result")
	if !worst.Equal {
		check += " in " + worst.Name
	}
	if dir == "" {
		return check, nil, res, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, nil, err
	}
	var written []string
	for _, name := range names {
		file := name + ".npy"
		if err := saveNpy(filepath.Join(dir, file), got[name]); err != nil {
			return "", nil, nil, err
		}
		written = append(written, file)
	}
	return check, written, res, nil
}

// writeProgramPlan prints a plan as a table, a row per step, then the
// totals of both strategies and where they differ.
func writeProgramPlan(w io.Writer, plan *planner.Plan) {
	var boxings, ops int
	for _, s := range plan.Steps {
		switch s.Kind {
		case planner.StepBoxing:
			boxings++
		case planner.StepOp:
			ops++
		}
	}
	fmt.Fprintf(w, "program on %s, %s: %s (%s, %s)\n\n", plan.Placement, plan.Strategy, count(len(plan.Steps), "step"), count(ops, "op"), count(boxings, "boxing"))
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	timed := plan.Timing != nil
	header := "step\tpass\top or boxing\tshape\tsbp in -> out\tsignature or collectives\tsend bytes"
	if timed {
		header += "\ttime\tbound or link"
	}
	fmt.Fprintln(tw, header)
	for i, s := range plan.Steps {
		var what, sbps, how, bytes, took, bound string
		switch s.Kind {
		case planner.StepInput:
			what = fmt.Sprintf("%s = input", s.Name)
			switch s.Values {
			case program.ValuesArange:
			case program.ValuesOnes, program.ValuesZeros:
				what = fmt.Sprintf("%s = %s", s.Name, s.Values)
			default: // from uniform, from FILE.npy
				what += " from " + s.Values
			}
			sbps = s.Sbp.String()
		case planner.StepBoxing:
			what = fmt.Sprintf("box %s for %s", s.Tensor, s.For)
			if st := plan.Program.Lookup(s.Name); st != nil && s.Pass == graph.Forward {
				what = st.Text
			} else if !strings.Contains(s.Name, "@") { // a gradient boxed to its input's SBP
				what = fmt.Sprintf("%s = box %s", s.Name, s.Tensor)
			}
			sbps, how, bytes = s.From.String()+" -> "+s.To.String(), strings.Join(s.Collectives, ", "), fmt.Sprint(s.SendBytes)
			if s.BoxingTime != nil {
				took, bound = cluster.FormatSeconds(s.TimeS), meshDims(s.BoxingTime)
			}
		case planner.StepOp:
			what = fmt.Sprintf("%s = %s %s", s.Name, s.Op, strings.Join(s.Inputs, " "))
			if st := plan.Program.Lookup(s.Name); st != nil && s.Pass == graph.Forward {
				what = st.Text // with the op's arguments, as written
			}
			if len(s.Reuses) > 0 {
				what += ", reusing " + strings.Join(s.Reuses, ", ")
			}
			sbps, how = sbp.JoinNd(s.InSbp, " x ")+" -> "+s.OutSbp.String(), s.Signature.String()
			if timed {
				took, bound = cluster.FormatSeconds(s.TimeS), s.Bound
			}
		}
		row := fmt.Sprintf("%d\t%s\t%s\t%v\t%s\t%s\t%s", i+1, s.Pass, what, s.Shape, sbps, how, bytes)
		if timed {
			row += "\t" + took + "\t" + bound
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	for _, line := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		fmt.Fprintln(w, strings.TrimRight(line, " ")) // the empty last cells' padding
	}
	exact := "exact refused: " + plan.ExactRefused
	if plan.ExactSendBytes != nil {
		exact = fmt.Sprintf("exact %d bytes", *plan.ExactSendBytes)
	}
	fmt.Fprintf(w, "\nsent: %d bytes in %s (%s); greedy %d bytes, %s\n", plan.TotalSendBytes, count(boxings, "boxing"), plan.Strategy, plan.GreedySendBytes, exact)
	if line := plan.Unproven(); line != "" {
		fmt.Fprintln(w, "exact plan "+line)
	}
	if line := peakLine(plan); line != "" {
		fmt.Fprintln(w, line)
	}
	if line := partsLine(plan); line != "" {
		fmt.Fprintln(w, line)
	}
	if timed {
		writeTiming(w, plan)
	}
	if len(plan.Differences) > 0 {
		fmt.Fprintln(w, "where exact and greedy differ:")
		for _, d := range plan.Differences {
			var gt, et string
			if timed { // the op's time with its boxings'
				gt, et = fmt.Sprintf(", %s in all", cluster.FormatSeconds(d.Greedy.TimeS)), fmt.Sprintf(", %s in all", cluster.FormatSeconds(d.Exact.TimeS))
			}
			fmt.Fprintf(w, "  %s (%s): greedy %s, boxing %d bytes before it%s; exact %s, boxing %d bytes%s\n",
				d.Name, d.Pass, d.Greedy.Signature, d.Greedy.SendBytes, gt, d.Exact.Signature, d.Exact.SendBytes, et)
		}
	}
}

// writeTiming prints a timed plan's time on its cluster: its compute and
// communication and their sum (the steps one after another, no
// overlap), the time with every boxing overlapping the compute it does
// not wait for (Timing.OverlapTimeS), and what exact minimised.
//
//	time on two-h100-nodes: compute 14.7 ns + communication 20.0 µs = 20.1 µs (summed: no overlap)
//	overlapped: 20.1 µs (each boxing beside the compute that does not wait for it); exact minimises time (--cost)
//	greedy takes 20.1 µs, exact 20.1 µs
func writeTiming(w io.Writer, plan *planner.Plan) {
	t := plan.Timing
	fmt.Fprintf(w, "time on %s: compute %s + communication %s = %s (summed: no overlap)\n",
		plan.Cluster.Name, cluster.FormatSeconds(t.ComputeTimeS), cluster.FormatSeconds(t.CommTimeS), cluster.FormatSeconds(t.TimeS))
	fmt.Fprintf(w, "overlapped: %s (each boxing beside the compute that does not wait for it); exact minimises %s (--cost)\n",
		cluster.FormatSeconds(t.OverlapTimeS), plan.Cost)
	exact := "exact refused"
	if plan.ExactTimeS != nil {
		exact = "exact " + cluster.FormatSeconds(*plan.ExactTimeS)
	}
	fmt.Fprintf(w, "greedy takes %s, %s\n", cluster.FormatSeconds(plan.GreedyTimeS), exact)
}

// peakLine spells the most each device holds at any step (Plan.Peak),
// devices of consecutive ranks that hold the same run together, and the
// step (numbered as the table is) where the largest is reached:
//
//	peak held: 400 bytes on rank 0, 336 bytes on ranks 1-2 (the most at step 3)
func peakLine(plan *planner.Plan) string {
	peak, step := plan.Peak()
	if step < 0 {
		return ""
	}
	p := plan.Program.Placement
	var parts []string
	for i := 0; i < len(peak); {
		j := i + 1
		for j < len(peak) && peak[j] == peak[i] && p.Rank(j) == p.Rank(j-1)+1 {
			j++
		}
		ranks := fmt.Sprintf("rank %d", p.Rank(i))
		if j-i > 1 {
			ranks = fmt.Sprintf("ranks %d-%d", p.Rank(i), p.Rank(j-1))
		}
		parts = append(parts, fmt.Sprintf("%d bytes on %s", peak[i], ranks))
		i = j
	}
	return fmt.Sprintf("peak held: %s (the most at step %d)", strings.Join(parts, ", "), step+1)
}

// partsLine spells, for a program with an optimizer statement, what
// the first device holds for the whole step besides activations
// (Plan.Memory):
//
//	held throughout on rank 0: parameters 32.0 MiB, gradients 32.0 MiB, state of optimizer adam 192 MiB
func partsLine(plan *planner.Plan) string {
	if plan.Program.Optimizer == nil {
		return ""
	}
	mem, err := plan.Memory()
	if err != nil || len(mem) == 0 {
		return ""
	}
	m := mem[0]
	return fmt.Sprintf("held throughout on rank %d: parameters %s, gradients %s, state of %s %s", plan.Program.Placement.Rank(0),
		tensor.FormatBytes(m.Parameters), tensor.FormatBytes(m.Gradients), plan.Program.Optimizer, tensor.FormatBytes(m.Optimizer))
}

// count spells n things: 1 op, 2 ops.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
