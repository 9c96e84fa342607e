package tensor

import "fmt"

// BinaryOp is an elementwise operation of two broadcast operands.
type BinaryOp uint8

const (
	Add BinaryOp = iota + 1 // a + b
	Sub                     // a - b
	Mul                     // a · b
	Div                     // a / b; on integers truncated toward zero, and a/0 = a (WGSL's rule)
	Max                     // max(a, b); NaN if either is NaN
	Min                     // min(a, b); NaN if either is NaN
	Eq                      // 1 where a == b, else 0, in the operands' dtype; NaN == NaN is 0
)

var binaryNames = map[BinaryOp]string{Add: "add", Sub: "sub", Mul: "mul", Div: "div", Max: "max", Min: "min", Eq: "eq"}

func (op BinaryOp) String() string {
	if s, ok := binaryNames[op]; ok {
		return s
	}
	return fmt.Sprintf("BinaryOp(%d)", uint8(op))
}

// BinaryOps lists every BinaryOp in order.
func BinaryOps() []BinaryOp { return []BinaryOp{Add, Sub, Mul, Div, Max, Min, Eq} }

// ParseBinaryOp reads "add", "sub", "mul", "div", "max", "min" or "eq".
func ParseBinaryOp(s string) (BinaryOp, error) {
	for op, name := range binaryNames {
		if name == s {
			return op, nil
		}
	}
	return 0, newError(ErrParse, fmt.Sprintf("binary op %q", s), "the ops are add, sub, mul, div, max, min and eq")
}

// ReduceOp combines the elements of the reduced dims into one.
type ReduceOp uint8

const (
	Sum    ReduceOp = iota + 1 // Σ; 0 over no elements
	MaxAll                     // maximum; no identity, so an empty reduction is an error
	MinAll                     // minimum; no identity, so an empty reduction is an error
)

var reduceNames = map[ReduceOp]string{Sum: "sum", MaxAll: "max", MinAll: "min"}

func (op ReduceOp) String() string {
	if s, ok := reduceNames[op]; ok {
		return s
	}
	return fmt.Sprintf("ReduceOp(%d)", uint8(op))
}

// Combiner returns the binary op that folds two partial results of op into
// one: Add for Sum, Max for MaxAll, Min for MinAll. Work split along a
// reduced dim (a partial sum on simulated devices, a reduction too large
// for one GPU binding) combines with it.
func (op ReduceOp) Combiner() BinaryOp {
	return map[ReduceOp]BinaryOp{Sum: Add, MaxAll: Max, MinAll: Min}[op]
}

// ReduceOps lists every ReduceOp in order.
func ReduceOps() []ReduceOp { return []ReduceOp{Sum, MaxAll, MinAll} }

// ParseReduceOp reads "sum", "max" or "min".
func ParseReduceOp(s string) (ReduceOp, error) {
	for op, name := range reduceNames {
		if name == s {
			return op, nil
		}
	}
	return 0, newError(ErrParse, fmt.Sprintf("reduce op %q", s), "the ops are sum, max and min")
}

// UnaryOp is an elementwise operation of one operand. On float32 each is
// the float64 function rounded to float32 (IEEE 754 at the edges: what
// Go's math returns); the WebGPU kernels agree within Tolerance.
type UnaryOp uint8

const (
	Exp    UnaryOp = iota + 1 // eˣ; float32
	Log                       // ln x: −Inf at ±0, NaN below 0; float32
	Neg                       // −x; float32 and int32 (the lowest int32 wraps to itself)
	Sqrt                      // √x: NaN below 0; float32
	Rsqrt                     // 1/√x: ±Inf at ±0, NaN below 0; float32
	Tanh                      // tanh x; float32
	Relu                      // 0 where x < 0, else x (NaN stays NaN); every dtype
	Step                      // 1 where x > 0, else 0 (NaN gives 0): ReLU's derivative; every dtype
	Erf                       // erf x = 2/√π ∫₀ˣ e^(−t²) dt: ±1 at ±Inf; float32
	Square                    // x²; float32
)

var unaryNames = map[UnaryOp]string{Exp: "exp", Log: "log", Neg: "neg", Sqrt: "sqrt", Rsqrt: "rsqrt", Tanh: "tanh", Relu: "relu", Step: "step", Erf: "erf", Square: "square"}

func (op UnaryOp) String() string {
	if s, ok := unaryNames[op]; ok {
		return s
	}
	return fmt.Sprintf("UnaryOp(%d)", uint8(op))
}

// UnaryOps lists every UnaryOp in order.
func UnaryOps() []UnaryOp {
	return []UnaryOp{Exp, Log, Neg, Sqrt, Rsqrt, Tanh, Relu, Step, Erf, Square}
}

// ParseUnaryOp reads "exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu",
// "step", "erf" or "square".
func ParseUnaryOp(s string) (UnaryOp, error) {
	for op, name := range unaryNames {
		if name == s {
			return op, nil
		}
	}
	return 0, newError(ErrParse, fmt.Sprintf("unary op %q", s), "the ops are exp, log, neg, sqrt, rsqrt, tanh, relu, step, erf and square")
}

// Takes reports whether op is defined on dt: exp, log, sqrt, rsqrt,
// tanh, erf and square on float32 only (as torch, which refuses them on integers), neg
// on float32 and int32 (uint32 has no negatives), relu and step on all
// three.
func (op UnaryOp) Takes(dt DType) bool {
	switch op {
	case Relu, Step:
		return dt.Valid()
	case Neg:
		return dt == Float32 || dt == Int32
	}
	return dt == Float32
}
