package lessons

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/kernelcheck"
	"github.com/stridelab/stridelab/viz"
)

// The truth tests: a question's answer, computed from the scene's model,
// must be what the kernels and sbp compute on their own. Index questions
// are checked against the CPU kernel run on arange inputs (whose values
// are their storage offsets); shard questions against sbp's shards of the
// layout the scene ends in.

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
	op, err := sbp.ParseOp(spec.Get("op"), sbp.OpArgs{Size: spec.Get("size"), Times: spec.Get("times"), To: spec.Get("to"), Reduce: spec.Get("reduce")})
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

// TestLessonFacts pins the numbers the lessons' texts quote, computed by
// tensor and sbp, so a lesson cannot drift from what the code does.
func TestLessonFacts(t *testing.T) {
	strides := func(shape, size []int) []int {
		l, _ := tensor.Contiguous(shape)
		v, err := l.Expand(size)
		if err != nil {
			t.Fatal(err)
		}
		return v.Strides()
	}
	// expand-repeat
	if got := strides([]int{4, 3, 1, 2}, []int{4, 3, 5, 2}); !slices.Equal(got, []int{6, 2, 0, 1}) {
		t.Errorf("expand [4 3 1 2] to [4 3 5 2]: strides %v", got)
	}
	if got := strides([]int{4, 3, 1, 2}, []int{-1, -1, 5, -1}); !slices.Equal(got, []int{6, 2, 0, 1}) {
		t.Errorf("expand [4 3 1 2] to [-1 -1 5 -1]: strides %v", got)
	}
	if got := strides([]int{4, 1, 3, 5}, []int{2, 1, 4, 4, 3, 5}); !slices.Equal(got, []int{0, 0, 15, 0, 5, 1}) {
		t.Errorf("expand [4 1 3 5] to [2 1 4 4 3 5]: strides %v", got)
	}
	for _, c := range []struct{ in, times, reshape, expand, out []int }{
		{[]int{5}, []int{3}, []int{1, 5}, []int{3, 5}, []int{15}},
		{[]int{3, 1, 5}, []int{5, 3, 1}, []int{1, 3, 1, 5}, []int{5, 3, 3, 5}, []int{15, 3, 5}},
		{[]int{3, 1, 5}, []int{2, 5, 3, 1}, []int{1, 3, 1, 5}, []int{2, 5, 3, 3, 5}, []int{2, 15, 3, 5}},
	} {
		p, err := tensor.PlanRepeat(c.in, c.times)
		if err != nil || !slices.Equal(p.InReshape, c.reshape) || !slices.Equal(p.ExpandSize, c.expand) || !slices.Equal(p.OutShape, c.out) {
			t.Errorf("repeat %v by %v: %+v, %v", c.in, c.times, p, err)
		}
	}
	// views: the reshape that must copy.
	copyScene, err := viz.Build(mustScene(t, "view --shape 2,3,4 --permute 2,0,1 --reshape 8,3"))
	if err != nil || !strings.Contains(copyScene.Title, "no single view exists") {
		t.Errorf("reshape of the permuted view: %v; want the scene of a reshape that must copy", err)
	}
	x, _ := tensor.Contiguous(tensor.Shape{2, 3, 4})
	permuted, _ := x.Permute([]int{2, 0, 1})
	if _, err := permuted.Reshape([]int{8, 3}); !errors.Is(err, tensor.ErrNeedsCopy) || !strings.Contains(err.Error(), "strides [1 12 4] cannot be regrouped into [8 3] without copying") {
		t.Errorf("tensor's reshape of the permuted view: %v", err)
	}
	// broadcast-backward: the bit strings and merged shapes.
	for _, c := range []struct {
		in, to []int
		bits   string
		merged []int
	}{
		{[]int{2, 2, 2, 2, 2}, []int{2, 2, 1, 2, 2}, "010", []int{4, 2, 4}},
		{[]int{2, 2, 2, 2, 2}, []int{1, 1, 2, 2, 1}, "101", []int{4, 4, 2}},
		{[]int{3, 4}, []int{1, 4}, "10", []int{3, 4}},
		{[]int{2, 3, 4}, []int{2, 1, 1}, "01", []int{2, 12}},
		{[]int{4, 3, 5, 2}, []int{1, 3, 1, 2}, "1010", []int{4, 3, 5, 2}},
	} {
		red, err := tensor.ReducedAxes(c.in, c.to)
		if err != nil {
			t.Fatal(err)
		}
		p := tensor.MergeReduceAxes(c.in, red)
		if p.Bits() != c.bits || !slices.Equal(p.Shape, c.merged) {
			t.Errorf("reduce %v to %v: bits %s over %v, want %s over %v", c.in, c.to, p.Bits(), p.Shape, c.bits, c.merged)
		}
	}
	// global-view: balanced splits and the per-device expand.
	for _, c := range []struct {
		sbp  string
		axis int
		want []int
	}{{"S(0)", 0, []int{7, 6, 6, 6}}, {"S(1)", 1, []int{9, 8, 8, 8}}} {
		nd, _ := sbp.ParseNd(c.sbp)
		p, _ := sbp.ParsePlacement("4")
		shards, err := sbp.Shards(tensor.Shape{25, 33}, p, nd)
		if err != nil {
			t.Fatal(err)
		}
		for i, sh := range shards {
			if sh.Shape[c.axis] != c.want[i] {
				t.Errorf("[25 33] as %s: rank %d has %v", c.sbp, sh.Rank, sh.Shape)
			}
		}
	}
	spec := mustScene(t, "plan --op expand --shape 4,3,1,2 --size 2,4,3,4,2 --sbp S(3) --placement 2")
	shape, p, out, err := finalLayout(spec)
	if err != nil || out.String() != "S(4)" || !slices.Equal(shape, []int{2, 4, 3, 4, 2}) {
		t.Fatalf("the planned expand: %v as %v on %v, %v", shape, out, p, err)
	}
	op, _ := sbp.ParseOp("expand", sbp.OpArgs{Size: "2,4,3,4,2"})
	nd, _ := sbp.ParseNd("S(3)")
	plan, err := sbp.PlanOp(op, []tensor.Shape{{4, 3, 1, 2}}, p, []sbp.NdSbp{nd})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range plan.Ranks {
		if !slices.Equal(r.InShape, []int{4, 3, 1, 1}) || !slices.Equal(r.InStride, []int{3, 1, 1, 1}) || !slices.Equal(r.ExpandSize, []int{2, 4, 3, 4, 1}) || !slices.Equal(r.OutStride, []int{0, 3, 1, 0, 1}) {
			t.Errorf("rank %d runs %+v", r.Rank, r)
		}
	}
}
