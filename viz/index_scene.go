package viz

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// indexScene is every scene that maps output cells to storage offsets:
// expand, repeat, binary, reduce and view. The layouts come from tensor;
// the scene only lays them out and asks them.
type indexScene struct {
	spec     Spec
	title    string
	notes    []string // lines under the title: what the op does
	ops      []operand
	out      tensor.Shape
	outLabel string // the output grid's caption
	unravel  bool   // repeat: read the expanded view at the unravelled index
	reduced  []bool // reduce: the input dims reduced
	reduceOp tensor.ReduceOp
	kernel   []string // reduce: the merged runs and which of the 2·n kernels
	times    []int    // repeat: the repeat counts
	binOp    tensor.BinaryOp
	stages   []string // repeat: reshape → expand → reshape, one line each
	// repeat: the views the first frames show before the copy sweeps the
	// output (the reshaped input, then the expanded view); lead of them.
	stageViews []stageView
	lead       int
	// view: a reshape that no view can express: the shape asked for, and
	// why the layout drawn (the view before it) must be copied first.
	copyTo  []int
	whyCopy []string
	sweep   [][]int // the output cells drawn, in the kernel's order
	offset  int     // the storage offset whose readers are shown, or -1
}

func buildIndexScene(_ context.Context, spec Spec) (*Scene, error) {
	shape, err := tensor.ParseShape(spec.Get("shape"))
	if err != nil {
		return nil, onField("shape", err)
	}
	x, err := tensor.Contiguous(shape)
	if err != nil {
		return nil, onField("shape", err)
	}
	s := &indexScene{spec: spec, offset: -1}
	switch spec.Scene {
	case "expand":
		size, err := tensor.ParseInts("expand size", spec.Get("size"))
		if err != nil {
			return nil, onField("size", err)
		}
		v, err := x.Expand(size)
		if err != nil {
			return nil, onField("size", err, "shape")
		}
		s.ops, s.out = []operand{{"x", shape, v}}, v.Shape()
		s.title = fmt.Sprintf("expand %v → %v", shape, v.Shape())
		s.notes = append(s.notes, "a view: no copy, stride 0 on every broadcast dim", "strides "+fmt.Sprint(x.Strides())+" → "+fmt.Sprint(v.Strides()))
	case "repeat":
		times, err := tensor.ParseInts("repeat times", spec.Get("times"))
		if err != nil {
			return nil, onField("times", err)
		}
		plan, err := tensor.PlanRepeat(shape, times)
		if err != nil {
			return nil, onField("times", err, "shape")
		}
		v, err := plan.View(x)
		if err != nil {
			return nil, onField("times", err, "shape")
		}
		r, err := x.Reshape(plan.InReshape)
		if err != nil {
			return nil, onField("times", err, "shape")
		}
		s.ops, s.out, s.unravel, s.times = []operand{{"x", shape, v}}, plan.OutShape, true, times
		s.title = fmt.Sprintf("repeat %v by %v → %v", shape, times, plan.OutShape)
		bytes, _ := tensor.ResultBytes(tensor.Float32, plan.OutShape)
		s.stages = []string{
			fmt.Sprintf("1. reshape %v → %v: a view, 0 B", shape, plan.InReshape),
			fmt.Sprintf("2. expand → %v: a view, strides %v, 0 B", plan.ExpandSize, v.Strides()),
			fmt.Sprintf("3. reshape → %v: a copy, %s (float32)", plan.OutShape, tensor.FormatBytes(bytes)),
		}
		s.stageViews = []stageView{
			{r, fmt.Sprintf("stage 1: x.reshape(%v), strides %v: a view of the same storage, 0 B", plan.InReshape, r.Strides())},
			{v, fmt.Sprintf("stage 2: .expand(%v), strides %v: stride 0 copies nothing, 0 B; dashed: the same elements again", plan.ExpandSize, v.Strides())},
		}
		s.lead = len(s.stageViews)
		s.notes = append(s.notes, "reshape + expand + reshape: only the last step copies")
	case "binary":
		bShape, err := tensor.ParseShape(spec.Get("b-shape"))
		if err != nil {
			return nil, onField("b-shape", err)
		}
		opName := spec.Get("op")
		if opName == "" {
			opName = "add"
		}
		op, err := tensor.ParseBinaryOp(opName)
		if err != nil {
			return nil, onField("op", err)
		}
		out, err := tensor.BroadcastShapes(shape, bShape)
		if err != nil {
			return nil, onField("b-shape", err, "shape")
		}
		bl, err := tensor.Contiguous(bShape)
		if err != nil {
			return nil, onField("b-shape", err)
		}
		av, err := x.Expand(out)
		if err != nil {
			return nil, onField("b-shape", err, "shape")
		}
		bv, err := bl.Expand(out)
		if err != nil {
			return nil, onField("b-shape", err, "shape")
		}
		s.ops, s.out, s.binOp = []operand{{"a", shape, av}, {"b", bShape, bv}}, out, op
		s.title = fmt.Sprintf("%v %v and %v → %v", op, shape, bShape, out)
		s.notes = append(s.notes, "both operands right-aligned and expanded to the output (stride 0 where size 1); dashed: stretched copies",
			fmt.Sprintf("a strides %v, b strides %v", av.Strides(), bv.Strides()))
	case "reduce":
		to, err := tensor.ParseShape(spec.Get("to"))
		if err != nil {
			return nil, onField("to", err)
		}
		opName := spec.Get("op")
		if opName == "" {
			opName = "sum"
		}
		op, err := tensor.ParseReduceOp(opName)
		if err != nil {
			return nil, onField("op", err)
		}
		reduced, err := tensor.ReducedAxes(shape, to)
		if err != nil {
			return nil, onField("to", err, "shape")
		}
		pat := tensor.MergeReduceAxes(shape, reduced)
		s.ops, s.out, s.reduced, s.reduceOp = []operand{{"x", shape, x}}, to, reduced, op
		s.title = fmt.Sprintf("%v %v to %v", op, shape, to)
		first := "kept"
		if len(pat.Reduced) > 0 && pat.Reduced[0] {
			first = "reduced"
		}
		s.kernel = []string{
			fmt.Sprintf("reduced axes %s (1 = reduced); runs merged: %s over %v", tensor.AxisBits(reduced), pat.Bits(), pat.Shape),
			fmt.Sprintf("kernel: rank %d, first dim %s — one of 2·n kernels", len(pat.Shape), first),
		}
		s.notes = append(s.notes, s.kernel...)
		s.notes = append(s.notes, "expand's backward: each output cell combines every input cell that expand would copy it to")
	case "view":
		v, title, err := viewOf(spec, x)
		if errors.Is(err, tensor.ErrNeedsCopy) {
			s.copyTo, _ = tensor.ParseInts("reshape", spec.Get("reshape"))
			s.whyCopy = whyCopy(v, s.copyTo)
		} else if err != nil {
			return nil, err
		}
		s.ops, s.out = []operand{{"x", shape, v}}, v.Shape()
		s.title = title
		s.notes = append(s.notes, "one storage, read through offset "+fmt.Sprint(v.Base())+" and strides "+fmt.Sprint(v.Strides()))
		if s.copyTo != nil {
			s.notes[len(s.notes)-1] += "; the cells below are in the order reshape reads them"
		}
	}
	if o := spec.Get("offset"); o != "" {
		n, err := tensor.ParseInts("offset", o)
		storage, _ := s.ops[0].storage.NumElements()
		if err != nil || len(n) != 1 || n[0] < 0 || n[0] >= storage {
			return nil, onField("offset", fmt.Errorf("viz: --offset %q: give one storage offset of %s, from 0 to %d", o, s.ops[0].name, storage-1))
		}
		s.offset = n[0]
	}
	g := LayoutGrid(s.out, 1, DefaultBudget)
	for _, c := range g.Cells {
		s.sweep = append(s.sweep, c.Index)
	}
	m, err := s.model()
	if err != nil {
		return nil, err
	}
	steps := s.lead + max(1, len(s.sweep))
	return &Scene{Spec: spec, Title: s.title, Steps: steps, impl: s, model: m}, nil
}

// stageView is a view a lead frame draws, and what it says about it.
type stageView struct {
	view    tensor.Layout
	caption string
}

// sweepAt is the output cell the kernel is at on step: nil before the
// sweep starts (repeat's stages) or when the output is empty.
func (s *indexScene) sweepAt(step int) []int {
	if step < s.lead || len(s.sweep) == 0 {
		return nil
	}
	return s.sweep[min(step-s.lead, len(s.sweep)-1)]
}

// viewOf applies the view spec's ops to the contiguous layout x in the
// order index, permute, reshape, and names the result.
func viewOf(spec Spec, x tensor.Layout) (tensor.Layout, string, error) {
	v := x
	var parts []string
	if s := spec.Get("index"); s != "" {
		idx, err := tensor.ParseIndices(s)
		if err != nil {
			return v, "", onField("index", err)
		}
		if v, err = v.Slice(idx...); err != nil {
			return v, "", onField("index", err, "shape")
		}
		parts = append(parts, "["+tensor.FormatIndices(idx)+"]")
	}
	if s := spec.Get("permute"); s != "" {
		perm, err := tensor.ParseInts("permutation", s)
		if err != nil {
			return v, "", onField("permute", err)
		}
		if v, err = v.Permute(perm); err != nil {
			return v, "", onField("permute", err, "shape", "index")
		}
		parts = append(parts, fmt.Sprintf(".permute(%v)", perm))
	}
	if s := spec.Get("reshape"); s != "" {
		shape, err := tensor.ParseInts("reshape", s)
		if err != nil {
			return v, "", onField("reshape", err)
		}
		r, err := v.Reshape(shape)
		if err != nil { // v is the layout that could not be reshaped
			return v, fmt.Sprintf("x%s.reshape(%v) of x %v: no single view exists", strings.Join(parts, ""), shape, x.Shape()), onField("reshape", err, "shape", "index", "permute")
		}
		v = r
		parts = append(parts, fmt.Sprintf(".reshape(%v)", shape))
	}
	if len(parts) == 0 {
		parts = append(parts, " (the whole tensor)")
	}
	return v, fmt.Sprintf("x%s of x %v → %v", strings.Join(parts, ""), x.Shape(), v.Shape()), nil
}

// whyCopy explains, from v's strides, why reshaping v to shape needs a
// copy: the adjacent dims (of size > 1) whose strides do not chain
// (stride[d] = shape[d+1]·stride[d+1], the rule that lets dims merge)
// cannot be merged or regrouped by strides alone, so reshape must make v
// contiguous (a copy) and view the copy.
func whyCopy(v tensor.Layout, shape []int) []string {
	shape = slices.Clone(shape)
	if i := slices.Index(shape, -1); i >= 0 { // viewOf's Reshape checked it divides
		shape[i] = 1
		known := 1
		for _, n := range shape {
			known *= n
		}
		shape[i] = v.NumElements() / max(known, 1)
	}
	var dims []int
	for d := 0; d < v.Rank(); d++ {
		if v.Dim(d) > 1 {
			dims = append(dims, d)
		}
	}
	lines := []string{"dims merge when stride[d] = shape[d+1]·stride[d+1]", fmt.Sprintf("the layout %v, strides %v:", v.Shape(), v.Strides())}
	for k := 0; k+1 < len(dims); k++ {
		d, e := dims[k], dims[k+1]
		chain := v.Dim(e) * v.Stride(e)
		if v.Stride(d) == chain {
			lines = append(lines, fmt.Sprintf("  dims %d, %d chain: %d = %d·%d", d, e, v.Stride(d), v.Dim(e), v.Stride(e)))
		} else {
			lines = append(lines, fmt.Sprintf("  dims %d, %d do not: %d ≠ %d·%d = %d", d, e, v.Stride(d), v.Dim(e), v.Stride(e), chain))
		}
	}
	bytes, _ := tensor.ResultBytes(tensor.Float32, v.Shape())
	return append(lines,
		fmt.Sprintf("%v regroups dims that do not: no strides can", tensor.Shape(shape)),
		fmt.Sprintf("so reshape copies: .contiguous() writes %s (float32),", tensor.FormatBytes(bytes)),
		fmt.Sprintf("then .reshape(%v) views the copy (strides %v)", tensor.Shape(shape), tensor.ContiguousStrides(tensor.Shape(shape))),
	)
}
