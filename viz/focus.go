package viz

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// FocusKind is what sort of thing a focus names: a cell of a grid, a
// storage element, a device, or a step of a program's plan. Its text
// form ("cell", "storage", "device", "step") is what the JSON export, the
// browser's API and the scripts write.
type FocusKind uint8

const (
	// FocusNone is the zero value: a focus that names nothing.
	FocusNone FocusKind = iota
	// FocusCell is a cell of a grid: an operand's cell, the output's, or
	// (Operand "global") a cell of a shard scene's logical tensor.
	FocusCell
	// FocusStorage is an element of an operand's storage, by offset.
	FocusStorage
	// FocusDevice is a device of the mesh, by rank: in a shard scene, or
	// a device's row under a program's step (Offset is that step; Equal
	// ignores it, so a rank is one device across the steps).
	FocusDevice
	// FocusStep is a step of a program's plan (an op or a boxing), by
	// its index in Offset.
	FocusStep
)

var focusKindNames = [...]string{FocusNone: "", FocusCell: "cell", FocusStorage: "storage", FocusDevice: "device", FocusStep: "step"}

// String is the kind's text form.
func (k FocusKind) String() string {
	if int(k) < len(focusKindNames) {
		return focusKindNames[k]
	}
	return fmt.Sprintf("FocusKind(%d)", k)
}

// MarshalText writes the kind's text form.
func (k FocusKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads "cell", "storage", "device" or "step" ("" is
// FocusNone).
func (k *FocusKind) UnmarshalText(b []byte) error {
	i := slices.Index(focusKindNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("viz: focus kind %q: want cell, storage, device or step", b)
	}
	*k = FocusKind(i)
	return nil
}

// Focus is what a person points at or pins, or a lesson asks about: a cell
// (Operand and Index), a storage element (Operand and Offset), a device
// (Rank) or a program's step (Offset, its index in the plan from 0). Only
// the fields its kind uses count (Equal).
type Focus struct {
	Kind    FocusKind `json:"kind"`
	Operand string    `json:"operand"` // cell: "out", "x", "a", "b" or "global"; storage: "x", "a" or "b"
	Index   []int     `json:"index"`   // cell
	Offset  int       `json:"offset"`  // storage: the offset; step: its index (a program's device row: the step it is under)
	Rank    int       `json:"rank"`    // device: its rank in the placement
}

// Equal reports whether f and g name the same thing: the fields their
// kind uses are equal.
func (f Focus) Equal(g Focus) bool {
	if f.Kind != g.Kind {
		return false
	}
	switch f.Kind {
	case FocusCell:
		return f.Operand == g.Operand && slices.Equal(f.Index, g.Index)
	case FocusStorage:
		return f.Operand == g.Operand && f.Offset == g.Offset
	case FocusDevice:
		return f.Rank == g.Rank
	case FocusStep:
		return f.Offset == g.Offset
	}
	return true
}

// SameFocus reports whether f and g name the same thing, as Equal does;
// nil names nothing, so it is the same only as nil.
func SameFocus(f, g *Focus) bool {
	if f == nil || g == nil {
		return f == g
	}
	return f.Equal(*g)
}

// String spells f as lessons and messages write it: out[1,2,0] (a cell),
// [5,2] (a cell of a shard scene's logical tensor), x[5] (a storage
// element), rank 2 (a device), step 3 (a program's step, from 1).
// ParseFocus reads it back.
func (f Focus) String() string {
	switch f.Kind {
	case FocusStorage:
		return fmt.Sprintf("%s[%d]", f.Operand, f.Offset)
	case FocusCell:
		if f.Operand == "global" {
			return "[" + joinInts(f.Index) + "]"
		}
		return f.Operand + "[" + joinInts(f.Index) + "]"
	case FocusDevice:
		return fmt.Sprintf("rank %d", f.Rank)
	case FocusStep:
		return fmt.Sprintf("step %d", f.Offset+1)
	}
	return "nothing"
}

// clone is f with an Index of its own.
func (f Focus) clone() Focus {
	f.Index = slices.Clone(f.Index)
	return f
}

var (
	focusRE = regexp.MustCompile(`^(out|x|a|b)?\[\s*(-?\d+(?:\s*,\s*-?\d+)*)?\s*\]$`)
	rankRE  = regexp.MustCompile(`^rank\s+(\d+)$`)
	stepRE  = regexp.MustCompile(`^step\s+(\d+)$`)
)

// ParseFocus reads what Focus.String writes for the things a lesson asks
// about: a storage element "x[5]" (or a[…], b[…]), an output cell
// "out[1,2,0]", a cell of a shard scene's logical tensor "[5,2]", or a
// device "rank 2", a program's step "step 3" (counted from 1).
func ParseFocus(s string) (Focus, error) {
	s = strings.TrimSpace(s)
	if m := rankRE.FindStringSubmatch(s); m != nil {
		r, err := strconv.Atoi(m[1])
		if err != nil {
			return Focus{}, fmt.Errorf("viz: %q: the rank is too large", s)
		}
		return Focus{Kind: FocusDevice, Rank: r}, nil
	}
	if m := stepRE.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 {
			return Focus{}, fmt.Errorf("viz: %q: steps count from 1", s)
		}
		return Focus{Kind: FocusStep, Offset: n - 1}, nil
	}
	m := focusRE.FindStringSubmatch(s)
	if m == nil {
		return Focus{}, fmt.Errorf("viz: %q is not out[i,j,…], x[offset], a[offset], b[offset], [i,j,…], rank N or step N", s)
	}
	var idx []int
	if m[2] != "" {
		for _, part := range strings.Split(m[2], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil {
				return Focus{}, fmt.Errorf("viz: %q: %q is not a whole number", s, part)
			}
			idx = append(idx, n)
		}
	}
	switch m[1] {
	case "":
		return Focus{Kind: FocusCell, Operand: "global", Index: idx}, nil
	case "out":
		return Focus{Kind: FocusCell, Operand: "out", Index: idx}, nil
	}
	if len(idx) != 1 {
		return Focus{}, fmt.Errorf("viz: %q: a storage element has one offset, e.g. %s[5]", s, m[1])
	}
	return Focus{Kind: FocusStorage, Operand: m[1], Offset: idx[0]}, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
