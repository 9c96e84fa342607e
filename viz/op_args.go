package viz

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// OpArgs are a single op's arguments as the command line (`stridelab sbp
// plan` and `sbp run`'s flags) and the plan scene's keys spell them: the
// expand size, the repeat counts, the reduce target and op, the permute
// order, softmax's dim.
type OpArgs struct {
	Size, Times, To, Reduce string
	Perm                    string // permute: the order of the dims, 0,2,1,3
	Dim                     string // softmax: the dim (negative counts from the end; "" is -1, the last)
}

// ParseOp returns the op named (expand, repeat, reduce, matmul, a binary
// op: add, sub, mul, div, max, min, eq, or a unary one: exp, log, neg,
// sqrt, rsqrt, tanh, relu, erf, square, or softmax along Dim; or a view: transpose,
// permute by Perm, reshape to To) with its arguments: the one parser of
// single ops that `stridelab sbp` and the plan scene share. Its errors
// name the flags (--op expand needs --size). Mean, which needs its
// input's shape, and the backward's own ops are programs' only.
func ParseOp(name string, a OpArgs) (sbp.Op, error) {
	switch name {
	case "":
		return nil, fmt.Errorf("viz: --op is required")
	case "expand":
		if a.Size == "" {
			return nil, fmt.Errorf("viz: --op expand needs --size")
		}
		size, err := tensor.ParseInts("--size", a.Size)
		return sbp.Expand(size), err
	case "repeat":
		if a.Times == "" {
			return nil, fmt.Errorf("viz: --op repeat needs --times")
		}
		times, err := tensor.ParseInts("--times", a.Times)
		return sbp.Repeat(times), err
	case "reduce":
		if a.To == "" {
			return nil, fmt.Errorf("viz: --op reduce needs --to")
		}
		r := a.Reduce
		if r == "" {
			r = "sum"
		}
		op, err := tensor.ParseReduceOp(r)
		if err != nil {
			return nil, err
		}
		to, err := tensor.ParseShape(a.To)
		return sbp.Reduce(op, to), err
	case "matmul":
		return sbp.Matmul(), nil
	case "transpose":
		return sbp.Transpose(), nil
	case "permute":
		if a.Perm == "" {
			return nil, fmt.Errorf("viz: --op permute needs --perm")
		}
		perm, err := tensor.ParseInts("--perm", a.Perm)
		return sbp.Permute(perm), err
	case "reshape":
		if a.To == "" {
			return nil, fmt.Errorf("viz: --op reshape needs --to (the new shape, one size may be -1)")
		}
		shape, err := tensor.ParseInts("--to", a.To)
		return sbp.Reshape(shape), err
	case "softmax":
		if a.Dim == "" {
			return sbp.Softmax(-1), nil
		}
		dim, err := tensor.ParseInts("--dim", a.Dim)
		if err == nil && len(dim) != 1 {
			err = fmt.Errorf("viz: --dim is one dim, not %q", a.Dim)
		}
		if err != nil {
			return nil, err
		}
		return sbp.Softmax(dim[0]), nil
	case "exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu", "erf", "square":
		op, err := tensor.ParseUnaryOp(name)
		return sbp.Unary(op), err
	}
	op, err := tensor.ParseBinaryOp(name)
	if err != nil {
		return nil, fmt.Errorf("viz: --op %s: the ops are expand, repeat, add, sub, mul, div, max, min, eq, matmul, reduce, exp, log, neg, sqrt, rsqrt, tanh, relu, erf, square, softmax, transpose, permute and reshape", name)
	}
	return sbp.Binary(op), nil
}
