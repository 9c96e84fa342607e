package importer

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// lowerFunc writes one aten op (its overload aside) as statements and
// records what holds its value (l.names, or l.tuples for several).
type lowerFunc func(l *lowering, n *node) error

// opTable is every aten op the importer writes, by its name without the
// overload (aten.add for aten.add.Tensor and aten.add.Scalar).
var opTable map[string]lowerFunc

func init() {
	opTable = map[string]lowerFunc{
		"getitem": lowerGetitem,
		// the same values under another name
		"aten.clone": alias, "aten.detach": alias, "aten.alias": alias, "aten.contiguous": alias,
		"aten.lift_fresh_copy": alias, "aten._to_copy": toCopy, "aten.dropout": alias,
		// views
		"aten.view": reshape, "aten._reshape_alias": reshape, "aten._unsafe_view": reshape, "aten.reshape": reshape,
		"aten.unsqueeze": reshape, "aten.squeeze": reshape, "aten.flatten": reshape,
		"aten.expand": expand, "aten.t": transposeT, "aten.transpose": transpose, "aten.permute": permute,
		"aten.slice": slice,
		// products
		"aten.mm": matmul, "aten.bmm": matmul, "aten.matmul": matmul, "aten.addmm": addmm,
		// elementwise
		"aten.add": addSub("add"), "aten.sub": addSub("sub"), "aten.rsub": rsub, "aten.mul": mul, "aten.div": div,
		"aten.maximum": binary("max"), "aten.minimum": binary("min"),
		"aten.neg": unary("neg"), "aten.exp": unary("exp"), "aten.log": unary("log"), "aten.sqrt": unary("sqrt"),
		"aten.rsqrt": unary("rsqrt"), "aten.tanh": unary("tanh"), "aten.relu": unary("relu"),
		"aten.reciprocal": reciprocal, "aten.pow": pow, "aten.square": square,
		"aten.sigmoid": sigmoid, "aten.silu": silu, "aten.gelu": gelu,
		"aten.masked_fill": maskedFill, "aten.where": where,
		// along dims
		"aten._softmax": softmax, "aten.softmax": softmax, "aten._log_softmax": logSoftmax, "aten.log_softmax": logSoftmax,
		"aten.sum": reduce("sum"), "aten.mean": reduce("mean"), "aten.amax": reduce("max"), "aten.amin": reduce("min"),
		"aten.native_layer_norm": layerNorm,
		"aten.split":             split, "aten.split_with_sizes": split, "aten.unbind": unbind,
		// lookups
		"aten.embedding": embedding, "aten.nll_loss_forward": nllLoss,
	}
}

// opName is target without its overload: aten.add.Tensor is aten.add.
func opName(target string) string {
	if strings.Count(target, ".") >= 2 {
		return target[:strings.LastIndex(target, ".")]
	}
	return target
}

func alias(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	l.names[n.Name] = x
	return nil
}

// toCopy is a dtype conversion: to a float, the same values (programs
// run on float32).
func toCopy(l *lowering, n *node) error {
	if !strings.HasPrefix(n.DType, "float") && n.DType != "bfloat16" {
		return l.refusal(n.Target, "a conversion to "+n.DType+" of a value the parameters reach")
	}
	return alias(l, n)
}

func reshape(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	l.names[n.Name] = l.reshapeTo(n.Name, x, n.outShape())
	return nil
}

func expand(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	if out := n.outShape(); !l.shapes[x].Equal(out) {
		x = l.emit(n.Name, out, "expand %s %s", x, out.Spell())
	}
	l.names[n.Name] = x
	return nil
}

// swap writes x with dims d0 and d1 swapped: transpose for the last
// two, else a permute.
func (l *lowering) swap(n *node, x string, d0, d1 int) string {
	r := len(l.shapes[x])
	d0, d1 = dim(d0, r), dim(d1, r)
	if d0 == d1 {
		return x
	}
	if min(d0, d1) == r-2 && max(d0, d1) == r-1 {
		return l.emit(n.Name, n.outShape(), "transpose %s", x)
	}
	order := make([]int, r)
	for i := range order {
		order[i] = i
	}
	order[d0], order[d1] = d1, d0
	return l.emit(n.Name, n.outShape(), "permute %s %s", x, tensor.SpellInts(order))
}

func transposeT(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	if len(l.shapes[x]) < 2 {
		l.names[n.Name] = x
		return nil
	}
	l.names[n.Name] = l.swap(n, x, 0, 1)
	return nil
}

func transpose(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d, ok := n.arg(1).ints()
	e, ok2 := n.arg(2).ints()
	if !ok || !ok2 {
		return l.refusal(n.Target, "its dims are not numbers")
	}
	l.names[n.Name] = l.swap(n, x, d[0], e[0])
	return nil
}

func permute(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	order, ok := n.arg(1).ints()
	if !ok {
		return l.refusal(n.Target, "its dims are not numbers")
	}
	identity := true
	for i := range order {
		order[i] = dim(order[i], len(order))
		identity = identity && order[i] == i
	}
	if identity {
		l.names[n.Name] = x
		return nil
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "permute %s %s", x, tensor.SpellInts(order))
	return nil
}

// slice is a view of a range of one dim: the whole range only (a slice
// of a constant is folded at import).
func slice(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	if l.shapes[x].Equal(n.outShape()) {
		l.names[n.Name] = x
		return nil
	}
	return l.refusal(n.Target, fmt.Sprintf("a part of %v, %v, is taken: the importer writes whole slices and equal split pieces", l.shapes[x], n.outShape()))
}

func matmul(l *lowering, n *node) error {
	a, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	b, err := l.name(n, n.arg(1))
	if err != nil {
		return err
	}
	if len(l.shapes[a]) < 2 || len(l.shapes[b]) < 2 {
		return l.refusal(n.Target, fmt.Sprintf("a product with a vector (%v and %v)", l.shapes[a], l.shapes[b]))
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "matmul %s %s", a, b)
	return nil
}

// addmm is bias + a·b (beta and alpha 1, as nn.Linear writes it).
func addmm(l *lowering, n *node) error {
	for k, i := range map[string]int{"beta": 3, "alpha": 4} {
		if v, ok := n.kwarg(k, i).num(); ok && v != 1 {
			return l.refusal(n.Target, k+" is "+spellFloat(v))
		}
	}
	bias, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	a, err := l.name(n, n.arg(1))
	if err != nil {
		return err
	}
	b, err := l.name(n, n.arg(2))
	if err != nil {
		return err
	}
	m := l.emit(n.Name+"_mm", n.outShape(), "matmul %s %s", a, b)
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "add %s %s", m, bias)
	return nil
}

// addSub is a + alpha·b or a − alpha·b, b a tensor or a number.
func addSub(word string) lowerFunc {
	return func(l *lowering, n *node) error {
		alpha := 1.0
		if v, ok := n.kwarg("alpha", 2).num(); ok {
			alpha = v
		}
		a, err := l.operand(n, n.arg(0))
		if err != nil {
			return err
		}
		if v, ok := n.arg(1).num(); ok {
			if word == "sub" {
				v = -v
			}
			l.names[n.Name] = l.emit(n.Name, n.outShape(), "add %s %s", a, l.scalar(alpha*v))
			return nil
		}
		b, err := l.name(n, n.arg(1))
		if err != nil {
			return err
		}
		if alpha != 1 {
			b = l.emit(n.Name+"_alpha", l.shapes[b], "scale %s %s", b, spellFloat(alpha))
		}
		l.names[n.Name] = l.emit(n.Name, n.outShape(), "%s %s %s", word, a, b)
		return nil
	}
}

// rsub is other − alpha·x.
func rsub(l *lowering, n *node) error {
	alpha := 1.0
	if v, ok := n.kwarg("alpha", 2).num(); ok {
		alpha = v
	}
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	neg := l.emit(n.Name+"_neg", l.shapes[x], "scale %s %s", x, spellFloat(-alpha))
	o, err := l.operand(n, n.arg(1))
	if err != nil {
		return err
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "add %s %s", neg, o)
	return nil
}

func mul(l *lowering, n *node) error {
	if v, ok := n.arg(1).num(); ok {
		return scaleBy(l, n, n.arg(0), v)
	}
	if v, ok := n.arg(0).num(); ok {
		return scaleBy(l, n, n.arg(1), v)
	}
	return binary("mul")(l, n)
}

// scaleBy is the node as a times the number v.
func scaleBy(l *lowering, n *node, a arg, v float64) error {
	x, err := l.name(n, a)
	if err != nil {
		return err
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		l.names[n.Name] = l.emit(n.Name, n.outShape(), "mul %s %s", x, l.scalar(v))
		return nil
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "scale %s %s", x, spellFloat(v))
	return nil
}

func div(l *lowering, n *node) error {
	if m := n.kwarg("rounding_mode", 2).str(); m != "" {
		return l.refusal(n.Target, "rounding_mode "+m)
	}
	if v, ok := n.arg(1).num(); ok && v != 0 {
		return scaleBy(l, n, n.arg(0), 1/v)
	}
	return binary("div")(l, n)
}

// binary is the elementwise op word of two operands (numbers as
// constants).
func binary(word string) lowerFunc {
	return func(l *lowering, n *node) error {
		a, err := l.operand(n, n.arg(0))
		if err != nil {
			return err
		}
		b, err := l.operand(n, n.arg(1))
		if err != nil {
			return err
		}
		l.names[n.Name] = l.emit(n.Name, n.outShape(), "%s %s %s", word, a, b)
		return nil
	}
}

func unary(word string) lowerFunc {
	return func(l *lowering, n *node) error {
		x, err := l.name(n, n.arg(0))
		if err != nil {
			return err
		}
		l.names[n.Name] = l.emit(n.Name, n.outShape(), "%s %s", word, x)
		return nil
	}
}

func reciprocal(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "div %s %s", l.scalar(1), x)
	return nil
}

func square(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "mul %s %s", x, x)
	return nil
}

// pow is x to a constant power the language writes: 1, 2, 3, 0.5, −0.5,
// −1.
func pow(l *lowering, n *node) error {
	e, ok := n.arg(1).num()
	if !ok {
		return l.refusal(n.Target, "a power that is a tensor")
	}
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	out := n.outShape()
	switch e {
	case 1:
		l.names[n.Name] = x
	case 2:
		l.names[n.Name] = l.emit(n.Name, out, "mul %s %s", x, x)
	case 3:
		sq := l.emit(n.Name+"_sq", out, "mul %s %s", x, x)
		l.names[n.Name] = l.emit(n.Name, out, "mul %s %s", sq, x)
	case 0.5:
		l.names[n.Name] = l.emit(n.Name, out, "sqrt %s", x)
	case -0.5:
		l.names[n.Name] = l.emit(n.Name, out, "rsqrt %s", x)
	case -1:
		l.names[n.Name] = l.emit(n.Name, out, "div %s %s", l.scalar(1), x)
	default:
		return l.refusal(n.Target, "the power "+spellFloat(e)+"; the importer writes 1, 2, 3, 0.5, -0.5 and -1")
	}
	return nil
}

// sigmoidOf writes 1 / (1 + e^−x).
func (l *lowering) sigmoidOf(base, x string) string {
	sh := l.shapes[x]
	nx := l.emit(base+"_neg", sh, "neg %s", x)
	e := l.emit(base+"_exp", sh, "exp %s", nx)
	d := l.emit(base+"_den", sh, "add %s %s", e, l.scalar(1))
	return l.emit(base, sh, "div %s %s", l.scalar(1), d)
}

func sigmoid(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	l.names[n.Name] = l.sigmoidOf(n.Name, x)
	return nil
}

func silu(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	s := l.sigmoidOf(n.Name+"_sigmoid", x)
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "mul %s %s", x, s)
	return nil
}

// gelu is the tanh form, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))),
// torch's gelu(approximate="tanh") and GPT-2's gelu_new.
func gelu(l *lowering, n *node) error {
	if a := n.kwarg("approximate", 1).str(); a != "tanh" {
		return l.refusal(n.Target, "the erf form; write F.gelu(x, approximate=\"tanh\"), as GPT-2 does")
	}
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	sh := l.shapes[x]
	b := n.Name
	x2 := l.emit(b+"_x2", sh, "mul %s %s", x, x)
	x3 := l.emit(b+"_x3", sh, "mul %s %s", x2, x)
	c := l.emit(b+"_c", sh, "scale %s 0.044715", x3)
	d := l.emit(b+"_d", sh, "add %s %s", x, c)
	u := l.emit(b+"_u", sh, "scale %s %s", d, spellFloat(math.Sqrt(2/math.Pi)))
	t := l.emit(b+"_tanh", sh, "tanh %s", u)
	h := l.emit(b+"_half", sh, "scale %s 0.5", x)
	ht := l.emit(b+"_ht", sh, "mul %s %s", h, t)
	l.names[n.Name] = l.emit(b, sh, "add %s %s", h, ht)
	return nil
}

// maskedFill, with the mask folded: x·keep + fill (keep 0 and fill the
// value where the mask holds; 1 and 0 elsewhere).
func maskedFill(l *lowering, n *node) error {
	if n.Keep == nil || n.Fill == nil {
		return l.refusal(n.Target, "a mask computed from the parameters or the examples; the importer folds constant masks")
	}
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	keep := l.input(n.Keep.Name, n.Keep.Shape, l.whole(), n.Keep.Values, true, l.module+": where the mask keeps")
	fill := l.input(n.Fill.Name, n.Fill.Shape, l.whole(), n.Fill.Values, true, l.module+": what the mask fills in")
	kept := l.emit(n.Name+"_kept", n.outShape(), "mul %s %s", x, keep)
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "add %s %s", kept, fill)
	return nil
}

// where, with the condition folded by trace.py: the branch that varies
// times keep, plus fill (the constant branch where it is taken, 0
// elsewhere); both varying, a·cond + b·(1 − cond).
func where(l *lowering, n *node) error {
	if n.Keep == nil || n.Fill == nil {
		return l.refusal(n.Target, "a condition computed from the parameters or the examples; the importer folds constant ones")
	}
	keep := l.input(n.Keep.Name, n.Keep.Shape, l.whole(), n.Keep.Values, true, l.module+": where the varying branch is taken")
	fill := l.input(n.Fill.Name, n.Fill.Shape, l.whole(), n.Fill.Values, true, l.module+": the constant branch, where it is taken")
	out := n.outShape()
	if n.Vary != 0 {
		x, err := l.name(n, n.arg(n.Vary))
		if err != nil {
			return err
		}
		kept := l.emit(n.Name+"_kept", out, "mul %s %s", x, keep)
		l.names[n.Name] = l.emit(n.Name, out, "add %s %s", kept, fill)
		return nil
	}
	a, err := l.name(n, n.arg(1))
	if err != nil {
		return err
	}
	b, err := l.name(n, n.arg(2))
	if err != nil {
		return err
	}
	ya := l.emit(n.Name+"_a", out, "mul %s %s", a, keep)
	yb := l.emit(n.Name+"_b", out, "mul %s %s", b, fill)
	l.names[n.Name] = l.emit(n.Name, out, "add %s %s", ya, yb)
	return nil
}

func softmax(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d, ok := n.arg(1).ints()
	if !ok {
		return l.refusal(n.Target, "its dim is not a number")
	}
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "softmax %s %d", x, d[0])
	return nil
}

// logSoftmax is (x − max) − log Σ e^(x − max) along the dim.
func logSoftmax(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d, ok := n.arg(1).ints()
	if !ok {
		return l.refusal(n.Target, "its dim is not a number")
	}
	sh := l.shapes[x]
	line := keepdims(sh, d)
	b := n.Name
	m := l.emit(b+"_max", line, "max %s %s", x, line.Spell())
	c := l.emit(b+"_shift", sh, "sub %s %s", x, m)
	e := l.emit(b+"_exp", sh, "exp %s", c)
	s := l.emit(b+"_sum", line, "sum %s %s", e, line.Spell())
	lg := l.emit(b+"_log", line, "log %s", s)
	l.names[n.Name] = l.emit(b, sh, "sub %s %s", c, lg)
	return nil
}

// reduce is a sum, mean, amax or amin over dims (all when none are
// given), kept as 1 or dropped as keepdim says.
func reduce(word string) lowerFunc {
	return func(l *lowering, n *node) error {
		x, err := l.name(n, n.arg(0))
		if err != nil {
			return err
		}
		var dims []int
		if a := n.kwarg("dim", 1); !a.absent() {
			if dims, _ = a.ints(); dims == nil {
				return l.refusal(n.Target, "its dims are not numbers")
			}
		}
		if dt := n.kwarg("dtype", 3); !dt.absent() && n.DType != "float32" {
			return l.refusal(n.Target, "a reduction to "+n.DType)
		}
		kept := keepdims(l.shapes[x], dims)
		r := l.emit(n.Name, kept, "%s %s %s", word, x, kept.Spell())
		l.names[n.Name] = l.reshapeTo(n.Name+"_dropped", r, n.outShape())
		return nil
	}
}

// layerNorm is native_layer_norm written out: the mean and the
// reciprocal of the standard deviation over the normalized dims (its
// second and third results), the normalized x, times the weight, plus the
// bias.
func layerNorm(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	norm, ok := n.arg(1).ints()
	if !ok {
		return l.refusal(n.Target, "its normalized shape is not numbers")
	}
	eps, ok := n.arg(4).num()
	if !ok {
		return l.refusal(n.Target, "its eps is not a number")
	}
	sh := l.shapes[x]
	dims := make([]int, len(norm))
	for i := range dims {
		dims[i] = len(sh) - len(norm) + i
	}
	stat := keepdims(sh, dims)
	b := n.Name
	mu := l.emit(b+"_mean", stat, "mean %s %s", x, stat.Spell())
	c := l.emit(b+"_centred", sh, "sub %s %s", x, mu)
	sq := l.emit(b+"_sq", sh, "mul %s %s", c, c)
	v := l.emit(b+"_var", stat, "mean %s %s", sq, stat.Spell())
	ve := l.emit(b+"_var_eps", stat, "add %s %s", v, l.scalar(eps))
	r := l.emit(b+"_rstd", stat, "rsqrt %s", ve)
	y := l.emit(b+"_normed", sh, "mul %s %s", c, r)
	if !n.arg(2).absent() {
		w, err := l.name(n, n.arg(2))
		if err != nil {
			return err
		}
		y = l.emit(b+"_scaled", sh, "mul %s %s", y, w)
	}
	if !n.arg(3).absent() {
		bias, err := l.name(n, n.arg(3))
		if err != nil {
			return err
		}
		y = l.emit(b, sh, "add %s %s", y, bias)
	}
	results := []string{y, mu, r}
	l.tuples[n.Name] = func(i int) (string, error) { return results[i], nil }
	return nil
}

// lowerGetitem is the i-th result of a node of several.
func lowerGetitem(l *lowering, n *node) error {
	of := n.arg(0).ref()
	i, ok := n.arg(1).ints()
	get, isTuple := l.tuples[of]
	if !ok || !isTuple {
		return l.refusal("getitem", "an index into "+of+", which is not a tuple the importer wrote")
	}
	name, err := get(i[0])
	if err != nil {
		return err
	}
	l.names[n.Name] = name
	return nil
}

// pieces makes x's equal pieces of size along d, each on demand: x
// reshaped so that d is (pieces, size), then piece i is the sum over the
// pieces of x times the one-hot constant of i (exact: the other
// pieces are multiplied by 0 and added).
func (l *lowering) pieces(n *node, x string, d, size int, keepDim bool) error {
	sh := l.shapes[x]
	d = dim(d, len(sh))
	if size <= 0 || sh[d]%size != 0 {
		return l.refusal(n.Target, fmt.Sprintf("pieces of %d along dim %d of %v: the importer writes equal pieces", size, d, sh))
	}
	count := sh[d] / size
	grouped := slices.Concat(sh[:d], tensor.Shape{count, size}, sh[d+1:])
	var g string
	l.tuples[n.Name] = func(i int) (string, error) {
		if i < 0 || i >= count {
			return "", l.refusal(n.Target, fmt.Sprintf("piece %d of %d", i, count))
		}
		out := slices.Concat(sh[:d], tensor.Shape{size}, sh[d+1:])
		if !keepDim {
			out = slices.Concat(sh[:d], sh[d+1:])
		}
		if count == 1 {
			return l.reshapeTo(fmt.Sprintf("%s_%d", n.Name, i), x, out), nil
		}
		if g == "" {
			g = l.reshapeTo(n.Name+"_grouped", x, grouped)
		}
		maskShape := make(tensor.Shape, len(grouped)-d)
		for k := range maskShape {
			maskShape[k] = 1
		}
		maskShape[0] = count
		oneHot := make([]float32, count)
		oneHot[i] = 1
		t, err := tensor.FromSlice(maskShape, oneHot)
		if err != nil {
			return "", err
		}
		mask := l.constant(fmt.Sprintf("piece %d of %d, rank %d", i, count, len(maskShape)), fmt.Sprintf("piece_%d_of_%d", i, count), t)
		picked := l.emit(fmt.Sprintf("%s_%d_picked", n.Name, i), grouped, "mul %s %s", g, mask)
		summed := grouped.Clone()
		summed[d] = 1
		s := l.emit(fmt.Sprintf("%s_%d_sum", n.Name, i), summed, "sum %s %s", picked, summed.Spell())
		return l.reshapeTo(fmt.Sprintf("%s_%d", n.Name, i), s, out), nil
	}
	return nil
}

// split is torch.split (and chunk) into equal pieces.
func split(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d := 0
	if v, ok := n.kwarg("dim", 2).ints(); ok {
		d = v[0]
	}
	sizes, ok := n.arg(1).ints()
	if !ok || len(sizes) == 0 {
		return l.refusal(n.Target, "its sizes are not numbers")
	}
	for _, s := range sizes {
		if s != sizes[0] {
			return l.refusal(n.Target, fmt.Sprintf("pieces of sizes %v: the importer writes equal pieces", sizes))
		}
	}
	return l.pieces(n, x, d, sizes[0], true)
}

// unbind is pieces of size 1, the dim dropped.
func unbind(l *lowering, n *node) error {
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	d := 0
	if v, ok := n.kwarg("dim", 1).ints(); ok {
		d = v[0]
	}
	return l.pieces(n, x, d, 1, false)
}

// oneHot writes eq(ids[..., None], 0…n−1): 1 at each id's place.
func (l *lowering) oneHot(base, ids string, n int) string {
	col := l.reshapeTo(base+"_col", ids, slices.Concat(l.shapes[ids], tensor.Shape{1}))
	return l.emit(base+"_onehot", slices.Concat(l.shapes[ids], tensor.Shape{n}), "eq %s %s", col, l.arange(n))
}

// embedding is one-hot(ids)·table.
func embedding(l *lowering, n *node) error {
	table, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	ids, err := l.name(n, n.arg(1))
	if err != nil {
		return err
	}
	if len(l.shapes[ids]) == 0 || len(l.shapes[table]) != 2 {
		return l.refusal(n.Target, fmt.Sprintf("ids of shape %v into a table of %v", l.shapes[ids], l.shapes[table]))
	}
	o := l.oneHot(n.Name, ids, l.shapes[table][0])
	l.names[n.Name] = l.emit(n.Name, n.outShape(), "matmul %s %s", o, table)
	return nil
}

// nllLoss is −Σ one-hot(target)·logp over the rows, divided by their
// count (reduction mean) or not (sum); every target counts (an
// ignore_index that occurs would be summed as a zero row and still
// counted).
func nllLoss(l *lowering, n *node) error {
	logp, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	target, err := l.name(n, n.arg(1))
	if err != nil {
		return err
	}
	if !n.arg(2).absent() {
		return l.refusal(n.Target, "class weights")
	}
	red, _ := n.arg(3).ints()
	sh := l.shapes[logp]
	if len(sh) != 2 || len(red) != 1 || red[0] != 1 && red[0] != 2 {
		return l.refusal(n.Target, fmt.Sprintf("log-probabilities of %v with reduction %v; the importer writes [N, C] with mean or sum", sh, red))
	}
	o := l.oneHot(n.Name, target, sh[1])
	p := l.emit(n.Name+"_picked", sh, "mul %s %s", logp, o)
	s := l.emit(n.Name+"_sum", tensor.Shape{}, "sum %s ()", p)
	f := -1.0
	if red[0] == 1 {
		f = -1 / float64(sh[0])
	}
	loss := l.emit(n.Name, tensor.Shape{}, "scale %s %s", s, spellFloat(f))
	l.tuples[n.Name] = func(i int) (string, error) {
		if i != 0 {
			return "", l.refusal(n.Target, "its total weight")
		}
		return loss, nil
	}
	return nil
}
