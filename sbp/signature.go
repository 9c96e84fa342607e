package sbp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// Signature is one valid way to run an op along one mesh dim: if the
// inputs are laid out as In, each device can run the op on its own shards
// and the outputs are laid out as Out. On an n-D mesh every mesh dim picks
// its own signature.
type Signature struct {
	In  []SBP
	Out SBP
}

// String spells s as "S(1) x S(0) -> P(sum)".
func (s Signature) String() string { return formatSBPs(s.In) + " -> " + s.Out.String() }

func formatSBPs(in []SBP) string { return join(in, " x ") }

// ParseSignature reads a signature as String spells it: "S(1) x S(0) ->
// P(sum)".
func ParseSignature(s string) (Signature, error) {
	in, out, ok := strings.Cut(s, "->")
	if !ok {
		return Signature{}, newError(ErrParse, fmt.Sprintf("signature %q", s), "want the inputs' SBPs, then -> and the output's, e.g. S(0) x B -> S(0)")
	}
	var sig Signature
	for i, part := range strings.Split(in, " x ") {
		one, err := Parse(part)
		if err != nil {
			return Signature{}, newError(ErrParse, fmt.Sprintf("signature %q", s), "input %d: %s", i, err.(*Error).Detail)
		}
		sig.In = append(sig.In, one)
	}
	var err error
	if sig.Out, err = Parse(out); err != nil {
		return Signature{}, newError(ErrParse, fmt.Sprintf("signature %q", s), "the output: %s", err.(*Error).Detail)
	}
	return sig, nil
}

// NdSignature is the signature an op runs under on an n-D mesh: one
// Signature per mesh dim, dim 0 first.
type NdSignature []Signature

// String spells n as its mesh dims' signatures joined by "; ": "S(0) x B
// -> S(0)" on one dim, "S(0) x B -> S(0); B x S(1) -> S(1)" on two.
func (n NdSignature) String() string { return join(n, "; ") }

// MarshalText writes n as String does.
func (n NdSignature) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalText reads n as String spells it ("" is none).
func (n *NdSignature) UnmarshalText(b []byte) error {
	*n = nil
	if strings.TrimSpace(string(b)) == "" {
		return nil
	}
	for i, part := range strings.Split(string(b), ";") {
		sig, err := ParseSignature(part)
		if err != nil {
			return newError(ErrParse, fmt.Sprintf("signature %q", b), "mesh dim %d: %s", i, err.(*Error).Detail)
		}
		*n = append(*n, sig)
	}
	return nil
}

// Op is an operation on global tensors: its logical meaning, its SBP
// signatures and its physical rewrite (what each device runs on its
// shards). Expand, Repeat, Binary, Unary, Reduce, Mean, Softmax,
// Matmul, Transpose, Permute, Reshape, Scale and RepeatGrad make them.
type Op interface {
	// Name is the op's word: expand, repeat, add, …, eq, exp, …, step,
	// reduce, mean, softmax, matmul, transpose, permute, reshape, scale, repeat_grad.
	Name() string
	// String names the op with its arguments: "expand to [2 4 3 4 2]".
	String() string
	// Arity is the number of inputs.
	Arity() int
	// OutShape validates the logical input shapes and returns the
	// logical output shape.
	OutShape(in []tensor.Shape) (tensor.Shape, error)
	// Signatures lists the op's valid signatures for those shapes.
	Signatures(in []tensor.Shape) []Signature
	// Args returns the physical rewrite on one device: the arguments
	// the kernel gets for inputs of the shard shapes in and an output
	// shard of shape out.
	Args(in []tensor.Shape, out tensor.Shape) Args
	// Local runs the op on one device's shards, producing its output
	// shard of shape out.
	Local(be tensor.Backend, in []tensor.Tensor, out tensor.Shape) (tensor.Tensor, error)
	// why explains why sbps is not one of its signatures, or returns ""
	// when there is nothing more specific to say than the list of valid
	// ones.
	why(in []tensor.Shape, sbps []SBP) string
}

// Args is the physical rewrite of an op on one device: the per-device
// arguments of its kernel. Only the fields of the op's kind are set.
type Args struct {
	ExpandSize  []int        // expand: the physical expand size
	RepeatTimes []int        // repeat: the physical repeat counts
	ReduceTo    tensor.Shape // reduce: the physical target shape
	OutStride   []int        // the output's strides (stride 0 on an expand's broadcast dims)
}

// describe names an op applied to shapes: "expand [4 3 1 2] to [2 4 3 4 2]",
// or, when the op's String does not start with its Name,
// "repeat_grad [2 6 3] (sum the tiles of repeat by [2 1 3])".
func describe(op Op, shapes []tensor.Shape) string {
	s := op.String()
	if rest, ok := strings.CutPrefix(s, op.Name()); ok {
		return op.Name() + " " + join(shapes, " x ") + rest
	}
	return op.Name() + " " + join(shapes, " x ") + " (" + s + ")"
}

// Infer returns the output nd-SBP of op on inputs of the logical shapes
// laid out on p by in, and the signature each mesh dim uses. When some
// mesh dim has no signature taking the inputs' SBPs it returns an
// ErrSignature error that names the op, the SBPs, why, and the valid
// signatures; when the signatures do not hold on p (PlacementFault: a
// reshape's uneven split), one that says why.
func Infer(op Op, shapes []tensor.Shape, p Placement, in []NdSbp) (NdSbp, []Signature, error) {
	if _, err := checkInputs(op, shapes, p, in); err != nil {
		return nil, nil, err
	}
	sigs := op.Signatures(shapes)
	out := make(NdSbp, p.MeshRank())
	used := make([]Signature, p.MeshRank())
	for m := range out {
		sbps := make([]SBP, len(in))
		for i := range in {
			sbps[i] = in[i][m]
		}
		sig, ok := findSignature(sigs, sbps)
		if !ok {
			return nil, nil, illegal(op, shapes, p, m, sbps, sigs)
		}
		out[m], used[m] = sig.Out, sig
	}
	outShape, _ := op.OutShape(shapes)
	if err := Validate(outShape, p, out); err != nil {
		return nil, nil, newError(ErrSignature, describe(op, shapes)+" with "+formatNds(in), "the output would be %v: %s", out, err.(*Error).Detail)
	}
	if err := placementError(op, shapes, p, in, out); err != nil {
		return nil, nil, err
	}
	return out, used, nil
}

// InferAs returns the signature each mesh dim uses when op runs on
// inputs laid out on p by in and leaves its output as out: one of the
// outputs the inputs allow (expand's B in gives B or S(d) out). When some
// mesh dim has no signature from those inputs to that output it returns
// an ErrSignature error that names the op, the SBPs and the outputs the
// inputs do allow there.
func InferAs(op Op, shapes []tensor.Shape, p Placement, in []NdSbp, out NdSbp) ([]Signature, error) {
	outShape, err := checkInputs(op, shapes, p, in)
	if err != nil {
		return nil, err
	}
	if len(out) != p.MeshRank() {
		return nil, newError(ErrSBP, describe(op, shapes), "the output %v has %d SBPs but the mesh has %d dims", out, len(out), p.MeshRank())
	}
	sigs := op.Signatures(shapes)
	used := make([]Signature, p.MeshRank())
	for m := range used {
		sbps := make([]SBP, len(in))
		for i := range in {
			sbps[i] = in[i][m]
		}
		var outs []string
		found := false
		for _, s := range sigs {
			if slices.Equal(s.In, sbps) {
				outs = append(outs, s.Out.String())
				if s.Out == out[m] {
					used[m], found = s, true
					break
				}
			}
		}
		if !found {
			if len(outs) == 0 {
				return nil, illegal(op, shapes, p, m, sbps, sigs)
			}
			return nil, newError(ErrSignature, describe(op, shapes)+" with "+formatNds(in), "no signature gives %v on mesh dim %d; from %s it gives %s", out[m], m, formatSBPs(sbps), strings.Join(outs, ", "))
		}
	}
	if err := Validate(outShape, p, out); err != nil {
		return nil, newError(ErrSignature, describe(op, shapes)+" with "+formatNds(in), "the output would be %v: %s", out, err.(*Error).Detail)
	}
	if err := placementError(op, shapes, p, in, out); err != nil {
		return nil, err
	}
	return used, nil
}

// placementError is the ErrSignature error for a signature that does
// not hold on p (PlacementFault), or nil.
func placementError(op Op, shapes []tensor.Shape, p Placement, in []NdSbp, out NdSbp) error {
	if why := PlacementFault(op, shapes, p, in, out); why != "" {
		return newError(ErrSignature, describe(op, shapes)+" with "+formatNds(in), "%v -> %v does not hold on %v: %s", formatNds(in), out, p, why)
	}
	return nil
}

func findSignature(sigs []Signature, in []SBP) (Signature, bool) {
	for _, s := range sigs {
		if slices.Equal(s.In, in) {
			return s, true
		}
	}
	return Signature{}, false
}

// checkInputs validates the inputs of op: their number, shapes and
// layouts. It returns the logical output shape.
func checkInputs(op Op, shapes []tensor.Shape, p Placement, in []NdSbp) (tensor.Shape, error) {
	if len(shapes) != op.Arity() || len(in) != op.Arity() {
		return nil, newError(ErrShape, op.String(), "takes %d inputs, got %d shapes and %d SBPs", op.Arity(), len(shapes), len(in))
	}
	out, err := op.OutShape(shapes)
	if err != nil {
		return nil, err
	}
	for i := range in {
		if err := Validate(shapes[i], p, in[i]); err != nil {
			return nil, newError(ErrSBP, describe(op, shapes), "input %d: %s", i, err.Error())
		}
	}
	return out, nil
}

func formatNds(in []NdSbp) string { return join(in, " x ") }

// illegal builds the error for SBPs no signature takes on mesh dim m.
func illegal(op Op, shapes []tensor.Shape, p Placement, m int, sbps []SBP, sigs []Signature) error {
	where := ""
	if p.MeshRank() > 1 {
		where = fmt.Sprintf(" on mesh dim %d", m)
	}
	detail := fmt.Sprintf("no signature takes %s%s", formatSBPs(sbps), where)
	if why := op.why(shapes, sbps); why != "" {
		detail += ": " + why
	}
	var near, all []string
	for _, s := range sigs {
		all = append(all, s.String())
		if s.In[0] == sbps[0] {
			near = append(near, s.String())
		}
	}
	if len(near) > 0 && len(sbps) > 1 {
		detail += fmt.Sprintf("; with input 0 as %v the valid ones are %s", sbps[0], strings.Join(near, ", "))
	} else {
		detail += "; the valid ones are " + strings.Join(all, ", ")
	}
	return newError(ErrSignature, describe(op, shapes)+" with "+formatSBPs(sbps), "%s", detail)
}

// partialsThrough lists P(op) -> P(op) for every partial: the signatures
// of an op that commutes with sum, max and min alike (a copy).
func partialsThrough() []Signature {
	var sigs []Signature
	for _, op := range tensor.ReduceOps() {
		sigs = append(sigs, Signature{In: []SBP{P(op)}, Out: P(op)})
	}
	return sigs
}
