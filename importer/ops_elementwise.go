package importer

import (
	"fmt"
	"math"
)

// Products and elementwise ops: matmul, the arithmetic with numbers as
// scales or constants, the unary ops and the activations written out of
// them, and the masks folded at import (opTable).

func matmul(l *lowering, n *node) error {
	t, err := l.tensors(n, 0, 1)
	if err != nil {
		return err
	}
	a, b := t[0], t[1]
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
	t, err := l.tensors(n, 0, 1, 2)
	if err != nil {
		return err
	}
	bias, a, b := t[0], t[1], t[2]
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
		l.names[n.Name] = l.emit(n.Name, out, "square %s", x)
	case 3:
		sq := l.emit(n.Name+"_sq", out, "square %s", x)
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

// gelu is ½x·(1 + erf(x/√2)), torch's gelu (nn.GELU()), or the tanh
// form ½x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), torch's
// gelu(approximate="tanh") and GPT-2's gelu_new.
func gelu(l *lowering, n *node) error {
	form := n.kwarg("approximate", 1).str()
	if form != "tanh" && form != "none" && form != "" {
		return l.refusal(n.Target, "the approximation "+form+"; torch's are none (erf) and tanh")
	}
	x, err := l.name(n, n.arg(0))
	if err != nil {
		return err
	}
	sh := l.shapes[x]
	b := n.Name
	var t string
	if form == "tanh" {
		x2 := l.emit(b+"_x2", sh, "square %s", x)
		x3 := l.emit(b+"_x3", sh, "mul %s %s", x2, x)
		c := l.emit(b+"_c", sh, "scale %s 0.044715", x3)
		d := l.emit(b+"_d", sh, "add %s %s", x, c)
		u := l.emit(b+"_u", sh, "scale %s %s", d, spellFloat(math.Sqrt(2/math.Pi)))
		t = l.emit(b+"_tanh", sh, "tanh %s", u)
	} else {
		u := l.emit(b+"_u", sh, "scale %s %s", x, spellFloat(1/math.Sqrt2))
		t = l.emit(b+"_erf", sh, "erf %s", u)
	}
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
	keep := l.input(n.Keep.Name, n.Keep.Shape, l.whole(), n.Keep.Values, true, false, l.module+": where the mask keeps")
	fill := l.input(n.Fill.Name, n.Fill.Shape, l.whole(), n.Fill.Values, true, false, l.module+": what the mask fills in")
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
	keep := l.input(n.Keep.Name, n.Keep.Shape, l.whole(), n.Keep.Values, true, false, l.module+": where the varying branch is taken")
	fill := l.input(n.Fill.Name, n.Fill.Shape, l.whole(), n.Fill.Values, true, false, l.module+": the constant branch, where it is taken")
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
	t, err := l.tensors(n, 1, 2)
	if err != nil {
		return err
	}
	a, b := t[0], t[1]
	ya := l.emit(n.Name+"_a", out, "mul %s %s", a, keep)
	yb := l.emit(n.Name+"_b", out, "mul %s %s", b, fill)
	l.names[n.Name] = l.emit(n.Name, out, "add %s %s", ya, yb)
	return nil
}
