package sbp

import "github.com/stridelab/stridelab/tensor"

// placed is an op whose signatures hold on some placements only: the
// signature is right on every mesh dim, but whether a device's part of
// the input is its part of the output depends on how the balanced split
// cuts the sizes on this mesh (a reshape that flattens a split dim holds
// only when the split is even). Signatures cannot see the placement, so
// the three places that pick nd-signatures (Candidates, Infer, InferAs)
// ask this too.
type placed interface {
	// onPlacement says why the op cannot run from in to out on p, each
	// mesh dim a signature of its list, or returns "" when it can.
	onPlacement(shapes []tensor.Shape, p Placement, in []NdSbp, out NdSbp) string
}

// PlacementFault says why op, run on p from inputs laid out as in to an
// output laid out as out (one of its signatures on every mesh dim),
// would not compute the op, or returns "" when it would. Only ops whose
// signatures depend on the placement (Reshape) ever say anything: for
// every other op a signature holds on every mesh.
func PlacementFault(op Op, shapes []tensor.Shape, p Placement, in []NdSbp, out NdSbp) string {
	if o, ok := op.(placed); ok {
		return o.onPlacement(shapes, p, in, out)
	}
	return ""
}

// Refusal says, in the op's own words, why inputs laid out on p as in do
// not run op as they are: the op's reason that some mesh dim's SBPs are
// none of its signatures, or the placement's (PlacementFault). It
// returns "" when they do run, and when the op has nothing more
// specific to say than its list of signatures. A plan's report adds it
// to the reason of the boxing that brings an input to a signature.
func Refusal(op Op, shapes []tensor.Shape, p Placement, in []NdSbp) string {
	if _, err := checkInputs(op, shapes, p, in); err != nil {
		return ""
	}
	sigs := op.Signatures(shapes)
	out := make(NdSbp, p.MeshRank())
	sbps := make([]SBP, len(in))
	for m := range out {
		for i := range in {
			sbps[i] = in[i][m]
		}
		sig, ok := findSignature(sigs, sbps)
		if !ok {
			return op.why(shapes, sbps)
		}
		out[m] = sig.Out
	}
	return PlacementFault(op, shapes, p, in, out)
}
