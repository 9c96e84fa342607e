package tensor

import "fmt"

// Backend runs the kernels. CPU is the reference implementation; the
// WebGPU backend implements the same interface and is tested against it.
// Every method validates its arguments, returns a fresh contiguous Tensor
// and leaves its inputs unchanged.
type Backend interface {
	// Name identifies the backend in reports, e.g. "cpu".
	Name() string
	// Materialize copies any strided view (an expand, a permute, a slice)
	// into a new contiguous tensor of the same shape:
	//	for each index i: out[i] = src.buf[src.Offset(i)]
	Materialize(src Tensor) (Tensor, error)
	// Repeat tiles src as PyTorch's repeat (NumPy's tile): with src padded
	// on the left to len(times) dims,
	//	out[i] = src[i[0] mod s[0], …, i[n-1] mod s[n-1]], shape[d] = s[d]·times[d]
	Repeat(src Tensor, times []int) (Tensor, error)
	// Binary applies op elementwise after broadcasting a and b
	// (BroadcastShapes); both must have the same dtype.
	Binary(op BinaryOp, a, b Tensor) (Tensor, error)
	// Reduce combines src over the dims that broadcasting `to` would
	// expand (ReducedAxes) and returns a tensor of shape `to`.
	Reduce(op ReduceOp, src Tensor, to Shape) (Tensor, error)
	// Unary applies op to every element of any strided view src
	// (op.Takes(src.DType()) must hold):
	//	for each index i: out[i] = op(src.buf[src.Offset(i)])
	Unary(op UnaryOp, src Tensor) (Tensor, error)
	// Softmax normalises any strided float32 view src along axis
	// (0 ≤ axis < rank, SoftmaxOperand): for each line x along axis,
	//	y_j = exp(x_j − max x) / Σ_k exp(x_k − max x)
	// a line holding a NaN, or whose max is ±Inf, all NaN (as torch).
	Softmax(src Tensor, axis int) (Tensor, error)
	// Gather looks up rows of table (rank ≥ 1, any dtype) by int32 ids
	// of any shape (GatherOperands), an embedding: for every index i of
	// ids and c of table's other dims,
	//	out[i, c] = table[ids[i] − lo, c]  where 0 ≤ ids[i] − lo < rows, else 0
	// out of shape ids' then table's after its first; lo is the first
	// row of a larger table that table holds (a device's row shard).
	Gather(table, ids Tensor, lo int) (Tensor, error)
	// ScatterAdd is Gather's backward (ScatterAddOperands): src float32
	// whose leading dims are ids' shape, summed by id into rows rows,
	//	out[r, c] = Σ over i with ids[i] = lo + r of src[i, c]
	// (ids outside lo … lo+rows−1 add nothing).
	ScatterAdd(src, ids Tensor, lo, rows int) (Tensor, error)
}

// BinaryReducer is a Backend that runs a broadcast binary op and a
// reduction of its result as one call:
//
//	out = Reduce(rop, Binary(bop, a, b), to)
//
// A backend whose kernels run away from the host (WebGPU) keeps the
// intermediate there, so a matmul's [m, k, n] products (package sbp:
// mul then sum over k) never cross to the host and back. BinaryReduce
// calls it where be has it.
type BinaryReducer interface {
	BinaryReduce(bop BinaryOp, rop ReduceOp, a, b Tensor, to Shape) (Tensor, error)
}

// BinaryReduce returns Reduce(rop, Binary(bop, a, b), to) on be: in one
// call where be is a BinaryReducer, otherwise as the two calls
// (BinaryThenReduce).
func BinaryReduce(be Backend, bop BinaryOp, rop ReduceOp, a, b Tensor, to Shape) (Tensor, error) {
	if br, ok := be.(BinaryReducer); ok {
		return br.BinaryReduce(bop, rop, a, b, to)
	}
	return BinaryThenReduce(be, bop, rop, a, b, to)
}

// BinaryThenReduce returns Reduce(rop, Binary(bop, a, b), to) as be's two
// calls, the intermediate released: what a BinaryReducer does when its
// one call cannot take the work.
func BinaryThenReduce(be Backend, bop BinaryOp, rop ReduceOp, a, b Tensor, to Shape) (Tensor, error) {
	mid, err := be.Binary(bop, a, b)
	if err != nil {
		return Tensor{}, err
	}
	defer mid.Release()
	return be.Reduce(rop, mid, to)
}

// BinaryOperands validates a binary op and returns the broadcast output
// shape and both operands' layouts expanded to it (stride 0 on broadcast
// dims), ready for a kernel.
func BinaryOperands(op BinaryOp, a, b Tensor) (Shape, Layout, Layout, error) {
	name := fmt.Sprintf("%v %v and %v", op, a.layout.shape, b.layout.shape)
	if _, ok := binaryNames[op]; !ok {
		return nil, Layout{}, Layout{}, newError(ErrParse, name, "unknown binary op %d", op)
	}
	if !a.Valid() || !b.Valid() {
		return nil, Layout{}, Layout{}, newError(ErrShape, name, "an operand is an empty Tensor value")
	}
	if a.DType() != b.DType() {
		return nil, Layout{}, Layout{}, newError(ErrDType, name, "a is %v but b is %v; convert one so they match", a.DType(), b.DType())
	}
	out, err := BroadcastShapes(a.layout.shape, b.layout.shape)
	if err != nil {
		return nil, Layout{}, Layout{}, err
	}
	av, err := a.layout.Expand(out)
	if err != nil {
		return nil, Layout{}, Layout{}, err
	}
	bv, err := b.layout.Expand(out)
	if err != nil {
		return nil, Layout{}, Layout{}, err
	}
	return out, av, bv, nil
}

// ReduceOperands validates a reduction of src to the shape to and returns
// the per-dim reduced flags of src's dims.
func ReduceOperands(op ReduceOp, src Tensor, to Shape) ([]bool, error) {
	if !src.Valid() {
		return nil, newError(ErrShape, fmt.Sprintf("reduce %v %v to %v", op, src.layout.shape, to), "the input is an empty Tensor value")
	}
	return ReduceShapes(op, src.layout.shape, to)
}

// ReduceShapes validates a reduction of a tensor of shape in to the shape
// to and returns the per-dim reduced flags of in's dims: what
// ReduceOperands checks, for an input not yet made (BinaryReducer's).
func ReduceShapes(op ReduceOp, in, to Shape) ([]bool, error) {
	name := fmt.Sprintf("reduce %v %v to %v", op, in, to)
	if _, ok := reduceNames[op]; !ok {
		return nil, newError(ErrParse, name, "unknown reduce op %d", op)
	}
	if _, err := to.NumElements(); err != nil {
		return nil, err
	}
	reduced, err := ReducedAxes(in, to)
	if err != nil {
		return nil, err
	}
	if n, _ := in.NumElements(); op != Sum && n == 0 {
		if n, _ := to.NumElements(); n > 0 {
			return nil, newError(ErrShape, name, "%v over zero elements has no identity; the reduced dims are empty", op)
		}
	}
	return reduced, nil
}

// UnaryOperand validates op on src: a known op, a valid tensor, a dtype
// op takes (UnaryOp.Takes).
func UnaryOperand(op UnaryOp, src Tensor) error {
	name := fmt.Sprintf("%v %v", op, src.layout.shape)
	if _, ok := unaryNames[op]; !ok {
		return newError(ErrParse, name, "unknown unary op %d", op)
	}
	if !src.Valid() {
		return newError(ErrShape, name, "the input is an empty Tensor value")
	}
	if !op.Takes(src.DType()) {
		want := "float32 tensors"
		if op == Neg {
			want = "float32 and int32 tensors (uint32 has no negatives)"
		}
		return newError(ErrDType, name, "%v takes %s, not %v; convert it first", op, want, src.DType())
	}
	return nil
}

// Expand materializes x expanded to size on be: Layout.Expand, then a copy
// (checked against the result limit under expand's own name first).
func Expand(be Backend, x Tensor, size []int) (Tensor, error) {
	v, err := x.Expand(size)
	if err != nil {
		return Tensor{}, err
	}
	if err := CheckResult(fmt.Sprintf("expand %v to %v", x.Shape(), size), x.DType(), v.Shape()); err != nil {
		return Tensor{}, err
	}
	return be.Materialize(v)
}
