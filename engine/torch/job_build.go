package torch

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// builder makes a job step by step: each input's shards, each op's
// per-device arguments (sbp.PlanOp), each boxing's collectives
// (sbp.PlanBoxing). It knows every step's shape and SBP by name.
type builder struct {
	p      sbp.Placement
	job    job
	shards map[int][]tensor.Tensor // input step index → shard per position
	notes  []string
	shape  map[string]tensor.Shape
	sbp    map[string]sbp.NdSbp
}

func newBuilder(p sbp.Placement, timeoutS float64) *builder {
	b := &builder{p: p, shards: map[int][]tensor.Tensor{}, shape: map[string]tensor.Shape{}, sbp: map[string]sbp.NdSbp{}}
	b.job = job{Version: 1, World: p.Size(), Backend: "gloo", Device: "cpu", DType: "float32",
		Mesh: p.Hierarchy(), Ranks: p.Ranks(), TimeoutS: timeoutS, Save: []int{}}
	for m := range p.MeshRank() {
		b.job.Groups = append(b.job.Groups, p.Groups(m))
	}
	return b
}

func (b *builder) release() {
	for _, ts := range b.shards {
		for _, t := range ts {
			t.Release()
		}
	}
}

// add appends a step and records its name's shape and SBP.
func (b *builder) add(js jobStep, shape tensor.Shape, nd sbp.NdSbp) int {
	js.Index, js.Shape, js.Sbp = len(b.job.Steps), ints(shape), nd.String()
	if js.Reads == nil {
		js.Reads = []string{}
	}
	b.job.Steps = append(b.job.Steps, js)
	b.shape[js.Name], b.sbp[js.Name] = shape.Clone(), nd.Clone()
	return js.Index
}

// save asks the workers for the shards of step i.
func (b *builder) save(i int) {
	if !slices.Contains(b.job.Save, i) {
		b.job.Save = append(b.job.Save, i)
	}
}

// input lays full out on the placement by nd (inputShards).
func (b *builder) input(name string, full tensor.Tensor, nd sbp.NdSbp) error {
	shards, note, err := inputShards(full, b.p, nd)
	if err != nil {
		return err
	}
	if note != "" {
		b.notes = append(b.notes, fmt.Sprintf("input %s: %s", name, note))
	}
	b.shards[b.add(jobStep{Kind: string(planner.StepInput), Name: name}, full.Shape(), nd)] = shards
	return nil
}

// op appends op on the steps reads, laid out as in, its output laid out
// as out (sbp.PlanOpAs's rewrite per device), and returns its plan.
func (b *builder) op(name string, op sbp.Op, reads []string, in []sbp.NdSbp, out sbp.NdSbp) (sbp.OpPlan, error) {
	var shapes []tensor.Shape
	for i, r := range reads {
		sh, ok := b.shape[r]
		if !ok {
			return sbp.OpPlan{}, fmt.Errorf("it reads %s, which no earlier step defines", r)
		}
		if i < len(in) && !b.sbp[r].Equal(in[i]) {
			return sbp.OpPlan{}, fmt.Errorf("it takes %s as %v, but %s is %v", r, in[i], r, b.sbp[r])
		}
		shapes = append(shapes, sh)
	}
	plan, err := sbp.PlanOpAs(op, shapes, b.p, in, out)
	if err != nil {
		return sbp.OpPlan{}, err
	}
	spec := sbp.SpecOf(op)
	if spec == nil {
		return sbp.OpPlan{}, fmt.Errorf("no torch op for %q", op.Name())
	}
	par := sbp.Params(op)
	js := jobStep{Kind: string(planner.StepOp), Name: name, Reads: slices.Clone(reads), Op: par.Name}
	if par.Name == "reduce" {
		js.Reduce = par.Reduce.String()
	}
	x := make([]string, len(shapes))
	for i := range x {
		x[i] = fmt.Sprintf("x[%d]", i)
	}
	for r, rp := range plan.Ranks {
		local, err := plan.LocalInShapes(r)
		if err != nil {
			return sbp.OpPlan{}, err
		}
		a := rankArgs{OutShape: ints(rp.OutShape), OutStride: ints(rp.OutStride)}
		for _, sh := range local {
			a.InShapes = append(a.InShapes, ints(sh))
		}
		// the op on this rank's shards x, as an emitted torch file spells it
		a.Expr = spec.Local(par, x, func(get func(sbp.RankPlan) []int) string { return sbp.PyList(get(rp)) })
		js.Args = append(js.Args, a)
	}
	b.add(js, plan.OutShape, plan.OutSbp)
	return plan, nil
}

// addBoxing appends the boxing bx of the step read, one collective per
// sbp.Step of it; bx must start from the SBP read was left in.
func (b *builder) addBoxing(name, read string, bx sbp.Boxing) error {
	shape, ok := b.shape[read]
	if !ok {
		return fmt.Errorf("it boxes %s, which no earlier step defines", read)
	}
	if !bx.From.Equal(b.sbp[read]) || !bx.Shape.Equal(shape) {
		return fmt.Errorf("its boxing starts from %v %v, but %s is %v %v", bx.Shape, bx.From, read, shape, b.sbp[read])
	}
	js := jobStep{Kind: string(planner.StepBoxing), Name: name, Reads: []string{read}}
	for _, st := range bx.Steps {
		c := jobCollective{MeshDim: st.MeshDim, Collective: string(st.Collective), X: toJobSbp(st.From[st.MeshDim]), Y: toJobSbp(st.To[st.MeshDim])}
		for _, t := range st.Ranks {
			c.Before, c.After = append(c.Before, ints(t.Before)), append(c.After, ints(t.After))
		}
		js.Collectives = append(js.Collectives, c)
	}
	b.add(js, shape, bx.To)
	return nil
}

// buildJob turns plan into a job: every input's shards (cut from
// planner.InputValue, the value every engine makes), every op and every
// boxing as the plan has them, and the steps whose shards come back
// (save).
func buildJob(plan *planner.Plan, inputs planner.Values, save []int, timeoutS float64) (*builder, error) {
	b := newBuilder(plan.Program.Placement, timeoutS)
	for i, s := range plan.Steps {
		if err := b.step(s, inputs); err != nil {
			b.release()
			return nil, fmt.Errorf("torch engine: step %d (%s %s): %w", i, s.Kind, s.Name, err)
		}
	}
	for _, i := range save {
		b.save(i)
	}
	return b, nil
}

// step appends one plan step, and checks that the builder lays its
// output out as the plan says.
func (b *builder) step(s planner.Step, inputs planner.Values) error {
	nd := s.Out()
	switch s.Kind {
	case planner.StepInput:
		full, err := planner.InputValue(s, inputs)
		if err != nil {
			return err
		}
		defer full.Release()
		return b.input(s.Name, full, nd)
	case planner.StepOp:
		if s.Operation() == nil {
			return fmt.Errorf("the step has no op")
		}
		_, err := b.op(s.Name, s.Operation(), s.Reads(), s.InSbp, nd)
		return err
	case planner.StepBoxing:
		if r := s.Reads(); len(r) != 1 {
			return fmt.Errorf("a boxing reads one tensor, not %v", r)
		}
		bx, err := s.PlannedBoxing()
		if err != nil {
			return err
		}
		return b.addBoxing(s.Name, s.Reads()[0], bx)
	}
	return fmt.Errorf("unknown step kind %q", s.Kind)
}
