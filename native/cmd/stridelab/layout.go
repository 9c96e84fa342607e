package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// layoutReport is what `stridelab layout` prints, as text or JSON.
type layoutReport struct {
	Op        string       `json:"op"`
	InShape   tensor.Shape `json:"in_shape"`
	InStride  []int        `json:"in_stride"`
	Size      []int        `json:"size,omitempty"`  // expand
	Times     []int        `json:"times,omitempty"` // repeat
	InReshape tensor.Shape `json:"in_reshape,omitempty"`
	// The view the kernel reads: the expand itself, or for repeat the
	// input reshaped and expanded (read row-major, it is the output).
	ViewShape       tensor.Shape `json:"view_shape"`
	ViewStride      []int        `json:"view_stride"`
	OutShape        tensor.Shape `json:"out_shape"`
	OutStride       []int        `json:"out_stride"`
	CoalescedShape  tensor.Shape `json:"coalesced_shape"`
	CoalescedStride []int        `json:"coalesced_stride"`
	Trace           traceJSON    `json:"trace"`
}

type traceJSON struct {
	OutIndex  []int      `json:"out_index"`
	ViewIndex []int      `json:"view_index"`
	Terms     []termJSON `json:"terms"`
	Offset    int        `json:"offset"`
	InIndex   []int      `json:"in_index"`
	Text      string     `json:"text"`
}

type termJSON struct {
	Dim       int  `json:"dim"`
	Index     int  `json:"index"`
	Stride    int  `json:"stride"`
	Broadcast bool `json:"broadcast"`
}

func runLayout(args []string, stdout, stderr io.Writer) error {
	op, args, err := leadWord(args, expandOrRepeat,
		"usage: stridelab layout expand --shape 4,1,3,5 --size 2,1,4,4,3,5 [--index ...] [--json]\n"+
			"       stridelab layout repeat --shape 3,1,5 --times 2,5,3,1 [--index ...] [--json]\n",
		usagef("say which op: layout expand or layout repeat"), stderr)
	if err != nil {
		return err
	}
	argName := map[string]string{"expand": "size", "repeat": "times"}[op]
	fs := newFlags("layout "+op, "--shape 4,1,3,5 --"+argName+" ... [--index i,j,...] [--json]", stderr)
	shapeFlag := fs.String("shape", "", "input shape (contiguous)")
	arg := fs.String(argName, "", map[string]string{"expand": "expand size", "repeat": "repeat counts"}[op])
	index := fs.String("index", "", "output index to trace (default: the last element)")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := required(map[string]string{"shape": *shapeFlag, argName: *arg}); err != nil {
		return err
	}
	shape, err := parseShapeFlag("shape", *shapeFlag)
	if err != nil {
		return err
	}
	list, err := parseList(argName, *arg)
	if err != nil {
		return err
	}
	in, err := tensor.Contiguous(shape)
	if err != nil {
		return err
	}
	rep := layoutReport{Op: op, InShape: shape, InStride: in.Strides()}
	var view tensor.Layout
	if op == "expand" {
		rep.Size = list
		if view, err = in.Expand(list); err != nil {
			return err
		}
		rep.OutShape = view.Shape()
	} else {
		rep.Times = list
		plan, err := tensor.PlanRepeat(shape, list)
		if err != nil {
			return err
		}
		if view, err = plan.View(in); err != nil {
			return err
		}
		rep.InReshape, rep.OutShape = plan.InReshape, plan.OutShape
	}
	rep.ViewShape, rep.ViewStride = view.Shape(), view.Strides()
	rep.OutStride = tensor.ContiguousStrides(rep.OutShape)
	cs, cst := tensor.Coalesce(view.Shape(), view.Strides())
	rep.CoalescedShape, rep.CoalescedStride = cs, cst[0]
	if rep.Trace, err = traceFor(*index, rep.OutShape, view, in); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printLayout(stdout, rep)
	return nil
}

// traceFor traces an output index through the view. The output and the
// view hold the same elements in the same row-major order, so the output's
// linear position picks the view index.
func traceFor(spec string, outShape tensor.Shape, view, in tensor.Layout) (traceJSON, error) {
	n, _ := outShape.NumElements()
	if n == 0 {
		return traceJSON{}, nil
	}
	idx := make([]int, len(outShape))
	if spec == "" {
		for d, s := range outShape {
			idx[d] = s - 1
		}
	} else {
		v, err := tensor.ParseInts("--index", spec)
		if err != nil {
			return traceJSON{}, usagef("%v", err)
		}
		if len(v) != len(outShape) {
			return traceJSON{}, usagef("--index %v has %d coordinates, the output %v has %d dims", v, len(v), outShape, len(outShape))
		}
		idx = v
	}
	k := 0
	for d, i := range idx {
		if i < 0 || i >= outShape[d] {
			return traceJSON{}, usagef("--index %v is outside the output %v at dim %d", idx, outShape, d)
		}
		k = k*outShape[d] + i
	}
	vs := view.Shape()
	vidx := make([]int, len(vs))
	for d := len(vs) - 1; d >= 0; d-- {
		vidx[d] = k % vs[d]
		k /= vs[d]
	}
	tr, err := view.Trace(vidx)
	if err != nil {
		return traceJSON{}, err
	}
	out := traceJSON{OutIndex: idx, ViewIndex: vidx, Offset: tr.Offset, Text: tr.String()}
	for _, t := range tr.Terms {
		out.Terms = append(out.Terms, termJSON{t.Dim, t.Index, t.Stride, t.Broadcast})
	}
	// The input index whose offset this is (input is contiguous).
	rem := tr.Offset
	st := in.Strides()
	out.InIndex = make([]int, in.Rank())
	for d := range out.InIndex {
		if in.Dim(d) > 1 {
			out.InIndex[d] = rem / st[d]
			rem %= st[d]
		}
	}
	return out, nil
}

func printLayout(w io.Writer, r layoutReport) {
	switch r.Op {
	case "expand":
		fmt.Fprintf(w, "expand %v to %v\n", r.InShape, r.Size)
	case "repeat":
		fmt.Fprintf(w, "repeat %v by %v\n", r.InShape, r.Times)
	}
	row := func(name string, shape tensor.Shape, stride []int) {
		fmt.Fprintf(w, "  %-10s shape %-22v strides %v\n", name, shape, stride)
	}
	row("input", r.InShape, r.InStride)
	if r.Op == "repeat" {
		fmt.Fprintf(w, "  as reshape %v -> expand %v -> reshape %v (the last reshape copies)\n", r.InReshape, r.ViewShape, r.OutShape)
		row("expanded", r.ViewShape, r.ViewStride)
	} else {
		row("view", r.ViewShape, r.ViewStride)
	}
	row("output", r.OutShape, r.OutStride)
	row("coalesced", r.CoalescedShape, r.CoalescedStride)
	var zero []string
	for d, s := range r.ViewStride {
		if s == 0 && r.ViewShape[d] != 1 {
			zero = append(zero, fmt.Sprint(d))
		}
	}
	if len(zero) > 0 {
		fmt.Fprintf(w, "  stride 0 on view dims %s: every index there reads the same input element\n", strings.Join(zero, ", "))
	}
	if r.Trace.Terms != nil || r.Trace.OutIndex != nil {
		fmt.Fprintf(w, "  trace: output %v = view %v\n         %s\n         = input %v\n", r.Trace.OutIndex, r.Trace.ViewIndex, r.Trace.Text, r.Trace.InIndex)
	}
}
