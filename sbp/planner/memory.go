package planner

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// span is the steps, first to last inclusive, over which a step's value
// is held.
type span struct{ first, last int }

// spans returns when each step's value is held, by heldBytes' rule;
// finals names the steps that hold a final gradient.
func spans(steps []Step, finals map[string]bool) []span {
	out := make([]span, len(steps))
	end := len(steps) - 1
	def := map[string]int{} // a name → the step that made its current value
	for k, s := range steps {
		for _, a := range s.args {
			if j, ok := def[a]; ok {
				out[j].last = max(out[j].last, k)
			}
		}
		out[k] = span{k, k}
		switch {
		case s.Kind == StepInput && s.Pass == graph.Forward:
			out[k] = span{0, end}
		case finals[s.Name]:
			out[k].last = end
		}
		def[s.Name] = k
	}
	return out
}

// shardBytes is what each device holds of a tensor of shape laid out as
// nd on p, of elements of width bytes (heldBytes' bytes(i)), by position
// in the placement.
func shardBytes(shape tensor.Shape, width int64, p sbp.Placement, nd sbp.NdSbp) ([]int64, error) {
	shards, err := sbp.Shards(shape, p, nd)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(shards))
	for i, sh := range shards {
		n, err := tensor.ResultBytes(tensor.Float32, sh.Shape)
		if err != nil {
			return nil, err
		}
		out[i] = n / 4 * width
	}
	return out, nil
}

// valueBytes is what each device holds of step s's value (heldBytes'
// bytes(i)): its shard at its precision's width, or with zero2 (a final
// gradient under ZeRO-2) its elements split evenly over every device.
func valueBytes(p sbp.Placement, s Step, zero2 bool) ([]int64, error) {
	b, err := shardBytes(s.Shape, int64(s.Precision.Bytes()), p, s.Out())
	if zero2 {
		b, err = evenBytes(s.Shape, int64(s.Precision.Bytes()), p)
	}
	if err != nil {
		return nil, fmt.Errorf("what each device holds of %s %v as %s: %w", s.Name, s.Shape, s.Out(), err)
	}
	return b, nil
}

// heldBytes is the memory walk: held[k][i] is what the device at
// position i of p holds while step k runs (ZeRO's and FSDP's memory
// arithmetic, on a plan). A step's value is held over a span of steps,
// both ends included (spans):
//
//   - a program input from the first step to the last: it is held
//     before the program starts, and its storage is the program's;
//   - a final gradient (the step an input's gradient ends in, laid out
//     as the input, or a zero gradient; finals names them) from the step
//     that makes it to the last step: it is what the backward returns;
//   - every other value (an op's output, a boxed copy, the backward's
//     seed, a gradient on its way) from the step that makes it to the
//     last step that reads it (Step.Reads), or its own step alone when
//     nothing reads it. The backward reads forward values (matmul's
//     gradient reads its operands), so those are held until it has.
//
// On each device a value costs its shard's buffer, at its precision's
// width (Step.Precision: 4 bytes for f32 and i32, 2 for bf16 and f16):
//
//	bytes(i) = width · Π sbp.Shards(shape, p, sbp)[i].Shape
//
// so a split holds its balanced part (BalancedSplit: 10 rows on 3
// devices are 4, 3, 3; on a mesh each dim splits what the one before
// left), B the whole tensor on every device, and a partial the
// full-size buffer of its partial value. Then
//
//	held[k][i] = Σ bytes(i) over the values whose span holds k
//
// so the inputs an op reads and the output it writes count together:
// nothing is freed inside a step. Each value is added at the first step
// of its span and taken off after its last, so the walk is
// O((steps + values) · devices). A fault (a device holding past 2^63
// bytes: tensor.ErrOverflow) comes with the step it is found at.
func heldBytes(p sbp.Placement, steps []Step, finals map[string]bool, opt *program.Optimizer) (held [][]int64, at int, err error) {
	n := p.Size()
	state, err := optimizerState(p, steps, opt)
	if err != nil {
		return nil, 0, err
	}
	sp := spans(steps, finals)
	born := make([][]int, len(steps)) // step → the values whose span starts there
	freed := make([][]int, len(steps))
	for j, s := range sp {
		born[s.first] = append(born[s.first], j)
		freed[s.last] = append(freed[s.last], j)
	}
	shards := map[string][]int64{} // "shape sbp precision zero2" → valueBytes
	bytesOf := func(j int) ([]int64, error) {
		s := steps[j]
		zero2 := opt != nil && opt.ZeRO >= 2 && finals[s.Name]
		key := s.Shape.String() + " " + s.Out().String() + " " + s.Precision.String() + fmt.Sprint(zero2)
		if b, ok := shards[key]; ok {
			return b, nil
		}
		b, err := valueBytes(p, s, zero2)
		if err != nil {
			return nil, err
		}
		shards[key] = b
		return b, nil
	}
	flat := make([]int64, len(steps)*n) // one allocation for every step's row
	held = make([][]int64, len(steps))
	cur := slices.Clone(state) // the optimizer's state, held throughout
	for k := range steps {
		for _, j := range born[k] {
			b, err := bytesOf(j)
			if err != nil {
				return nil, j, err
			}
			for i := range cur {
				if cur[i] > math.MaxInt64-b[i] { // tensor.AddBytes's check, without spelling its op each time
					_, err := tensor.AddBytes(fmt.Sprintf("what rank %d holds at step %d", p.Rank(i), k+1), cur[i], b[i])
					return nil, k, err
				}
				cur[i] += b[i]
			}
		}
		held[k] = flat[k*n : (k+1)*n : (k+1)*n]
		copy(held[k], cur)
		for _, j := range freed[k] {
			b, _ := bytesOf(j) // cached when it was born
			for i := range cur {
				cur[i] -= b[i]
			}
		}
	}
	return held, 0, nil
}

// hold writes every step's HeldBytes into r's steps; the final gradients
// are those of the program's inputs (the step each resolves to). A
// fault names the statement behind its step, as the plan's errors do.
func (pl *planner) hold(r *run) error {
	for k := range r.steps {
		s := &r.steps[k]
		name := s.Name
		if s.Kind == StepBoxing {
			name = s.Tensor
		}
		if x, ok := pl.names[name]; ok {
			s.Precision = pl.prec[x]
		}
	}
	finals := map[string]bool{}
	for _, n := range pl.g.Nodes {
		if g, ok := pl.g.Grads[n.Name]; ok && n.Kind == graph.KindInput {
			finals[r.resolve(g)] = true
		}
	}
	held, at, err := heldBytes(pl.p, r.steps, finals, pl.g.Prog.Optimizer)
	if err != nil {
		return (&Plan{Program: pl.g.Prog}).StatementError(r.steps[at], err)
	}
	for k := range r.steps {
		r.steps[k].HeldBytes = held[k]
	}
	return nil
}

// finals names the steps of pl that hold a final gradient: every input's
// (Grads).
func (pl *Plan) finals() map[string]bool {
	out := map[string]bool{}
	for _, in := range pl.Program.Inputs() {
		if g, ok := pl.Grads[in.Name]; ok {
			out[g] = true
		}
	}
	return out
}

// MostHeld is the most any device holds at any step: the largest of
// Peak's.
func (pl *Plan) MostHeld() int64 {
	var most int64
	for _, s := range pl.Steps {
		for _, b := range s.HeldBytes {
			most = max(most, b)
		}
	}
	return most
}

// Peak returns the most each device holds at any step (HeldBytes; by
// position in the placement, as HeldBytes is) and the step where the
// largest of them is first reached, an index into Steps (-1 for a plan
// of no steps).
func (pl *Plan) Peak() (perRank []int64, step int) {
	step = -1
	var most int64 = -1
	for k, s := range pl.Steps {
		if perRank == nil {
			perRank = make([]int64, len(s.HeldBytes))
		}
		for i, b := range s.HeldBytes {
			perRank[i] = max(perRank[i], b)
			if b > most {
				most, step = b, k
			}
		}
	}
	return perRank, step
}

// MarshalJSON writes the plan's fields and, after them, its peak:
// peak_held_bytes (one per device) and peak_step (an index into steps),
// from Peak; memory, each device's parameters, gradients and optimizer
// state (Plan.Memory); and the optimizer statement, where there is one.
func (pl Plan) MarshalJSON() ([]byte, error) {
	type fields Plan // Plan's fields without this method
	peak, step := pl.Peak()
	var mem []Memory
	optimizer := ""
	if pl.Program != nil {
		mem, _ = pl.Memory() // its faults were the memory walk's, which planning reported
		if pl.Program.Optimizer != nil {
			optimizer = pl.Program.Optimizer.String()
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the caller's encoder escapes, or not, as it was told
	err := enc.Encode(struct {
		fields
		PeakHeldBytes []int64  `json:"peak_held_bytes"`
		PeakStep      int      `json:"peak_step"`
		Memory        []Memory `json:"memory,omitempty"`
		Optimizer     string   `json:"optimizer,omitempty"`
	}{fields(pl), peak, step, mem, optimizer})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// ErrCapacity is the sentinel of a plan whose devices would hold more
// than their memory (Plan.Capacity).
var ErrCapacity = errors.New("program: a device would hold more than its memory")

// capacityError is Capacity's refusal: what it names, and ErrCapacity.
type capacityError struct{ msg string }

func (e *capacityError) Error() string { return e.msg }
func (e *capacityError) Unwrap() error { return ErrCapacity }

// largestNamed is how many of the values held at the peak a refusal
// names, the largest first; the rest it counts.
const largestNamed = 3

// Capacity refuses a plan that some device cannot hold: when at some
// step a device holds more than capacity bytes (HeldBytes), it returns
// an *Error wrapping ErrCapacity that names the peak (Peak): the device
// holding the most there (by its rank), the step (numbered from 1, as
// the CLI's table numbers them), the largest values it holds there with
// their SBPs and bytes, and the capacity, device being what the caller
// calls one device ("H100"):
//
//	program: line 1, column 120: grad s: rank 3 holds 92.1 GiB at step 14 (h as S(1) 40.0 GiB, grad_h as B 40.0 GiB, w1 as S(1) 8.00 GiB and 5 more); each H100 has 80.0 GiB
//
// The statement is the step's, as for every program error (a step of
// the backward names the grad). It returns nil when every device fits.
func (pl *Plan) Capacity(capacity int64, device string) error {
	if capacity <= 0 {
		return &program.Error{Err: fmt.Errorf("a device's capacity is %d bytes: give a positive number", capacity)}
	}
	_, k := pl.Peak()
	if k < 0 {
		return nil
	}
	at := pl.Steps[k]
	rank := 0 // the position of the device holding the most at step k
	for i, b := range at.HeldBytes {
		if b > at.HeldBytes[rank] {
			rank = i
		}
	}
	if at.HeldBytes[rank] <= capacity {
		return nil
	}
	p := pl.Program.Placement
	type value struct {
		step  int
		bytes int64
	}
	var vals []value
	opt, finals := pl.Program.Optimizer, pl.finals()
	if state, err := optimizerState(p, pl.Steps, opt); err == nil && state[rank] > 0 {
		vals = append(vals, value{-1, state[rank]}) // step -1: the optimizer's state
	}
	for j, s := range spans(pl.Steps, finals) {
		if s.first <= k && k <= s.last {
			b, err := valueBytes(p, pl.Steps[j], opt != nil && opt.ZeRO >= 2 && finals[pl.Steps[j].Name])
			if err != nil {
				return pl.StatementError(pl.Steps[j], err)
			}
			if b[rank] > 0 {
				vals = append(vals, value{j, b[rank]})
			}
		}
	}
	slices.SortStableFunc(vals, func(a, b value) int { return cmp.Compare(b.bytes, a.bytes) })
	var named []string
	for _, v := range vals[:min(len(vals), largestNamed)] {
		if v.step < 0 {
			named = append(named, fmt.Sprintf("the %s's state %s", opt, tensor.FormatBytes(v.bytes)))
			continue
		}
		s := pl.Steps[v.step]
		named = append(named, fmt.Sprintf("%s as %s %s", s.Name, s.Out(), tensor.FormatBytes(v.bytes)))
	}
	list := strings.Join(named, ", ")
	if more := len(vals) - len(named); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	has := "the capacity is"
	if device != "" {
		has = "each " + device + " has"
	}
	held, limit := tensor.FormatBytes(at.HeldBytes[rank]), tensor.FormatBytes(capacity)
	if held == limit { // too close for three digits: the bytes themselves
		held, limit = fmt.Sprintf("%d bytes", at.HeldBytes[rank]), fmt.Sprintf("%d bytes", capacity)
	}
	return pl.StatementError(at, &capacityError{fmt.Sprintf("rank %d holds %s at step %d (%s); %s %s", p.Rank(rank), held, k+1, list, has, limit)})
}
