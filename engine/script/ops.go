package script

import (
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// callOp spells op on the variables args, of the logical shapes given,
// in the engine's Python (lib is "flow" or "torch"; the two share these
// spellings): the op's Global spelling in sbp's table of ops.
func callOp(lib string, op sbp.Op, args []string, shapes []tensor.Shape) string {
	spec := sbp.SpecOf(op)
	if spec == nil {
		return "None  # unknown op"
	}
	return spec.Global(lib, sbp.Params(op), args, shapes)
}
