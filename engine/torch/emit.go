package torch

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// emitPrelude is the emitted file's helpers beside ops.py's arithmetic
// (opsPy, which the file holds first): the shards, and one function per
// collective, as worker.py runs them.
//
//go:embed emit_prelude.py
var emitPrelude string

// EmitOptions say where an emitted program's inputs come from and where
// it saves its values.
type EmitOptions struct {
	// Command is the command line that wrote the file, for its header.
	Command string
	// Files maps an input's name to the .npy file its values are read
	// from, overriding the program's own values (sbp run's --in).
	Files map[string]string
	// Path finds an input's from-file (a program's `from w.npy`); nil
	// keeps it as written.
	Path func(from string) string
	// OutDir is where the file saves every value by default ("" prints).
	OutDir string
}

// Emit writes plan as a standalone Python program for torch.distributed,
// one process per device, run by
//
//	torchrun --nproc_per_node N file.py [--device cuda] [--out DIR]
//
// (gloo on CPUs by default, NCCL on GPUs with --device cuda). Every step
// is spelled out: each input as the block of the logical value this
// rank holds, each op as torch on the local shards with this rank's
// arguments (sbp.PlanOp's rewrite) as literals, each boxing as the
// collectives of sbp.PlanBoxing with their mesh dims, axes and split
// sizes as literals. At the end every named tensor and gradient is
// boxed to B and rank 0 saves it as DIR/NAME.npy (or prints it). No
// DTensor: any torch with torch.distributed runs it.
func Emit(w io.Writer, plan *planner.Plan, opt EmitOptions) error {
	if plan == nil || plan.Program == nil {
		return fmt.Errorf("torch emit: no plan")
	}
	p := plan.Program.Placement
	b := newBuilder(p, 0)
	b.layoutOnly = true
	for i, s := range plan.Steps {
		if err := b.step(s, nil); err != nil {
			return fmt.Errorf("torch emit: step %d (%s %s): %w", i, s.Kind, s.Name, err)
		}
	}
	want, _ := wanted(plan)
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	slices.SortFunc(names, func(x, y string) int { return want[x] - want[y] })
	allB := make(sbp.NdSbp, len(p.Hierarchy()))
	for i := range allB {
		allB[i] = sbp.SBP{Kind: sbp.Broadcast}
	}
	gathers := len(b.job.Steps)
	for _, name := range names {
		if _, err := b.boxing(name+"@gathered", plan.Steps[want[name]].Name, allB); err != nil {
			return fmt.Errorf("torch emit: gathering %s: %w", name, err)
		}
	}

	var o strings.Builder
	fmt.Fprintf(&o, "#!/usr/bin/env python3\n\"\"\"A stridelab plan on torch.distributed, one process per device.\n\n")
	if opt.Command != "" {
		fmt.Fprintf(&o, "Written by: %s\n\n", opt.Command)
	}
	fmt.Fprintf(&o, "Run it with %d processes, on CPUs (gloo) or on GPUs (NCCL, one per process):\n\n", p.Size())
	fmt.Fprintf(&o, "    torchrun --nproc_per_node %d THIS_FILE.py [--out DIR]\n", p.Size())
	fmt.Fprintf(&o, "    torchrun --nproc_per_node %d THIS_FILE.py --device cuda [--out DIR]\n\n", p.Size())
	fmt.Fprintf(&o, "Placement %v: process RANK is the device at that position of the mesh %v.\n", p, p.Hierarchy())
	fmt.Fprintf(&o, "Every step is spelled out per rank: the shards, the local ops with each rank's\n")
	fmt.Fprintf(&o, "arguments, and the collectives of each boxing. At the end every named tensor\n")
	fmt.Fprintf(&o, "and gradient is gathered (boxed to B) and rank 0 saves it as DIR/NAME.npy.\n\"\"\"\n\n")
	o.Write(opsPy)
	o.WriteString("\n\n")
	o.WriteString(emitPrelude)
	if slices.ContainsFunc(plan.Steps, func(s planner.Step) bool { return s.Kind == planner.StepInput && s.Values == program.ValuesUniform }) {
		o.WriteString("\n\n")
		o.WriteString(tensor.UniformPython)
	}
	fmt.Fprintf(&o, "\nWORLD = %d\nMESH = %s\nGROUPS = %s  # per mesh dim, its groups of ranks\nOUT_DIR = %s\n\n", p.Size(), pyInts(p.Hierarchy()), pyAny(b.job.Groups), pyStr(opt.OutDir))
	o.WriteString("\ndef main():\n    args = setup(GROUPS, MESH)\n    V = {}\n")
	for i, js := range b.job.Steps {
		if i == gathers {
			o.WriteString("\n    # Gather every named tensor and gradient (box it to B) and save it on rank 0.\n")
		}
		if err := emitStep(&o, b, js, plan, i, opt); err != nil {
			return fmt.Errorf("torch emit: step %d (%s %s): %w", i, js.Kind, js.Name, err)
		}
	}
	for k, name := range names {
		fmt.Fprintf(&o, "    save(args, %s, V[%s])\n", pyStr(name), pyStr(b.job.Steps[gathers+k].Name))
	}
	o.WriteString("    dist.barrier()\n    dist.destroy_process_group()\n\n\nif __name__ == \"__main__\":\n    main()\n")
	_, err := io.WriteString(w, o.String())
	return err
}

// emitStep writes one step's code.
func emitStep(o *strings.Builder, b *builder, js jobStep, plan *planner.Plan, i int, opt EmitOptions) error {
	p := b.p
	v := func(name string) string { return "V[" + pyStr(name) + "]" }
	switch js.Kind {
	case string(planner.StepInput):
		s := plan.Steps[i]
		nd := s.Out()
		shards, err := sbp.Shards(s.Shape, p, nd)
		if err != nil {
			return err
		}
		var value string
		switch src, ok := opt.Files[s.Name]; {
		case ok:
			value = fmt.Sprintf("load(%s, %s)", pyStr(src), pyInts(s.Shape))
		case s.Values == program.ValuesArange:
			value = fmt.Sprintf("arange(%s)", pyInts(s.Shape))
		case s.Values == program.ValuesUniform:
			value = fmt.Sprintf("torch.from_numpy(uniform(%s, %s)).to(DEV)", pyStr(s.Name), pyInts(s.Shape))
		case s.Values == program.ValuesOnes:
			value = fmt.Sprintf("full(%s, 1.0)", pyInts(s.Shape))
		case s.Values == program.ValuesZeros:
			value = fmt.Sprintf("full(%s, 0.0)", pyInts(s.Shape))
		default:
			from := s.Values
			if opt.Path != nil {
				from = opt.Path(from)
			}
			value = fmt.Sprintf("load(%s, %s)", pyStr(from), pyInts(s.Shape))
		}
		op := "sum"
		los, shapes, keep := make([]string, len(shards)), make([]string, len(shards)), make([]string, len(shards))
		for k, sh := range shards {
			los[k], shapes[k] = pyInts(sh.Lo), pyInts(sh.Shape)
			keep[k] = "True"
			for _, x := range nd {
				if x.Kind == sbp.Partial {
					op = x.Op.String()
					if x.Op == tensor.Sum && partialIndex(p, nd, k) > 0 {
						keep[k] = "False" // a P(sum) value lives on the group's first device, the others hold 0
					}
				}
			}
		}
		fmt.Fprintf(o, "\n    # step %d: %s = input %v %v: this rank's block of the logical value\n", i+1, js.Name, s.Shape, nd)
		fmt.Fprintf(o, "    %s = shard(%s, %s, %s, %s, %s)\n", v(js.Name), value, perRank(los), perRank(shapes), perRank(keep), pyStr(op))
	case string(planner.StepOp):
		x := make([]string, len(js.Reads))
		for k, r := range js.Reads {
			x[k] = v(r)
		}
		arg := func(get func(a rankArgs) []int) string {
			vals := make([]string, len(js.Args))
			for k, a := range js.Args {
				vals[k] = pyInts(get(a))
			}
			return perRank(vals)
		}
		var expr string
		switch js.Op {
		case "expand":
			expr = fmt.Sprintf("%s.expand(%s).contiguous()", x[0], arg(func(a rankArgs) []int { return a.ExpandSize }))
		case "repeat":
			expr = fmt.Sprintf("%s.repeat(%s)", x[0], arg(func(a rankArgs) []int { return a.RepeatTimes }))
		case "reduce":
			expr = fmt.Sprintf("reduce_to(%s, %s, %s)", x[0], pyStr(js.Reduce), arg(func(a rankArgs) []int { return a.ReduceTo }))
		case "mean":
			expr = fmt.Sprintf("mean_to(%s, %s, %d)", x[0], arg(func(a rankArgs) []int { return a.ReduceTo }), js.Count)
		case "exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu", "step":
			expr = fmt.Sprintf("UNARY[%s](%s)", pyStr(js.Op), x[0])
		case "softmax":
			expr = fmt.Sprintf("softmax(%s, %d)", x[0], js.Dim)
		case "repeat_grad":
			expr = fmt.Sprintf("reduce_to(%s.reshape(%s), \"sum\", %s).reshape(%s)", x[0], arg(func(a rankArgs) []int { return a.View }),
				arg(func(a rankArgs) []int { return a.ViewTo }), arg(func(a rankArgs) []int { return a.ReduceTo }))
		case "transpose":
			expr = x[0] + ".transpose(-2, -1).contiguous()"
		case "permute":
			expr = fmt.Sprintf("%s.permute(%s).contiguous()", x[0], pyInts(js.Perm))
		case "reshape": // each rank to its own output shard's shape
			expr = fmt.Sprintf("%s.reshape(%s).clone()", x[0], arg(func(a rankArgs) []int { return a.OutShape }))
		case "scale":
			expr = fmt.Sprintf("%s * torch.tensor(%s, dtype=F32, device=DEV)", x[0], strconv.FormatFloat(js.Factor, 'g', -1, 64))
		case "matmul":
			expr = fmt.Sprintf("matmul(%s, %s)", x[0], x[1])
		case "add", "sub", "mul", "div":
			expr = fmt.Sprintf("%s %s %s", x[0], map[string]string{"add": "+", "sub": "-", "mul": "*", "div": "/"}[js.Op], x[1])
		case "max":
			expr = fmt.Sprintf("torch.maximum(%s, %s)", x[0], x[1])
		case "min":
			expr = fmt.Sprintf("torch.minimum(%s, %s)", x[0], x[1])
		case "eq":
			expr = fmt.Sprintf("(%s == %s).to(F32)", x[0], x[1])
		default:
			return fmt.Errorf("no torch op for %q", js.Op)
		}
		s := plan.Steps[i]
		fmt.Fprintf(o, "\n    # step %d: %s = %s %s   %s -> %s: the local op on this rank's shards\n", i+1, js.Name, js.Op, strings.Join(js.Reads, " "), sbp.JoinNd(s.InSbp, " x "), s.OutSbp)
		fmt.Fprintf(o, "    %s = %s\n", v(js.Name), expr)
	case string(planner.StepBoxing):
		var what []string
		for _, c := range js.Collectives {
			what = append(what, fmt.Sprintf("%s along mesh dim %d", c.Collective, c.MeshDim))
		}
		if len(what) == 0 {
			what = []string{"nothing to move"}
		}
		from := b.sbp[js.Reads[0]]
		fmt.Fprintf(o, "\n    # step %d: %s = box %s   %v -> %s: %s\n", i+1, js.Name, js.Reads[0], from, js.Sbp, strings.Join(what, ", then "))
		fmt.Fprintf(o, "    t = %s\n", v(js.Reads[0]))
		for _, c := range js.Collectives {
			call, err := collectiveCall(p, b.job.Groups[c.MeshDim], c)
			if err != nil {
				return err
			}
			fmt.Fprintf(o, "    t = %s\n", call)
		}
		fmt.Fprintf(o, "    %s = t\n", v(js.Name))
	default:
		return fmt.Errorf("unknown step kind %q", js.Kind)
	}
	return nil
}

// collectiveCall spells one collective as a call of the prelude's
// function, with this rank's sizes as literals.
func collectiveCall(p sbp.Placement, groups [][]int, c jobCollective) (string, error) {
	n := p.Size()
	groupOf := make([][]int, n)
	for _, g := range groups {
		for _, pos := range g {
			groupOf[pos] = g
		}
	}
	empty := func(g []int) string {
		for _, q := range g {
			if product(c.Before[q]) > 0 {
				return "False"
			}
		}
		return "True"
	}
	// groupSizes lists the sizes along axis of the group's shards.
	groupSizes := func(axis int) func(int, []int) string {
		return func(_ int, g []int) string {
			s := make([]int, len(g))
			for k, q := range g {
				s[k] = c.Before[q][axis]
			}
			return pyInts(s)
		}
	}
	per := func(f func(pos int, g []int) string) string {
		vals := make([]string, n)
		for pos := range n {
			vals[pos] = f(pos, groupOf[pos])
		}
		return perRank(vals)
	}
	switch c.Collective {
	case string(sbp.AllGather):
		a := c.X.Axis
		sizes := per(groupSizes(a))
		after := per(func(pos int, _ []int) string { return pyInts(c.After[pos]) })
		return fmt.Sprintf("all_gather(t, dim=%d, axis=%d, sizes=%s, after=%s, skip=%s)", c.MeshDim, a, sizes, after, per(func(_ int, g []int) string { return empty(g) })), nil
	case string(sbp.AllReduce):
		return fmt.Sprintf("all_reduce(t, dim=%d, op=%s)", c.MeshDim, pyStr(c.X.Op)), nil
	case string(sbp.ReduceScatter):
		return fmt.Sprintf("reduce_scatter(t, dim=%d, op=%s, axis=%d)", c.MeshDim, pyStr(c.X.Op), c.Y.Axis), nil
	case string(sbp.AllToAll):
		a, bAxis := c.X.Axis, c.Y.Axis
		shapes := per(func(pos int, g []int) string {
			ci := slices.Index(g, pos)
			lo, hi := partRange(c.Before[pos][bAxis], len(g), ci)
			parts := make([]string, len(g))
			for k, q := range g {
				s := slices.Clone(c.Before[q])
				s[bAxis] = hi - lo
				parts[k] = pyInts(s)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		})
		return fmt.Sprintf("all_to_all(t, dim=%d, axis_in=%d, axis_out=%d, out_shapes=%s, skip=%s)", c.MeshDim, a, bAxis, shapes, per(func(_ int, g []int) string { return empty(g) })), nil
	case string(sbp.LocalSlice):
		return fmt.Sprintf("local_slice(t, dim=%d, axis=%d)", c.MeshDim, c.Y.Axis), nil
	case string(sbp.LocalZero):
		return fmt.Sprintf("local_zero(t, dim=%d, op=%s)", c.MeshDim, pyStr(c.Y.Op)), nil
	case string(sbp.LocalPad):
		a := c.X.Axis
		sizes := per(groupSizes(a))
		return fmt.Sprintf("local_pad(t, dim=%d, axis=%d, sizes=%s, op=%s)", c.MeshDim, a, sizes, pyStr(c.Y.Op)), nil
	}
	return "", fmt.Errorf("unknown collective %q", c.Collective)
}

// partRange is sbp's balanced split: part i of [0, n) cut in k.
func partRange(n, k, i int) (int, int) {
	q, r := n/k, n%k
	lo := i*q + min(i, r)
	hi := lo + q
	if i < r {
		hi++
	}
	return lo, hi
}

// perRank is one literal when every rank has the same, else a list
// indexed by RANK.
func perRank(vals []string) string {
	for _, v := range vals[1:] {
		if v != vals[0] {
			return "[" + strings.Join(vals, ", ") + "][RANK]"
		}
	}
	return vals[0]
}

func pyInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func pyAny(v [][][]int) string {
	outer := make([]string, len(v))
	for i, gs := range v {
		inner := make([]string, len(gs))
		for j, g := range gs {
			inner[j] = pyInts(g)
		}
		outer[i] = "[" + strings.Join(inner, ", ") + "]"
	}
	return "[" + strings.Join(outer, ", ") + "]"
}

// pyStr is s as a Python string literal (JSON's escapes are Python's).
func pyStr(s string) string { return strconv.Quote(s) }
