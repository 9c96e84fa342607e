package viz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/kernelcheck"
)

// The truth tests: a scene's meaning must be what the kernels compute.
// Every index scene is checked against the CPU kernel run on arange inputs
// (whose values are their own storage offsets), and every shard scene
// against sbp's own shards and boxing plans.

func shapeStr(s tensor.Shape) string {
	if len(s) == 0 {
		return "()"
	}
	return joinInts(s)
}

// randomShape has rank 0..4 and sizes drawn from 0, 1, 2, 3, 5 and 17
// (mostly non-zero).
func randomShape(r *rand.Rand) tensor.Shape {
	sizes := []int{1, 1, 2, 3, 5, 17, 0}
	s := make(tensor.Shape, r.IntN(5))
	for d := range s {
		s[d] = sizes[r.IntN(len(sizes)-1)]
		if r.IntN(30) == 0 {
			s[d] = 0
		}
	}
	return s
}

// indexSpecs is a sweep over the layouts the conformance suite covers:
// expands with new leading dims and -1, repeats, broadcast binary ops,
// reductions to every target, and views by slices, permutes and reshapes.
func indexSpecs(r *rand.Rand, n int) []Spec {
	var out []Spec
	for len(out) < n {
		shape := randomShape(r)
		sh := shapeStr(shape)
		switch r.IntN(5) {
		case 0:
			size := make([]int, r.IntN(2))
			for i := range size {
				size[i] = 1 + r.IntN(3)
			}
			for _, d := range shape {
				switch {
				case d == 1:
					size = append(size, 1+r.IntN(4))
				case r.IntN(2) == 0:
					size = append(size, -1)
				default:
					size = append(size, d)
				}
			}
			out = append(out, Spec{Scene: "expand", Values: map[string]string{"shape": sh, "size": shapeStr(size)}})
		case 1:
			times := make([]int, len(shape)+r.IntN(2))
			for i := range times {
				times[i] = 1 + r.IntN(3)
			}
			out = append(out, Spec{Scene: "repeat", Values: map[string]string{"shape": sh, "times": shapeStr(times)}})
		case 2:
			b := make(tensor.Shape, 0, len(shape))
			for _, d := range shape[r.IntN(len(shape)+1):] {
				if r.IntN(2) == 0 {
					d = 1
				}
				b = append(b, d)
			}
			a, bb := shape, b
			if r.IntN(2) == 0 {
				a, bb = b, shape
			}
			op := tensor.BinaryOps()[r.IntN(2)*2] // add or mul
			out = append(out, Spec{Scene: "binary", Values: map[string]string{"shape": shapeStr(a), "b-shape": shapeStr(bb), "op": op.String()}})
		case 3:
			to := tensor.Shape{}
			for _, d := range shape[r.IntN(len(shape)+1):] {
				if r.IntN(2) == 0 {
					d = 1
				}
				to = append(to, d)
			}
			op := tensor.ReduceOps()[r.IntN(3)]
			if n, _ := shape.NumElements(); n == 0 && op != tensor.Sum {
				op = tensor.Sum
			}
			out = append(out, Spec{Scene: "reduce", Values: map[string]string{"shape": sh, "to": shapeStr(to), "op": op.String()}})
		case 4:
			v := map[string]string{"shape": sh}
			var idx []string
			for _, d := range shape {
				switch {
				case d > 2 && r.IntN(3) == 0:
					idx = append(idx, fmt.Sprintf("%d:%d:%d", r.IntN(2), d, 1+r.IntN(2)))
				case d > 0 && r.IntN(4) == 0:
					idx = append(idx, fmt.Sprint(r.IntN(d)))
				case r.IntN(5) == 0:
					idx = append(idx, "::-1")
				default:
					idx = append(idx, ":")
				}
			}
			if r.IntN(3) == 0 {
				idx = append(idx, "None")
			}
			if len(idx) > 0 {
				v["index"] = strings.Join(idx, ", ")
			}
			if len(shape) > 1 && r.IntN(2) == 0 && v["index"] == "" {
				v["permute"] = joinInts(r.Perm(len(shape)))
			}
			if v["index"] == "" && v["permute"] == "" && len(shape) > 0 {
				v["reshape"] = "-1"
			}
			out = append(out, Spec{Scene: "view", Values: v})
		}
	}
	return out
}

func TestIndexScenesReadWhatTheKernelsCompute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, spec := range indexSpecs(r, 600) {
		s, err := Build(spec)
		if err != nil {
			continue // an invalid combination: the kernel refuses it too
		}
		m := s.Model().(*IndexModel)
		got, err := kernelValues(spec, m)
		if err != nil {
			t.Fatalf("%v: the scene built but the kernel says %v", spec, err)
		}
		for _, c := range m.Cells {
			if err := got(c); err != nil {
				t.Fatalf("%v: cell %v reads %v: %v", spec, c.Index, c.Reads, err)
			}
		}
		checked++
	}
	if checked < 300 {
		t.Fatalf("only %d of 600 specs built: the sweep is too narrow", checked)
	}
	t.Logf("%d index scenes agree with the CPU kernels", checked)
}

// kernelValues runs the scene's kernel on the CPU over arange inputs
// (kernelcheck) and returns a checker of one cell's reads against the
// kernel's result.
func kernelValues(spec Spec, m *IndexModel) (func(CellReads) error, error) {
	shape, _ := tensor.ParseShape(spec.Get("shape"))
	var out kernelcheck.Output
	var err error
	switch spec.Scene {
	case "expand":
		size, _ := tensor.ParseInts("size", spec.Get("size"))
		out, err = kernelcheck.Expand(shape, size)
	case "repeat":
		times, _ := tensor.ParseInts("times", spec.Get("times"))
		out, err = kernelcheck.Repeat(shape, times)
	case "view":
		x, _ := tensor.Contiguous(shape)
		var v tensor.Layout
		if v, _, err = viewOf(spec, x); err == nil {
			out, err = kernelcheck.View(shape, v)
		}
	case "binary":
		bShape, _ := tensor.ParseShape(spec.Get("b-shape"))
		out, err = kernelcheck.Binary(shape, bShape)
	case "reduce":
		to, _ := tensor.ParseShape(spec.Get("to"))
		op, _ := tensor.ParseReduceOp(spec.Get("op"))
		if out, err = kernelcheck.Reduce(op, shape, to); err != nil {
			return nil, err
		}
		return func(c CellReads) error {
			v := out.At(c.Index)
			var agg float64
			for i, rd := range c.Reads {
				o := float64(rd.Offset)
				switch {
				case i == 0 && op != tensor.Sum:
					agg = o
				case op == tensor.Sum:
					agg += o
				case op == tensor.MaxAll:
					agg = max(agg, o)
				default:
					agg = min(agg, o)
				}
			}
			if agg != v {
				return fmt.Errorf("%v of the reads is %v, the kernel gives %v", op, agg, v)
			}
			return nil
		}, nil
	}
	if err != nil {
		return nil, err
	}
	return func(c CellReads) error {
		got := out.Reads(c.Index)
		var want []Read
		for _, op := range out.Operands() {
			want = append(want, Read{op, got[op]})
		}
		if !slices.Equal(c.Reads, want) {
			return fmt.Errorf("the kernel's output there is %v, which means %v", out.At(c.Index), want)
		}
		return nil
	}, nil
}

func TestShardScenesMatchSbp(t *testing.T) {
	cases := []Spec{
		{Scene: "placement", Values: map[string]string{"shape": "25,33", "sbp": "S(0)", "placement": "4"}},
		{Scene: "placement", Values: map[string]string{"shape": "8,6", "sbp": "(S(0), P)", "placement": "[[0,1],[2,3]]"}},
		{Scene: "placement", Values: map[string]string{"shape": "5,0,3", "sbp": "S(2)", "placement": "0-3"}},
		{Scene: "boxing", Values: map[string]string{"shape": "25,33", "from": "S(0)", "to": "S(1)", "placement": "4"}},
		{Scene: "boxing", Values: map[string]string{"shape": "16,32", "from": "(S(0), S(1))", "to": "(B, B)", "placement": "[[0,1],[2,3]]"}},
		{Scene: "boxing", Values: map[string]string{"shape": "13,17", "from": "P", "to": "S(1)", "placement": "4"}},
		{Scene: "plan", Values: map[string]string{"op": "expand", "shape": "4,3,1,2", "size": "2,4,3,4,2", "sbp": "S(3)", "placement": "3"}},
	}
	for _, spec := range cases {
		s, err := Build(spec)
		if err != nil {
			t.Fatalf("%v: %v", spec, err)
		}
		m := s.Model().(*ShardModel)
		shape, _ := tensor.ParseShape(spec.Get("shape"))
		p, _ := sbp.ParsePlacement(spec.Get("placement"))
		var last sbp.NdSbp
		switch spec.Scene {
		case "placement":
			last, _ = sbp.ParseNd(spec.Get("sbp"))
		case "boxing":
			from, _ := sbp.ParseNd(spec.Get("from"))
			last, _ = sbp.ParseNd(spec.Get("to"))
			b, _ := sbp.PlanBoxing(shape, tensor.Float32, p, from, last)
			if len(m.Steps) != len(b.Steps) {
				t.Fatalf("%v: %d steps, sbp plans %d", spec, len(m.Steps), len(b.Steps))
			}
			for k, st := range b.Steps {
				for i, tr := range st.Ranks {
					if m.Steps[k].SendBytes[i] != tr.SendBytes || m.Steps[k].RecvBytes[i] != tr.RecvBytes || m.Steps[k].Collective != string(st.Collective) {
						t.Errorf("%v step %d rank %d: %+v, sbp says %+v", spec, k, tr.Rank, m.Steps[k], tr)
					}
				}
			}
		case "plan":
			nd, _ := sbp.ParseNd(spec.Get("sbp"))
			size, _ := tensor.ParseInts("size", spec.Get("size"))
			plan, _ := sbp.PlanOp(sbp.Expand(size), []tensor.Shape{shape}, p, []sbp.NdSbp{nd})
			shape, last = plan.OutShape, plan.OutSbp
		}
		shards, _ := sbp.Shards(shape, p, last)
		if len(m.Ranks) != len(shards) {
			t.Fatalf("%v: %d ranks, sbp has %d shards", spec, len(m.Ranks), len(shards))
		}
		for i, sh := range shards {
			r := m.Ranks[i]
			if r.Rank != sh.Rank || !slices.Equal(r.Shape, sh.Shape) || (r.Partial != nil) != sh.Partial {
				t.Errorf("%v rank %d: %+v, sbp's shard %+v", spec, sh.Rank, r, sh)
			}
			for d := range sh.Lo {
				if r.Ranges[d] != [2]int{sh.Lo[d], sh.Hi[d]} {
					t.Errorf("%v rank %d axis %d: range %v, sbp's %d:%d", spec, sh.Rank, d, r.Ranges[d], sh.Lo[d], sh.Hi[d])
				}
			}
		}
	}
}
