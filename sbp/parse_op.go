package sbp

import "github.com/stridelab/stridelab/tensor"

// OpArgs are an op's arguments as the command line and the URL spell
// them: the expand size, the repeat counts, the reduce target and op,
// softmax's dim.
type OpArgs struct {
	Size, Times, To, Reduce string
	Perm                    string // permute: the order of the dims, 0,2,1,3
	Dim                     string // softmax: the dim (negative counts from the end; "" is -1, the last)
}

// ParseOp returns the op named (expand, repeat, reduce, matmul, a binary
// op: add, sub, mul, div, max, min, eq, or a unary one: exp, log, neg,
// sqrt, rsqrt, tanh, relu, or softmax along Dim; or a view: transpose,
// permute by Perm, reshape to To) with its arguments, the one parser `stridelab
// sbp` and the scenes share. Mean, which needs its input's shape, and
// the backward's own ops are programs' only.
func ParseOp(name string, a OpArgs) (Op, error) {
	switch name {
	case "":
		return nil, newError(ErrParse, "op", "--op is required")
	case "expand":
		if a.Size == "" {
			return nil, newError(ErrParse, "op expand", "--op expand needs --size")
		}
		size, err := tensor.ParseInts("--size", a.Size)
		return Expand(size), err
	case "repeat":
		if a.Times == "" {
			return nil, newError(ErrParse, "op repeat", "--op repeat needs --times")
		}
		times, err := tensor.ParseInts("--times", a.Times)
		return Repeat(times), err
	case "reduce":
		if a.To == "" {
			return nil, newError(ErrParse, "op reduce", "--op reduce needs --to")
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
		return Reduce(op, to), err
	case "matmul":
		return Matmul(), nil
	case "transpose":
		return Transpose(), nil
	case "permute":
		if a.Perm == "" {
			return nil, newError(ErrParse, "op permute", "--op permute needs --perm")
		}
		perm, err := tensor.ParseInts("--perm", a.Perm)
		return Permute(perm), err
	case "reshape":
		if a.To == "" {
			return nil, newError(ErrParse, "op reshape", "--op reshape needs --to (the new shape, one size may be -1)")
		}
		shape, err := tensor.ParseInts("--to", a.To)
		return Reshape(shape), err
	case "softmax":
		if a.Dim == "" {
			return Softmax(-1), nil
		}
		dim, err := tensor.ParseInts("--dim", a.Dim)
		if err == nil && len(dim) != 1 {
			err = newError(ErrParse, "op softmax", "--dim is one dim, not %q", a.Dim)
		}
		if err != nil {
			return nil, err
		}
		return Softmax(dim[0]), nil
	case "exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu":
		op, err := tensor.ParseUnaryOp(name)
		return Unary(op), err
	}
	op, err := tensor.ParseBinaryOp(name)
	if err != nil {
		return nil, newError(ErrParse, "op "+name, "the ops are expand, repeat, add, sub, mul, div, max, min, eq, matmul, reduce, exp, log, neg, sqrt, rsqrt, tanh, relu, softmax, transpose, permute and reshape")
	}
	return Binary(op), nil
}
