package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// callOp spells op on the variables args, of the logical shapes given,
// in the engine's Python (lib is "flow" or "torch"; the two share these
// spellings), from the op's own arguments (sbp.Params).
func callOp(lib string, op sbp.Op, args []string, shapes []tensor.Shape) string {
	x := args[0]
	par := sbp.Params(op)
	switch par.Name {
	case "expand":
		return fmt.Sprintf("%s.expand%s", x, pyArgs(par.Size))
	case "repeat":
		return fmt.Sprintf("%s.repeat%s", x, pyArgs(par.Times))
	case "matmul": // torch.matmul and flow.matmul broadcast batch dims as NumPy's matmul
		return fmt.Sprintf("%s.matmul(%s, %s)", lib, x, args[1])
	case "softmax":
		d := par.Axis
		if d < 0 {
			d += len(shapes[0])
		}
		return fmt.Sprintf("%s.softmax(%s, dim=%d)", lib, x, d)
	case "reduce":
		fn := map[tensor.ReduceOp]string{tensor.Sum: "sum", tensor.MaxAll: "amax", tensor.MinAll: "amin"}[par.Reduce]
		return reduceCall(x, fn, shapes[0], par.To)
	case "mean":
		return reduceCall(x, "mean", shapes[0], par.To)
	case "transpose":
		return x + ".transpose(-2, -1)"
	case "permute":
		return fmt.Sprintf("%s.permute(%s)", x, pyTuple(par.Perm))
	case "reshape": // the logical shape, -1 resolved
		out, _ := op.OutShape(shapes)
		return x + ".reshape" + shapeArgs(out)
	case "scale":
		c := strconv.FormatFloat(par.Factor, 'g', -1, 64)
		if par.Factor == math.Trunc(par.Factor) && math.Abs(par.Factor) < 1<<53 { // an int literal keeps an int tensor's dtype
			c = strconv.FormatFloat(par.Factor, 'f', -1, 64)
		}
		return fmt.Sprintf("%s * %s", x, c)
	case "repeat_grad":
		return repeatGradCall(x, par.To, par.Times)
	}
	switch par.Binary {
	case tensor.Add:
		return x + " + " + args[1]
	case tensor.Sub:
		return x + " - " + args[1]
	case tensor.Mul:
		return x + " * " + args[1]
	case tensor.Div:
		return x + " / " + args[1]
	case tensor.Max:
		return fmt.Sprintf("%s.maximum(%s, %s)", lib, x, args[1])
	case tensor.Min:
		return fmt.Sprintf("%s.minimum(%s, %s)", lib, x, args[1])
	case tensor.Eq: // a bool tensor, brought back to the operands' dtype
		return fmt.Sprintf("%s.eq(%s, %s).to(%s.dtype)", lib, x, args[1], x)
	}
	switch par.Unary {
	case 0:
	case tensor.Neg:
		return "-" + x
	case tensor.Step: // a bool tensor, brought back to x's dtype
		return fmt.Sprintf("(%s > 0).to(%s.dtype)", x, x)
	default:
		return fmt.Sprintf("%s.%v(%s)", lib, par.Unary, x)
	}
	return "None  # unknown op"
}

// repeatGradCall spells the backward of a repeat by times of an input
// of shape in (sbp.RepeatGrad) on x, the repeat's output: x viewed as
// the repeat's expand, summed over its copy dims, reshaped to in.
func repeatGradCall(x string, in tensor.Shape, times []int) string {
	plan, _ := tensor.PlanRepeat(in, times)
	var axes []int // the copy dims of the repeat's expand
	k, lead := 0, len(times)-len(in)
	for d, t := range times {
		switch {
		case d < lead || t != 1 && in[d-lead] == 1:
			axes = append(axes, k)
			k++
		case t == 1:
			k++
		default: // (t, s)
			axes = append(axes, k)
			k += 2
		}
	}
	if len(axes) == 0 {
		return fmt.Sprintf("%s.reshape(%s)", x, pyTuple(in))
	}
	return fmt.Sprintf("%s.reshape(%s).sum(dim=%s).reshape(%s)", x, pyTuple(plan.ExpandSize), pyTuple(axes), pyTuple(in))
}

// reduceCall spells the reduction fn (sum, amax, amin, mean) of x, of
// shape in, down to the shape to: over the reduced axes, kept, then
// reshaped to to.
func reduceCall(x, fn string, in, to tensor.Shape) string {
	reduced, _ := tensor.ReducedAxes(in, to)
	var axes []int
	for a, r := range reduced {
		if r {
			axes = append(axes, a)
		}
	}
	if len(axes) == 0 { // sum(dim=[]) would reduce every dim
		return fmt.Sprintf("%s.reshape%s", x, shapeArgs(to))
	}
	return fmt.Sprintf("%s.%s(dim=%s, keepdim=True).reshape%s", x, fn, pyTuple(axes), shapeArgs(to))
}

// pyTuple spells ints as a Python tuple: (), (3,), (2, 3).
func pyTuple(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	if len(v) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// shapeArgs spells a shape as reshape's arguments: (2, 3), or (()) for
// a scalar (reshape() takes no empty argument list).
func shapeArgs(v []int) string {
	if len(v) == 0 {
		return "(())"
	}
	return pyArgs(v)
}

// pyArgs spells ints as a call's arguments: (2, 3).
func pyArgs(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
