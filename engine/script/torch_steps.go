package script

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// torchFile is the body of a torch.distributed file's main() as it is
// written, step by step, with every step's shape and SBP by name.
type torchFile struct {
	p      sbp.Placement
	groups [][][]int // per mesh dim, its groups of positions
	body   strings.Builder
	shape  map[string]tensor.Shape
	sbp    map[string]sbp.NdSbp
}

// step writes plan step i, s.
func (f *torchFile) step(i int, s planner.Step, opt Options) error {
	switch s.Kind {
	case planner.StepInput:
		return f.input(i, s, opt)
	case planner.StepOp:
		return f.op(i, s)
	case planner.StepBoxing:
		r := s.Reads()
		if len(r) != 1 {
			return fmt.Errorf("a boxing reads one tensor, not %v", r)
		}
		bx, err := s.PlannedBoxing()
		if err != nil {
			return err
		}
		return f.boxing(i, s.Name, r[0], bx)
	}
	return fmt.Errorf("unknown step kind %q", s.Kind)
}

// input writes an input step: this rank's block of the logical value
// (a P(sum) value lives on its group's first device, the others hold 0).
func (f *torchFile) input(i int, s planner.Step, opt Options) error {
	nd := s.Out()
	shards, err := sbp.Shards(s.Shape, f.p, nd)
	if err != nil {
		return err
	}
	var value string
	switch src, ok := opt.Files[s.Name]; {
	case ok:
		value = fmt.Sprintf("load(%s, %s)", pyStr(src), sbp.PyList(s.Shape))
	case s.Values == program.ValuesArange:
		value = fmt.Sprintf("arange(%s)", sbp.PyList(s.Shape))
	case s.Values == program.ValuesUniform:
		value = fmt.Sprintf("torch.from_numpy(uniform(%s, %s)).to(DEV)", pyStr(s.Name), sbp.PyList(s.Shape))
	case s.Values == program.ValuesOnes:
		value = fmt.Sprintf("full(%s, 1.0)", sbp.PyList(s.Shape))
	case s.Values == program.ValuesZeros:
		value = fmt.Sprintf("full(%s, 0.0)", sbp.PyList(s.Shape))
	default:
		from := s.Values
		if opt.Path != nil {
			from = opt.Path(from)
		}
		value = fmt.Sprintf("load(%s, %s)", pyStr(from), sbp.PyList(s.Shape))
	}
	op := "sum"
	los, shapes, keep := make([]string, len(shards)), make([]string, len(shards)), make([]string, len(shards))
	for k, sh := range shards {
		los[k], shapes[k] = sbp.PyList(sh.Lo), sbp.PyList(sh.Shape)
		first := true // the first device of its partial group: 0 on every P mesh dim
		for m, x := range nd {
			first = first && (x.Kind != sbp.Partial || sh.Coord[m] == 0)
		}
		keep[k] = "True"
		for _, x := range nd {
			if x.Kind == sbp.Partial {
				op = x.Op.String()
				if x.Op == tensor.Sum && !first {
					keep[k] = "False"
				}
			}
		}
	}
	fmt.Fprintf(&f.body, "\n    # step %d: %s = input %v %v: this rank's block of the logical value\n", i+1, s.Name, s.Shape, nd)
	fmt.Fprintf(&f.body, "    %s = shard(%s, %s, %s, %s, %s)\n", pyVar(s.Name), value, perRank(los), perRank(shapes), perRank(keep), pyStr(op))
	f.shape[s.Name], f.sbp[s.Name] = s.Shape.Clone(), nd.Clone()
	return nil
}

// op writes an op step: torch on this rank's shards, with this rank's
// arguments (sbp.PlanOpAs's rewrite for the step's SBPs) as literals.
func (f *torchFile) op(i int, s planner.Step) error {
	op := s.Operation()
	if op == nil {
		return fmt.Errorf("the step has no op")
	}
	reads := s.Reads()
	var shapes []tensor.Shape
	x := make([]string, len(reads))
	for k, r := range reads {
		sh, ok := f.shape[r]
		if !ok {
			return fmt.Errorf("it reads %s, which no earlier step defines", r)
		}
		if k < len(s.InSbp) && !f.sbp[r].Equal(s.InSbp[k]) {
			return fmt.Errorf("it takes %s as %v, but %s is %v", r, s.InSbp[k], r, f.sbp[r])
		}
		shapes, x[k] = append(shapes, sh), pyVar(r)
	}
	plan, err := sbp.PlanOpAs(op, shapes, f.p, s.InSbp, s.OutSbp)
	if err != nil {
		return err
	}
	spec := sbp.SpecOf(op)
	if spec == nil {
		return fmt.Errorf("no torch op for %q", op.Name())
	}
	par := sbp.Params(op)
	// each rank's own arguments: one literal, or a list indexed by RANK
	expr := spec.Local(par, x, func(get func(r sbp.RankPlan) []int) string {
		vals := make([]string, len(plan.Ranks))
		for k, r := range plan.Ranks {
			vals[k] = sbp.PyList(get(r))
		}
		return perRank(vals)
	})
	fmt.Fprintf(&f.body, "\n    # step %d: %s = %s %s   %s -> %s: the local op on this rank's shards\n", i+1, s.Name, par.Name, strings.Join(reads, " "), sbp.JoinNd(s.InSbp, " x "), s.OutSbp)
	fmt.Fprintf(&f.body, "    %s = %s\n", pyVar(s.Name), expr)
	f.shape[s.Name], f.sbp[s.Name] = plan.OutShape.Clone(), plan.OutSbp.Clone()
	return nil
}

// boxing writes the boxing bx of the step read, named name: one call of
// the prelude's collectives per step of bx; bx must start from the SBP
// read was left in.
func (f *torchFile) boxing(i int, name, read string, bx sbp.Boxing) error {
	shape, ok := f.shape[read]
	if !ok {
		return fmt.Errorf("it boxes %s, which no earlier step defines", read)
	}
	from := f.sbp[read]
	if !bx.From.Equal(from) || !bx.Shape.Equal(shape) {
		return fmt.Errorf("its boxing starts from %v %v, but %s is %v %v", bx.Shape, bx.From, read, shape, from)
	}
	var what, calls []string
	for _, st := range bx.Steps {
		what = append(what, fmt.Sprintf("%s along mesh dim %d", st.Collective, st.MeshDim))
		call, err := collectiveCall(f.p, f.groups[st.MeshDim], st)
		if err != nil {
			return err
		}
		calls = append(calls, call)
	}
	if len(what) == 0 {
		what = []string{"nothing to move"}
	}
	fmt.Fprintf(&f.body, "\n    # step %d: %s = box %s   %v -> %s: %s\n", i+1, name, read, from, bx.To, strings.Join(what, ", then "))
	fmt.Fprintf(&f.body, "    t = %s\n", pyVar(read))
	for _, call := range calls {
		fmt.Fprintf(&f.body, "    t = %s\n", call)
	}
	fmt.Fprintf(&f.body, "    %s = t\n", pyVar(name))
	f.shape[name], f.sbp[name] = shape, bx.To.Clone()
	return nil
}

// collectiveCall spells one step of a boxing as a call of the prelude's
// function, with this rank's sizes as literals; groups are the step's
// mesh dim's groups of positions.
func collectiveCall(p sbp.Placement, groups [][]int, st sbp.Step) (string, error) {
	n := p.Size()
	x, y := st.From[st.MeshDim], st.To[st.MeshDim]
	before := func(pos int) tensor.Shape { return st.Ranks[pos].Before }
	groupOf := make([][]int, n)
	for _, g := range groups {
		for _, pos := range g {
			groupOf[pos] = g
		}
	}
	empty := func(g []int) string {
		for _, q := range g {
			if size, _ := before(q).NumElements(); size > 0 {
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
				s[k] = before(q)[axis]
			}
			return sbp.PyList(s)
		}
	}
	per := func(f func(pos int, g []int) string) string {
		vals := make([]string, n)
		for pos := range n {
			vals[pos] = f(pos, groupOf[pos])
		}
		return perRank(vals)
	}
	switch st.Collective {
	case sbp.AllGather:
		a := x.Axis
		sizes := per(groupSizes(a))
		after := per(func(pos int, _ []int) string { return sbp.PyList(st.Ranks[pos].After) })
		return fmt.Sprintf("all_gather(t, dim=%d, axis=%d, sizes=%s, after=%s, skip=%s)", st.MeshDim, a, sizes, after, per(func(_ int, g []int) string { return empty(g) })), nil
	case sbp.AllReduce:
		return fmt.Sprintf("all_reduce(t, dim=%d, op=%s)", st.MeshDim, pyStr(x.Op.String())), nil
	case sbp.ReduceScatter:
		return fmt.Sprintf("reduce_scatter(t, dim=%d, op=%s, axis=%d)", st.MeshDim, pyStr(x.Op.String()), y.Axis), nil
	case sbp.AllToAll:
		shapes := per(func(pos int, g []int) string {
			ci := slices.Index(g, pos)
			lo, hi := partRange(before(pos)[y.Axis], len(g), ci)
			parts := make([]string, len(g))
			for k, q := range g {
				s := slices.Clone(before(q))
				s[y.Axis] = hi - lo
				parts[k] = sbp.PyList(s)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		})
		return fmt.Sprintf("all_to_all(t, dim=%d, axis_in=%d, axis_out=%d, out_shapes=%s, skip=%s)", st.MeshDim, x.Axis, y.Axis, shapes, per(func(_ int, g []int) string { return empty(g) })), nil
	case sbp.LocalSlice:
		return fmt.Sprintf("local_slice(t, dim=%d, axis=%d)", st.MeshDim, y.Axis), nil
	case sbp.LocalZero:
		return fmt.Sprintf("local_zero(t, dim=%d, op=%s)", st.MeshDim, pyStr(y.Op.String())), nil
	case sbp.LocalPad:
		sizes := per(groupSizes(x.Axis))
		return fmt.Sprintf("local_pad(t, dim=%d, axis=%d, sizes=%s, op=%s)", st.MeshDim, x.Axis, sizes, pyStr(y.Op.String())), nil
	}
	return "", fmt.Errorf("unknown collective %q", st.Collective)
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

// pyVar is the main() variable that holds the step name's value.
func pyVar(name string) string { return "V[" + pyStr(name) + "]" }

// pyGroups spells every mesh dim's groups of positions: [[[0, 1]], …].
func pyGroups(v [][][]int) string {
	outer := make([]string, len(v))
	for i, gs := range v {
		inner := make([]string, len(gs))
		for j, g := range gs {
			inner[j] = sbp.PyList(g)
		}
		outer[i] = "[" + strings.Join(inner, ", ") + "]"
	}
	return "[" + strings.Join(outer, ", ") + "]"
}

// pyStr is s as a Python string literal (JSON's escapes are Python's).
func pyStr(s string) string { return strconv.Quote(s) }
