package sbp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// Kind is how one mesh dimension lays a logical tensor over its devices.
type Kind uint8

const (
	// Split: device i of the mesh dim holds the i-th balanced part of one
	// axis (BalancedSplit).
	Split Kind = iota + 1
	// Broadcast: every device holds the whole tensor.
	Broadcast
	// Partial: every device holds a tensor of the full shape, and the
	// logical tensor is their elementwise sum (or max, or min).
	Partial
)

// SBP is the distribution of a tensor along one mesh dimension: S(axis),
// B, or P(op). The zero SBP is invalid.
type SBP struct {
	Kind Kind
	Axis int             // the split axis, for Split
	Op   tensor.ReduceOp // how partial values combine, for Partial
}

// S returns split along axis.
func S(axis int) SBP { return SBP{Kind: Split, Axis: axis} }

// B is broadcast.
var B = SBP{Kind: Broadcast}

// P returns partial under op: sum (OneFlow's partial_sum), max or min
// (PyTorch DTensor's Partial("max"), Partial("min")).
func P(op tensor.ReduceOp) SBP { return SBP{Kind: Partial, Op: op} }

// PSum is P(sum), the only partial OneFlow has.
var PSum = P(tensor.Sum)

// String spells s as Parse reads it: S(1), B, P(sum), P(max), P(min).
func (s SBP) String() string {
	switch s.Kind {
	case Split:
		return fmt.Sprintf("S(%d)", s.Axis)
	case Broadcast:
		return "B"
	case Partial:
		return fmt.Sprintf("P(%v)", s.Op)
	}
	return "SBP(invalid)"
}

// Parse reads one SBP. It accepts the short spellings of the OneFlow
// documents — S(0), B, P (partial sum), P(sum), P(max), P(min) — and
// OneFlow's API names split(0), broadcast, partial_sum; spaces and case
// are ignored.
func Parse(s string) (SBP, error) {
	f := strings.ToLower(strings.Join(strings.Fields(s), ""))
	f = strings.TrimPrefix(f, "flow.sbp.")
	switch f {
	case "b", "broadcast":
		return B, nil
	case "p", "partial_sum", "p(sum)", "partial(sum)":
		return PSum, nil
	case "p(max)", "partial_max", "partial(max)":
		return P(tensor.MaxAll), nil
	case "p(min)", "partial_min", "partial(min)":
		return P(tensor.MinAll), nil
	}
	for _, prefix := range []string{"s(", "split("} {
		inner, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		digits, closed := strings.CutSuffix(inner, ")")
		axis, err := strconv.Atoi(digits)
		switch {
		case !closed || err != nil || digits[0] == '+':
			return SBP{}, newError(ErrParse, fmt.Sprintf("SBP %q", s), "write a split as S(axis) with a whole number, e.g. S(0)")
		case axis < 0:
			return SBP{}, newError(ErrParse, fmt.Sprintf("SBP %q", s), "the split axis is %d; it must be >= 0", axis)
		}
		return S(axis), nil
	}
	if strings.HasPrefix(f, "p(") || strings.HasPrefix(f, "partial") {
		return SBP{}, newError(ErrParse, fmt.Sprintf("SBP %q", s), "a partial is P (sum), P(sum), P(max) or P(min)")
	}
	return SBP{}, newError(ErrParse, fmt.Sprintf("SBP %q", s), "an SBP is S(axis), B or P, P(sum), P(max), P(min)")
}

// NdSbp is one SBP per mesh dimension of a placement, e.g. (S(0), B) on a
// 2-D mesh: the tensor is split along axis 0 over the mesh's rows and
// broadcast over its columns.
type NdSbp []SBP

// String spells n as ParseNd reads it: S(0) for one mesh dim, (S(0), B)
// for more.
func (n NdSbp) String() string {
	if len(n) == 1 {
		return n[0].String()
	}
	return "(" + join(n, ", ") + ")"
}

// JoinNd spells nds as String does each, with sep between them: the
// inputs of a signature, "S(0) x B".
func JoinNd(nds []NdSbp, sep string) string { return join(nds, sep) }

// Equal reports whether n and m are the same SBP on every mesh dim.
func (n NdSbp) Equal(m NdSbp) bool { return slices.Equal(n, m) }

// Clone returns a copy of n.
func (n NdSbp) Clone() NdSbp { return append(NdSbp{}, n...) }

// ParseNd reads an nd-SBP: one SBP ("S(0)") or a comma-separated list in
// parentheses or brackets ("(S(0), B)", "[S(0),B]", or bare "S(0),B").
func ParseNd(s string) (NdSbp, error) {
	f := strings.TrimSpace(s)
	if len(f) >= 2 && (f[0] == '(' && f[len(f)-1] == ')' || f[0] == '[' && f[len(f)-1] == ']') {
		f = f[1 : len(f)-1]
	}
	if strings.TrimSpace(f) == "" {
		return nil, newError(ErrParse, fmt.Sprintf("nd-SBP %q", s), "give one SBP per mesh dim, e.g. S(0) or (S(0), B)")
	}
	var out NdSbp
	depth, start := 0, 0
	for i := 0; i <= len(f); i++ {
		if i < len(f) {
			switch f[i] {
			case '(':
				depth++
				continue
			case ')':
				depth--
				continue
			}
			if f[i] != ',' || depth > 0 {
				continue
			}
		}
		one, err := Parse(f[start:i])
		if err != nil {
			return nil, newError(ErrParse, fmt.Sprintf("nd-SBP %q", s), "entry %d: %s", len(out), err.(*Error).Detail)
		}
		out = append(out, one)
		start = i + 1
	}
	return out, nil
}

// MarshalText writes s as String does, so JSON shows "S(0)".
func (s SBP) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads s as Parse does.
func (s *SBP) UnmarshalText(b []byte) (err error) {
	*s, err = Parse(string(b))
	return err
}

// MarshalText writes n as String does, so JSON shows "(S(0), B)".
func (n NdSbp) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalText reads n as ParseNd does.
func (n *NdSbp) UnmarshalText(b []byte) (err error) {
	*n, err = ParseNd(string(b))
	return err
}

// join spells xs with sep between them.
func join[T fmt.Stringer](xs []T, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, sep)
}
