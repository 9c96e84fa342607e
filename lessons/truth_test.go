package lessons

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/kernelcheck"
	"github.com/stridelab/stridelab/viz"
)

// The truth tests: a question's answer, computed from the scene's model,
// must be what the kernels and sbp compute on their own. Index questions
// are checked against the CPU kernel run on arange inputs (whose values
// are their storage offsets); shard questions against sbp's shards of the
// layout the scene ends in; program questions against the program
// planned by sbp/program alone, its boxings' bytes against
// sbp.PlanBoxing's.

func TestAnswersAreTheKernels(t *testing.T) {
	ls, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, l := range ls {
		for _, st := range l.Steps {
			q := st.Question
			if q == nil {
				continue
			}
			sc, err := st.Build()
			if err != nil {
				t.Fatal(err)
			}
			a, err := q.Answer(sc)
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("%s: step %d: %s on %v", l.File, st.N, q.Spelled, st.Scene)
			switch q.Kind {
			case "reads", "readers":
				err = checkIndex(st.Scene, sc.Model().(*viz.IndexModel), q, a)
			case "boxes", "grad-sbp":
				err = checkProgram(st.Scene, q, a)
			default:
				err = checkShard(st.Scene, q, a)
			}
			if err != nil {
				t.Errorf("%s: %v", where, err)
			}
			checked++
		}
	}
	if checked < 12 {
		t.Fatalf("only %d questions checked", checked)
	}
}

// kernelRun runs the spec's kernel on the CPU over arange inputs
// (kernelcheck), so its output says what each cell read: its Reads for
// one input or binary, the sum of the offsets combined for reduce.
func kernelRun(spec viz.Spec) (kernelcheck.Output, error) {
	shape, err := tensor.ParseShape(spec.Get("shape"))
	if err != nil {
		return kernelcheck.Output{}, err
	}
	switch spec.Scene {
	case "expand":
		size, _ := tensor.ParseInts("size", spec.Get("size"))
		return kernelcheck.Expand(shape, size)
	case "repeat":
		times, _ := tensor.ParseInts("times", spec.Get("times"))
		return kernelcheck.Repeat(shape, times)
	case "view":
		v, err := tensor.Contiguous(shape)
		if err != nil {
			return kernelcheck.Output{}, err
		}
		if s := spec.Get("index"); s != "" {
			idx, _ := tensor.ParseIndices(s)
			if v, err = v.Slice(idx...); err != nil {
				return kernelcheck.Output{}, err
			}
		}
		if s := spec.Get("permute"); s != "" {
			perm, _ := tensor.ParseInts("permute", s)
			if v, err = v.Permute(perm); err != nil {
				return kernelcheck.Output{}, err
			}
		}
		if s := spec.Get("reshape"); s != "" {
			rs, _ := tensor.ParseInts("reshape", s)
			if v, err = v.Reshape(rs); err != nil {
				return kernelcheck.Output{}, err
			}
		}
		return kernelcheck.View(shape, v)
	case "binary":
		bShape, _ := tensor.ParseShape(spec.Get("b-shape"))
		return kernelcheck.Binary(shape, bShape)
	case "reduce":
		to, _ := tensor.ParseShape(spec.Get("to"))
		return kernelcheck.Reduce(tensor.Sum, shape, to)
	}
	return kernelcheck.Output{}, fmt.Errorf("no kernel for %s", spec.Scene)
}

func checkIndex(spec viz.Spec, m *viz.IndexModel, q *Question, a *Answer) error {
	kernel, err := kernelRun(spec)
	if err != nil {
		return err
	}
	switch q.Kind {
	case "reads":
		if spec.Scene == "reduce" {
			sum := 0
			for _, tg := range a.Targets {
				sum += tg.Offset
			}
			if got := kernel.At(q.About.Index); float64(sum) != got {
				return fmt.Errorf("the answer's offsets %v sum to %d; the kernel's sum over arange is %v", a.Targets, sum, got)
			}
			return nil
		}
		got := kernel.Reads(q.About.Index)
		var want []viz.Focus
		for _, op := range kernel.Operands() {
			if q.From == "" || q.From == op {
				want = append(want, viz.Focus{Kind: viz.FocusStorage, Operand: op, Offset: got[op]})
			}
		}
		if !sameTargets(a.Targets, want) {
			return fmt.Errorf("answer %v, the kernel reads %v", a.Targets, want)
		}
	case "readers":
		// Every drawn cell reads the asked element exactly when the
		// kernel's value there is its offset.
		var want []viz.Focus
		for _, c := range m.Cells {
			off, ok := kernel.Reads(c.Index)[q.About.Operand]
			if !ok {
				return fmt.Errorf("the kernel has no operand %s", q.About.Operand)
			}
			if off == q.About.Offset {
				want = append(want, viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: c.Index})
			}
		}
		if !sameTargets(a.Targets, want) {
			return fmt.Errorf("answer %v, the kernel's readers %v", a.Targets, want)
		}
	}
	return nil
}

// finalLayout is the shape and SBP a shard scene ends in, from sbp alone.
func finalLayout(spec viz.Spec) (tensor.Shape, sbp.Placement, sbp.NdSbp, error) {
	shape, err := tensor.ParseShape(spec.Get("shape"))
	if err != nil {
		return nil, sbp.Placement{}, nil, err
	}
	p, err := sbp.ParsePlacement(spec.Get("placement"))
	if err != nil {
		return nil, p, nil, err
	}
	switch spec.Scene {
	case "placement":
		nd, err := sbp.ParseNd(spec.Get("sbp"))
		return shape, p, nd, err
	case "boxing":
		nd, err := sbp.ParseNd(spec.Get("to"))
		return shape, p, nd, err
	}
	op, err := viz.ParseOp(spec.Get("op"), viz.OpArgs{Size: spec.Get("size"), Times: spec.Get("times"), To: spec.Get("to"), Reduce: spec.Get("reduce")})
	if err != nil {
		return nil, p, nil, err
	}
	shapes := []tensor.Shape{shape}
	in := []string{spec.Get("sbp")}
	if op.Arity() == 2 {
		b, _ := tensor.ParseShape(spec.Get("b-shape"))
		shapes = append(shapes, b)
		in = append(in, spec.Get("b-sbp"))
	}
	var nds []sbp.NdSbp
	for _, s := range in {
		nd, err := sbp.ParseNd(s)
		if err != nil {
			return nil, p, nil, err
		}
		nds = append(nds, nd)
	}
	plan, err := sbp.PlanOp(op, shapes, p, nds)
	return plan.OutShape, p, plan.OutSbp, err
}

func checkShard(spec viz.Spec, q *Question, a *Answer) error {
	shape, p, nd, err := finalLayout(spec)
	if err != nil {
		return err
	}
	shards, err := sbp.Shards(shape, p, nd)
	if err != nil {
		return err
	}
	var want []viz.Focus
	for _, sh := range shards {
		switch q.Kind {
		case "owner":
			in := true
			for d, i := range q.About.Index {
				in = in && i >= sh.Lo[d] && i < sh.Hi[d]
			}
			if in {
				want = append(want, viz.Focus{Kind: viz.FocusDevice, Rank: sh.Rank})
			}
		case "holds":
			if sh.Rank != q.About.Rank {
				continue
			}
			for d := range sh.Lo {
				if a.Ranges[d] != [2]int{sh.Lo[d], sh.Hi[d]} {
					return fmt.Errorf("answer %v, sbp's shard of rank %d is %v to %v", a.Ranges, sh.Rank, sh.Lo, sh.Hi)
				}
			}
			return nil
		}
	}
	if q.Kind == "holds" {
		return fmt.Errorf("sbp has no rank %d", q.About.Rank)
	}
	if !sameTargets(a.Targets, want) {
		return fmt.Errorf("answer %v, sbp's owners %v", a.Targets, want)
	}
	return nil
}

// planOf plans the program of a program scene's spec with sbp/program
// alone.
func planOf(spec viz.Spec) (*planner.Plan, error) {
	prog, err := program.Parse(spec.Get("src"))
	if err != nil {
		return nil, err
	}
	strategy := planner.Greedy
	if v := spec.Get("strategy"); v != "" {
		if strategy, err = planner.ParseStrategy(v); err != nil {
			return nil, err
		}
	}
	return planner.NewPlan(prog, strategy)
}

// checkProgram: a boxes answer is every boxing of the asked tensor (or
// making the asked copy), each sending what sbp.PlanBoxing says; a
// grad-sbp answer is the step that holds the input's gradient, laid out
// as the input is, with the op that computed it before it.
func checkProgram(spec viz.Spec, q *Question, a *Answer) error {
	plan, err := planOf(spec)
	if err != nil {
		return err
	}
	var want []viz.Focus
	switch q.Kind {
	case "boxes":
		for i, st := range plan.Steps {
			if st.Kind != planner.StepBoxing || (st.Tensor != q.Name && st.Name != q.Name) {
				continue
			}
			want = append(want, viz.Focus{Kind: viz.FocusStep, Offset: i})
			b, err := sbp.PlanBoxing(st.Shape, tensor.Float32, plan.Program.Placement, st.From, st.To)
			if err != nil {
				return err
			}
			if b.SendBytes != st.SendBytes {
				return fmt.Errorf("step %d boxes %s %v from %s to %s sending %d bytes; sbp.PlanBoxing says %d", i+1, st.Tensor, st.Shape, st.From, st.To, st.SendBytes, b.SendBytes)
			}
		}
	case "grad-sbp":
		in := plan.Program.Lookup(q.Name)
		if in == nil || in.Kind != program.Input {
			return fmt.Errorf("%s is not an input of the program", q.Name)
		}
		at := slices.IndexFunc(plan.Steps, func(st planner.Step) bool { return st.Pass == graph.Backward && st.Name == plan.Grads[q.Name] })
		if at < 0 {
			return fmt.Errorf("no step holds %s's gradient %s", q.Name, plan.Grads[q.Name])
		}
		st := plan.Steps[at]
		out := map[planner.StepKind]sbp.NdSbp{planner.StepBoxing: st.To, planner.StepOp: st.OutSbp, planner.StepInput: st.Sbp}[st.Kind]
		if !out.Equal(in.Sbp) {
			return fmt.Errorf("step %d leaves %s's gradient as %s, not as %s is (%s)", at+1, q.Name, out, q.Name, in.Sbp)
		}
		if st.Kind == planner.StepBoxing && !slices.ContainsFunc(plan.Steps[:at], func(op planner.Step) bool { return op.Kind == planner.StepOp && op.Name == st.Tensor }) {
			return fmt.Errorf("step %d boxes %s, which no op before it computes", at+1, st.Tensor)
		}
		want = []viz.Focus{{Kind: viz.FocusStep, Offset: at}}
	}
	if !sameTargets(a.Targets, want) {
		return fmt.Errorf("answer %v, sbp/program's plan %v", a.Targets, want)
	}
	return nil
}

func sameTargets(a, b []viz.Focus) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range a {
		if !slices.ContainsFunc(b, t.Equal) {
			return false
		}
	}
	return true
}

// TestLessonFacts computes the numbers the lessons' texts quote (strides,
// shapes, repeat plans, bit strings, block sizes, per-device rewrites)
// with tensor and sbp, and finds each, in the words of its sentence, in
// the lesson's Markdown: a lesson cannot drift from what the code does,
// and a change to the code that moves a number fails here until the
// lesson says the new one.
func TestLessonFacts(t *testing.T) {
	facts := map[string][]string{} // lesson ID → what its text must say
	say := func(id, format string, args ...any) { facts[id] = append(facts[id], fmt.Sprintf(format, args...)) }
	must := func(l tensor.Layout, err error) tensor.Layout {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	contiguous := func(shape ...int) tensor.Layout { return must(tensor.Contiguous(shape)) }

	// expand-repeat: the article's expands.
	x := contiguous(4, 3, 1, 2)
	e := must(x.Expand([]int{4, 3, 5, 2}))
	say("expand-repeat", "OneFlow's article expands %s to %s. The input's contiguous strides are %s", code(x.Shape()), code(e.Shape()), code(x.Strides()))
	say("expand-repeat", "The output's strides are %s: the %d stored numbers are read %d times each", code(e.Strides()), x.NumElements(), e.NumElements()/x.NumElements())
	spellings := [][]int{{-1, 3, 5, 2}, {-1, -1, 5, -1}, {4, -1, 5, 2}}
	for _, size := range spellings {
		if v := must(x.Expand(size)); !slices.Equal(v.Shape(), e.Shape()) || !slices.Equal(v.Strides(), e.Strides()) {
			t.Errorf("expand %v to %v gives %v strides %v, not the expand to %v", x.Shape(), size, v.Shape(), v.Strides(), e.Shape())
		}
	}
	say("expand-repeat", "%s, %s, %s and so on all give %s", code(spellings[0]), code(spellings[1]), code(spellings[2]), code(e.Shape()))
	if _, err := x.Expand([]int{4, 5, 1, 2}); err == nil {
		t.Errorf("expand %v to [4 5 1 2]: no error", x.Shape())
	}
	say("expand-repeat", "expanding %s to %s is an error", code(x.Shape()), code([]int{4, 5, 1, 2}))
	x = contiguous(4, 1, 3, 5)
	e = must(x.Expand([]int{2, 1, 4, 4, 3, 5}))
	say("expand-repeat", "expands %s (strides %s) to %s. The output strides are %s", code(x.Shape()), code(x.Strides()), code(e.Shape()), code(e.Strides()))
	// expand-repeat: the repeat plans.
	plan := func(in, times []int) tensor.RepeatPlan {
		p, err := tensor.PlanRepeat(in, times)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan([]int{5}, []int{3})
	say("expand-repeat", "repeating %s %d times gives %s", code([]int{5}), 3, code(p.OutShape))
	say("expand-repeat", "reshape %s to %s: a view, nothing moves", code([]int{5}), code(p.InReshape))
	say("expand-repeat", "expand %s to %s: a view with stride 0", code(p.InReshape), code(p.ExpandSize))
	say("expand-repeat", "reshape %s to %s: this one has to copy", code(p.ExpandSize), code(p.OutShape))
	say("expand-repeat", "view the gradient %s as the expanded %s, then sum over the broadcast dim back to %s", code(p.OutShape), code(p.ExpandSize), code(p.InReshape))
	p = plan([]int{3, 1, 5}, []int{5, 3, 1})
	say("expand-repeat", "repeats %s by %s, giving %s", code([]int{3, 1, 5}), code([]int{5, 3, 1}), code(p.OutShape))
	say("expand-repeat", "reshape %s to %s; - expand to %s (a size-1 dim simply expands to its repeat count); - reshape to %s.", code([]int{3, 1, 5}), code(p.InReshape), code(p.ExpandSize), code(p.OutShape))
	p = plan([]int{3, 1, 5}, []int{2, 5, 3, 1})
	say("expand-repeat", "repeating %s by %s gives %s, two copies of the previous result. The expanded view is %s", code([]int{3, 1, 5}), code([]int{2, 5, 3, 1}), code(p.OutShape), code(p.ExpandSize))

	// views: a reshape that stays a view, and one that must copy.
	idx, _ := tensor.ParseIndices(":, 0:6:2")
	cols := must(contiguous(4, 6).Slice(idx...))
	split := must(cols.Reshape([]int{2, 2, 3}))
	say("views", "Take every other column of a %s tensor (`:, 0:6:2`, strides %s) and reshape the %s view to %s. Splitting dim 0 gives strides %s", code([]int{4, 6}), code(cols.Strides()), code(cols.Shape()), code(split.Shape()), code(split.Strides()))
	permuted := must(contiguous(2, 3, 4).Permute([]int{2, 0, 1}))
	say("views", "The permuted view %s has strides %s. Reshaping it to %s merges dims 0 and 1", code(permuted.Shape()), code(permuted.Strides()), code([]int{8, 3}))
	refusal := fmt.Sprintf("strides %v cannot be regrouped into %v without copying", permuted.Strides(), []int{8, 3})
	if _, err := permuted.Reshape([]int{8, 3}); !errors.Is(err, tensor.ErrNeedsCopy) || !strings.Contains(err.Error(), refusal) {
		t.Errorf("tensor's reshape of the permuted view: %v, want ErrNeedsCopy saying %q", err, refusal)
	}
	say("views", "stridelab's layout refuses to make it a view (`%s`)", refusal)
	const copyLine = "view --shape 2,3,4 --permute 2,0,1 --reshape 8,3"
	if sc, err := viz.Build(mustScene(t, copyLine)); err != nil || !strings.Contains(sc.Title, "no single view exists") {
		t.Errorf("%s: %v; want the scene of a reshape that must copy", copyLine, err)
	}
	say("views", "the scene `%s` draws the copy it must make", copyLine)

	// broadcast-backward: the bit strings and merged shapes.
	reduce := func(in, to []int) (bits, merged string, shape []int) {
		red, err := tensor.ReducedAxes(in, to)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range red {
			bits += map[bool]string{false: "0", true: "1"}[r]
		}
		m := tensor.MergeReduceAxes(in, red)
		return bits, m.Bits(), m.Shape
	}
	all2 := []int{2, 2, 2, 2, 2}
	bits, merged, shape := reduce(all2, []int{2, 2, 1, 2, 2})
	say("broadcast-backward", "For `x` (%s) that is axis 2 only. Label each axis 1 if it is reduced and 0 if not: the bit string is `%s`. Runs of equal bits merge into one axis, so the kernel sees the gradient as %s, bits `%s`", code([]int{2, 2, 1, 2, 2}), bits, code(shape), merged)
	bits, merged, shape = reduce(all2, []int{1, 1, 2, 2, 1})
	say("broadcast-backward", "For `y` (%s) the broadcast axes are 0, 1 and 4: bits `%s`. Merging the runs gives `%s` and the gradient seen as %s", code([]int{1, 1, 2, 2, 1}), bits, merged, code(shape))
	_, merged, _ = reduce([]int{3, 4}, []int{1, 4})
	say("broadcast-backward", "Here is case `%s` for a %s gradient", merged, code([]int{3, 4}))
	bits, merged, shape = reduce([]int{2, 3, 4}, []int{2, 1, 1})
	say("broadcast-backward", "%s summed to %s has bits `%s`, which merge to `%s`: the gradient is seen as %s", code([]int{2, 3, 4}), code([]int{2, 1, 1}), bits, merged, code(shape))
	bits, merged, shape = reduce([]int{4, 3, 5, 2}, []int{1, 3, 1, 2})
	if bits != merged || !slices.Equal(shape, []int{4, 3, 5, 2}) {
		t.Errorf("reduce [4 3 5 2] to [1 3 1 2]: bits %s merge to %s over %v; the lesson says nothing merges", bits, merged, shape)
	}
	say("broadcast-backward", "%s summed to %s alternates already (`%s`), so nothing merges", code([]int{4, 3, 5, 2}), code([]int{1, 3, 1, 2}), merged)

	// global-view: balanced splits and the per-device expand.
	splits := func(sbpName string, axis int) (sizes, blocks string) {
		four, _ := sbp.ParsePlacement("4")
		nd, _ := sbp.ParseNd(sbpName)
		shards, err := sbp.Shards(tensor.Shape{25, 33}, four, nd)
		if err != nil {
			t.Fatal(err)
		}
		var n, b []string
		for _, sh := range shards {
			n = append(n, strconv.Itoa(sh.Shape[axis]))
			b = append(b, fmt.Sprintf("%d–%d", sh.Lo[axis], sh.Hi[axis]-1))
		}
		return listOf(n, "and"), listOf(b, "and")
	}
	sizes, blocks := splits("S(0)", 0)
	say("global-view", "A %s tensor split along axis 0 over 4 devices gives blocks of %s rows.", code([]int{25, 33}), sizes)
	say("global-view", "The blocks are rows %s.", blocks)
	sizes, blocks = splits("S(1)", 1)
	say("global-view", "Columns are dealt out as %s.", sizes)
	say("global-view", "After boxing the column decides: columns %s.", blocks)
	spec := mustScene(t, "plan --op expand --shape 4,3,1,2 --size 2,4,3,4,2 --sbp S(3) --placement 2")
	outShape, two, out, err := finalLayout(spec)
	if err != nil {
		t.Fatal(err)
	}
	op := sbp.Expand([]int{2, 4, 3, 4, 2})
	nd, _ := sbp.ParseNd("S(3)")
	rewrite, err := sbp.PlanOp(op, []tensor.Shape{{4, 3, 1, 2}}, two, []sbp.NdSbp{nd})
	if err != nil {
		t.Fatal(err)
	}
	r0 := rewrite.Ranks[0]
	for _, r := range rewrite.Ranks {
		if !slices.Equal(r.InShape, r0.InShape) || !slices.Equal(r.InStride, r0.InStride) || !slices.Equal(r.ExpandSize, r0.ExpandSize) || !slices.Equal(r.OutStride, r0.OutStride) {
			t.Errorf("rank %d runs %+v, rank %d %+v; the lesson says every device runs the same", r.Rank, r, r0.Rank, r0)
		}
	}
	tooBig := slices.Clone(outShape)
	tooBig[4] *= len(rewrite.Ranks)
	say("global-view", "%s expanded to %s with the input split along axis 3 over %d devices", code([]int{4, 3, 1, 2}), code(outShape), len(rewrite.Ranks))
	say("global-view", "Each device holds %s, with strides %s. If it kept the logical size %s, each device would make a last dim of 2 and the output would be %s, too big. So the size becomes %s on each device, with output strides %s, and the output is split along its axis %s.",
		code(r0.InShape), code(r0.InStride), code(outShape), code(tooBig), code(r0.ExpandSize), code(r0.OutStride), strings.Trim(out.String(), "S()"))

	// program: the signatures, SBPs, blocks and bytes of the lesson's own
	// programs, planned by sbp/program.
	ls, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	plans := map[int]*planner.Plan{} // by the lesson's step
	planned := func(n int) *planner.Plan {
		t.Helper()
		if plans[n] == nil {
			p, err := planOf(Find(ls, "program").Steps[n-1].Scene)
			if err != nil {
				t.Fatal(err)
			}
			plans[n] = p
		}
		return plans[n]
	}
	step := func(p *planner.Plan, kind planner.StepKind, name string) planner.Step {
		t.Helper()
		for _, st := range p.Steps {
			if st.Kind == kind && (st.Name == name || kind == planner.StepBoxing && st.Tensor == name) {
				return st
			}
		}
		t.Fatalf("the plan has no %s step %s", kind, name)
		return planner.Step{}
	}
	block := func(p *planner.Plan, name string, axis int) int {
		t.Helper()
		in := p.Program.Lookup(name)
		shards, err := sbp.Shards(in.Shape, p.Program.Placement, in.Sbp)
		if err != nil {
			t.Fatal(err)
		}
		return shards[0].Shape[axis]
	}
	dp := planned(1)
	allReduce := step(dp, planner.StepBoxing, "grad_w")
	if allReduce.SendBytes != dp.TotalSendBytes || !slices.Equal(allReduce.Collectives, []string{"all-reduce"}) {
		t.Errorf("data parallel: the boxing of w's gradient (%v, %d B) is not the plan's only traffic (%d B)", allReduce.Collectives, allReduce.SendBytes, dp.TotalSendBytes)
	}
	say("program", "Here `y = matmul x w` runs as `%s`: each device multiplies its own rows", step(dp, planner.StepOp, "y").Signature)
	say("program", "But each device holds only its own %d rows of the batch.", block(dp, "x", 0))
	say("program", "This is the all-reduce of data-parallel training, and the program's only traffic (%s).", tensor.FormatBytes(allReduce.SendBytes))
	say("program", "`grad_y` is split by rows. The gradient of `x` is then `grad_y · wᵀ`, a matmul with its `transpose_b` flag")
	if st := step(dp, planner.StepOp, "grad_y"); st.Op != "broadcast_like" || st.OutSbp.String() != "S(0)" {
		t.Errorf("data parallel: grad_y is %s → %v; the lesson says broadcast_like lays it out S(0)", st.Op, st.OutSbp)
	}
	mp := planned(4)
	say("program", "`w = input 32,16 S(1)` gives each device a block of %d columns", block(mp, "w", 1))
	say("program", "`y = matmul x w` runs as `%s`, again with no boxing.", step(mp, planner.StepOp, "y").Signature)
	mpw := step(mp, planner.StepBoxing, "w")
	if mpw.SendBytes != mp.TotalSendBytes || mp.Grads["x"] != "grad_x.y" {
		t.Errorf("model parallel: the boxing of w (%d B) is not the plan's only traffic (%d B), or x's gradient is boxed (%s)", mpw.SendBytes, mp.TotalSendBytes, mp.Grads["x"])
	}
	say("program", "The exact plan lays `grad_y` out whole (`broadcast_like` also has `%s`) and %ss `w` to `%s` first, %s, so the gradient of `x` comes out `%s`",
		step(mp, planner.StepOp, "grad_y").Signature, strings.Join(mpw.Collectives, " + "), mpw.To, tensor.FormatBytes(mpw.SendBytes), step(mp, planner.StepOp, "grad_x.y").OutSbp)
	gather := step(planned(5), planner.StepBoxing, "w")
	say("program", "Only w moves: an %s of %s.", strings.Join(gather.Collectives, " + "), tensor.FormatBytes(gather.SendBytes))
	mesh := planned(6)
	say("program", "`y` runs as `%s` with no boxing.", step(mesh, planner.StepOp, "y").OutSbp)
	meshW := step(mesh, planner.StepBoxing, "grad_w")
	say("program", "In the backward the gradient of `w` comes out `%s`", meshW.From)
	say("program", "brings it back to `%s`.", meshW.To)
	say("program", "a %s, %s.", strings.Join(meshW.Collectives, " then an "), tensor.FormatBytes(meshW.SendBytes))
	greedy, exact := planned(7), planned(8)
	allReduceX := step(greedy, planner.StepBoxing, "grad_x")
	say("program", "It is an %s of the whole 64 × 32 gradient: greedy sends %s in all.", strings.Join(allReduceX.Collectives, " + "), tensor.FormatBytes(greedy.TotalSendBytes))
	say("program", "greedy lays `grad_y` out `%s`, as `y` is", step(greedy, planner.StepOp, "grad_y").OutSbp)
	say("program", "and runs as `%s`.", step(greedy, planner.StepOp, "grad_x.y").Signature)
	say("program", "its all-reduce back to `B` would send %s.", tensor.FormatBytes(allReduceX.SendBytes))
	say("program", "a %s all-gather of the weight instead of a %s all-reduce of the activations' gradient.", tensor.FormatBytes(exact.TotalSendBytes), tensor.FormatBytes(allReduceX.SendBytes))
	if exact.Strategy != planner.Exact || exact.GreedySendBytes != greedy.TotalSendBytes {
		t.Errorf("the exact step plans %s, greedy total %d; want exact and the greedy step's %d", exact.Strategy, exact.GreedySendBytes, greedy.TotalSendBytes)
	}
	say("program", "Exact sends %s in all, against greedy's %s", tensor.FormatBytes(exact.TotalSendBytes), tensor.FormatBytes(greedy.TotalSendBytes))

	// tensor-parallel: Megatron's MLP and sequence parallelism, their
	// blocks, signatures and collectives, planned by sbp/program.
	tp := func(n int) *planner.Plan {
		t.Helper()
		p, err := planOf(Find(ls, "tensor-parallel").Steps[n-1].Scene)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	collectives := func(p *planner.Plan) []string {
		var out []string
		for _, st := range p.Steps {
			if st.Kind == planner.StepBoxing && st.SendBytes > 0 {
				out = append(out, string(st.Pass)+" "+strings.Join(st.Collectives, " + "))
			}
		}
		return out
	}
	mlp, seq := tp(1), tp(5)
	if got := collectives(mlp); !slices.Equal(got, []string{"forward all-reduce", "backward all-reduce"}) {
		t.Errorf("Megatron's MLP runs %v; the lesson says one all-reduce each way", got)
	}
	if got := collectives(seq); !slices.Equal(got, []string{"forward all-gather", "forward reduce-scatter", "backward all-gather", "backward reduce-scatter", "backward all-reduce", "backward all-reduce"}) {
		t.Errorf("sequence parallelism runs %v; the lesson says an all-gather and a reduce-scatter each way, then the layer norm's weights' all-reduces", got)
	}
	var seqActivations int64 // the all-gathers and reduce-scatters: the layer norm's weights aside
	for _, st := range seq.Steps {
		if st.Kind == planner.StepBoxing && !slices.Contains(st.Collectives, "all-reduce") {
			seqActivations += st.SendBytes
		}
	}
	if mlp.GreedySendBytes != mlp.TotalSendBytes || seqActivations != mlp.TotalSendBytes {
		t.Errorf("Megatron sends %d B (greedy %d B), sequence parallelism's activations %d B: the lesson says greedy finds the same plan and the two send the same", mlp.TotalSendBytes, mlp.GreedySendBytes, seqActivations)
	}
	lnWeights := step(seq, planner.StepBoxing, "grad_gm")
	say("tensor-parallel", "%s for a scale of %d features", tensor.FormatBytes(lnWeights.SendBytes), seq.Program.Lookup("gm").Shape[1])
	say("tensor-parallel", "`h = matmul x w1` runs as `%s`, each device computing its own %d of the %d hidden features", step(mlp, planner.StepOp, "h").Signature, block(mlp, "w1", 1), mlp.Program.Lookup("w1").Shape[1])
	say("tensor-parallel", "multiplies each device's %d columns of `g` by its own %d rows of `w2`", block(mlp, "w2", 0), block(mlp, "w2", 0))
	say("tensor-parallel", "x.T · grad_h runs as %s", step(mlp, planner.StepOp, "grad_w1.h").Signature)
	say("tensor-parallel", "gives each device %d of the %d tokens", block(seq, "x", 0), seq.Program.Lookup("x").Shape[0])
	attn := tp(8)
	if got := collectives(attn); !slices.Equal(got, []string{"forward all-reduce", "backward all-reduce"}) {
		t.Errorf("attention runs %v; the lesson says one all-reduce each way", got)
	}
	heads := step(attn, planner.StepOp, "qh").Shape[1]
	say("tensor-parallel", "is 16 tokens of 32 features, %d heads of %d", heads, step(attn, planner.StepOp, "qh").Shape[2])
	say("tensor-parallel", "each device computes %d of the 32 features of `q`, `k` and `v`, one head's", block(attn, "wq", 1))
	for _, name := range []string{"a", "p", "o"} {
		if st := step(attn, planner.StepOp, name); st.OutSbp.String() != "S(0)" {
			t.Errorf("attention's %s runs as %s; the lesson says S(0) on the heads", name, st.Signature)
		}
	}

	for _, id := range []string{"expand-repeat", "views", "broadcast-backward", "global-view", "program", "tensor-parallel"} {
		src, err := fs.ReadFile(files, id+".md")
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(src)), " ")
		if len(facts[id]) == 0 {
			t.Errorf("%s.md: no facts checked", id)
		}
		for _, f := range facts[id] {
			if !strings.Contains(text, f) {
				t.Errorf("lessons/%s.md does not say %q, which tensor and sbp compute", id, f)
			}
		}
	}
}

// code spells v as the lessons quote a shape or strides: `[6, 2, 0, 1]`.
func code(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	return "`[" + strings.Join(parts, ", ") + "]`"
}
