package sbp

import (
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// Applied reports how Apply ran an op: the plan it ran and, per input, the
// boxing that brought the input to the plan's SBP ("none" when the input
// already had it).
type Applied struct {
	Plan   OpPlan   `json:"plan"`
	Boxing []Boxing `json:"boxing"`
}

// maxCandidates bounds the signatures Apply compares on deep meshes: the
// candidates are every combination of one signature per mesh dim.
const maxCandidates = 1 << 14

// Apply runs op on global tensors that share a placement and a backend.
// When the inputs' SBPs form a valid signature on every mesh dim it runs
// as they are; otherwise it boxes the inputs to the signature whose
// boxing sends the fewest bytes (ties go to the first in the op's list).
// Each device then runs the op on its shards with its own arguments
// (PlanOp), and the result is a global tensor whose full value equals the
// op's single-device result.
func Apply(op Op, in ...*Global) (*Global, Applied, error) {
	if len(in) != op.Arity() || len(in) == 0 {
		return nil, Applied{}, newError(ErrShape, op.String(), "takes %d inputs, got %d", op.Arity(), len(in))
	}
	shapes := make([]tensor.Shape, len(in))
	nds := make([]NdSbp, len(in))
	for i, g := range in {
		shapes[i], nds[i] = g.shape, g.nd
	}
	name := describe(op, shapes)
	for i, g := range in[1:] {
		if !g.placement.Equal(in[0].placement) {
			return nil, Applied{}, newError(ErrPlacement, name, "input %d is on %v but input 0 on %v; move it first", i+1, g.placement, in[0].placement)
		}
		if r, ok := op.(idsReader); ok && r.idsArg() == i+1 {
			if g.dtype != tensor.Int32 {
				return nil, Applied{}, newError(ErrShape, name, "input %d, the ids, is %v; ids are int32 row numbers", i+1, g.dtype)
			}
			continue
		}
		if g.dtype != in[0].dtype {
			return nil, Applied{}, newError(ErrShape, name, "input %d is %v but input 0 is %v", i+1, g.dtype, in[0].dtype)
		}
	}
	if _, err := checkInputs(op, shapes, in[0].placement, nds); err != nil {
		return nil, Applied{}, err
	}
	target, err := cheapest(op, shapes, in)
	if err != nil {
		return nil, Applied{}, err
	}
	plan, err := PlanOp(op, shapes, in[0].placement, target)
	if err != nil {
		return nil, Applied{}, err
	}
	applied := Applied{Plan: plan}
	boxed := make([]*Global, len(in))
	defer func() {
		for i, b := range boxed {
			if b != nil && b != in[i] {
				b.Release()
			}
		}
	}()
	for i, g := range in {
		boxed[i] = g
		if g.nd.Equal(target[i]) {
			b, _ := PlanBoxing(g.shape, g.dtype, g.placement, g.nd, g.nd)
			applied.Boxing = append(applied.Boxing, b)
			continue
		}
		b, bx, err := g.Box(target[i])
		if err != nil {
			return nil, Applied{}, err
		}
		boxed[i] = b
		applied.Boxing = append(applied.Boxing, bx)
	}
	out, err := runLocal(op, plan, boxed)
	return out, applied, err
}

// ApplyAs runs op on global tensors already laid out as one of its
// signatures, leaving the output as out (PlanOpAs): the step of a
// planned program, where the planner chose the output and boxed the
// inputs before. It boxes nothing; inputs that do not form a signature
// giving out are an ErrSignature error.
func ApplyAs(op Op, out NdSbp, in ...*Global) (*Global, error) {
	if len(in) != op.Arity() || len(in) == 0 {
		return nil, newError(ErrShape, op.String(), "takes %d inputs, got %d", op.Arity(), len(in))
	}
	shapes := make([]tensor.Shape, len(in))
	nds := make([]NdSbp, len(in))
	for i, g := range in {
		shapes[i], nds[i] = g.shape, g.nd
		if !g.placement.Equal(in[0].placement) {
			return nil, newError(ErrPlacement, describe(op, shapes), "input %d is on %v but input 0 on %v; move it first", i, g.placement, in[0].placement)
		}
	}
	plan, err := PlanOpAs(op, shapes, in[0].placement, nds, out)
	if err != nil {
		return nil, err
	}
	return runLocal(op, plan, in)
}

// idsReader is an op one of whose inputs, the argument idsArg, is int32
// ids (gather's, its backward's), whatever the dtype of the others.
type idsReader interface{ idsArg() int }

// likeReader is an op that reads one argument, likeArg, for its shape
// alone (OneFlow's like ops: broadcast_like, reduce_sum_like,
// unsorted_segment_sum_like): what that argument holds, and how it is
// laid out, never reaches the kernel.
type likeReader interface{ likeArg() int }

// LikeArg is the argument of op read for its shape alone, or −1.
func LikeArg(op Op) int {
	if r, ok := op.(likeReader); ok {
		return r.likeArg()
	}
	return -1
}

// IdsArg is the argument of op that holds int32 ids (gather's second),
// or −1 when every argument is of one dtype.
func IdsArg(op Op) int {
	if r, ok := op.(idsReader); ok {
		return r.idsArg()
	}
	return -1
}

// shardLocal is an op whose kernel must know where a device's shards lie
// in the logical tensors (gather: the rows of the table a device holds),
// and so runs by localShards, given each input's shard on the device,
// the inputs' logical shapes and the output's shard; its Local is the
// run of one device holding everything.
type shardLocal interface {
	localShards(be tensor.Backend, in []tensor.Tensor, shards []Shard, logical []tensor.Shape, out Shard) (tensor.Tensor, error)
}

// runLocal runs the op on every device's shards: the simulated devices'
// kernel calls.
func runLocal(op Op, plan OpPlan, in []*Global) (*Global, error) {
	p := in[0].placement
	shards, err := Shards(plan.OutShape, p, plan.OutSbp)
	if err != nil {
		return nil, err
	}
	if err := checkFootprint(plan.Op, plan.OutShape, in[0].dtype, p, plan.OutSbp); err != nil {
		return nil, err
	}
	out := &Global{shape: plan.OutShape, dtype: in[0].dtype, placement: p, nd: plan.OutSbp, shards: shards, be: in[0].be}
	logical := make([]tensor.Shape, len(in))
	for i, g := range in {
		logical[i] = g.shape
	}
	for r, sh := range shards {
		locals := make([]tensor.Tensor, len(in))
		inShards := make([]Shard, len(in))
		for i, g := range in {
			locals[i], inShards[i] = g.locals[r], g.shards[r]
		}
		var y tensor.Tensor
		if s, ok := op.(shardLocal); ok {
			y, err = s.localShards(out.be, locals, inShards, logical, sh)
		} else {
			y, err = op.Local(out.be, locals, sh.Shape)
		}
		if err == nil && !y.Shape().Equal(sh.Shape) {
			err = newError(ErrShape, plan.Op, "device %d produced %v but its output shard is %v (a bug in the rewrite)", r, y.Shape(), sh.Shape)
		}
		if err != nil {
			out.Release()
			return nil, fmt.Errorf("sbp: %s on device %d (rank %d): %w", plan.Op, r, sh.Rank, err)
		}
		out.locals = append(out.locals, y)
	}
	return out, nil
}

// cheapest returns the inputs' nd-SBPs of the valid signature that is
// cheapest to box to: the inputs' own when they already form one.
func cheapest(op Op, shapes []tensor.Shape, in []*Global) ([]NdSbp, error) {
	p := in[0].placement
	nds := make([]NdSbp, len(in))
	for i, g := range in {
		nds[i] = g.nd
	}
	if _, _, err := Infer(op, shapes, p, nds); err == nil {
		return nds, nil
	}
	cands, err := Candidates(op, shapes, p)
	if err != nil {
		return nil, err
	}
	var best []NdSbp
	bestCost := int64(-1)
	for _, c := range cands {
		if cost, ok := boxingCost(in, c.In); ok && (bestCost < 0 || cost < bestCost) {
			best, bestCost = c.In, cost
		}
	}
	if best == nil {
		return nil, newError(ErrSignature, describe(op, shapes)+" with "+formatNds(nds), "no signature is valid on %v", p)
	}
	return best, nil
}

// boxingCost is the bytes sent to box every input to cand.
func boxingCost(in []*Global, cand []NdSbp) (int64, bool) {
	var cost int64
	for i, g := range in {
		b, err := PlanBoxing(g.shape, g.dtype, g.placement, g.nd, cand[i])
		if err != nil {
			return 0, false
		}
		cost += b.SendBytes
	}
	return cost, true
}

// Candidate is one way an op can run on a mesh: the nd-SBP of each input,
// the output's, and the signature each mesh dim uses.
type Candidate struct {
	In  []NdSbp
	Out NdSbp
	Sig []Signature
}

// Candidates lists every valid way op can run on inputs of shapes on p:
// one signature per mesh dim, in the op's order (an odometer over its
// signature list, the last mesh dim fastest), each pair of input and
// output SBPs once, kept when the inputs and the output are valid on p.
// It is the full signature space: inputs that fit several signatures
// (expand's B -> B and B -> S(d), reduce's, a binary's) appear once per
// output they allow. A combination that does not hold on p
// (PlacementFault: a reshape's uneven split) is left out. Past
// maxCandidates combinations the op is refused.
func Candidates(op Op, shapes []tensor.Shape, p Placement) ([]Candidate, error) {
	sigs := op.Signatures(shapes)
	if len(sigs) == 0 {
		return nil, newError(ErrSignature, describe(op, shapes), "the op has no signature for these shapes")
	}
	combos := 1
	for range p.MeshRank() {
		if combos *= len(sigs); combos > maxCandidates {
			return nil, newError(ErrSignature, describe(op, shapes), "%d signatures on a %d-D mesh make more than %d combinations to compare", len(sigs), p.MeshRank(), maxCandidates)
		}
	}
	outShape, err := op.OutShape(shapes)
	if err != nil {
		return nil, err
	}
	var out []Candidate
	seen := map[string]bool{}
	valid := map[string]bool{} // an nd-SBP of one input (or the output), checked once
	var key []byte
	ok := func(which int, shape tensor.Shape, nd NdSbp) bool {
		key = AppendKey(append(key[:0], byte(which)), nd)
		v, done := valid[string(key)]
		if !done {
			v = Validate(shape, p, nd) == nil
			valid[string(key)] = v
		}
		return v
	}
	choice := make([]int, p.MeshRank())
	for {
		in := make([]NdSbp, op.Arity())
		for i := range in {
			in[i] = make(NdSbp, len(choice))
			for m, c := range choice {
				in[i][m] = sigs[c].In[i]
			}
		}
		o := make(NdSbp, len(choice))
		used := make([]Signature, len(choice))
		for m, c := range choice {
			o[m], used[m] = sigs[c].Out, sigs[c]
		}
		var k []byte
		for _, nd := range in {
			k = AppendKey(k, nd)
		}
		if k = AppendKey(k, o); !seen[string(k)] {
			seen[string(k)] = true
			good := ok(255, outShape, o)
			for i := range in {
				good = good && ok(i, shapes[i], in[i])
			}
			if good && PlacementFault(op, shapes, p, in, o) == "" {
				out = append(out, Candidate{In: in, Out: o, Sig: used})
			}
		}
		if !nextChoice(choice, len(sigs)) {
			break
		}
	}
	if len(out) == 0 {
		return nil, newError(ErrSignature, describe(op, shapes), "no signature is valid on %v", p)
	}
	return out, nil
}

// AppendKey appends to b a short spelling of nd that tells every nd-SBP
// apart (three bytes a mesh dim: kind, axis, op), for map keys where
// String's would cost more than the lookup.
func AppendKey(b []byte, nd NdSbp) []byte {
	for _, s := range nd {
		b = append(b, byte(s.Kind), byte(s.Axis), byte(s.Op))
	}
	return append(b, 0xff)
}

// nextChoice steps choice like an odometer over n signatures per mesh
// dim; it returns false after the last combination.
func nextChoice(choice []int, n int) bool {
	for m := len(choice) - 1; m >= 0; m-- {
		choice[m]++
		if choice[m] < n {
			return true
		}
		choice[m] = 0
	}
	return false
}
