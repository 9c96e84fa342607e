package sbp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxDevices bounds a placement so that a typo such as "2000000" is an
// error rather than two million simulated devices.
const maxDevices = 4096

// Placement is where a global tensor lives, as OneFlow's
// flow.placement(type, ranks): a device type and the ranks of its devices,
// laid out as a 1-D list or an n-D mesh (the hierarchy). A global tensor
// has one SBP per mesh dimension.
//
// Devices are numbered by their position in the mesh, row-major: position
// i has mesh coordinate Coord(i) and process rank Rank(i).
type Placement struct {
	device    string
	ranks     []int // row-major over hierarchy
	hierarchy []int
}

// Devices is the placement of n devices of type cpu with ranks 0..n-1.
func Devices(n int) (Placement, error) {
	ranks := make([]int, max(n, 0))
	for i := range ranks {
		ranks[i] = i
	}
	return NewPlacement("cpu", ranks, []int{n})
}

// NewPlacement returns the placement of ranks (row-major) on a mesh of the
// given hierarchy. device is "cpu" or "cuda"; ranks must be distinct and
// >= 0 and fill the mesh exactly.
func NewPlacement(device string, ranks []int, hierarchy []int) (Placement, error) {
	op := fmt.Sprintf("placement %s %v on mesh %v", device, ranks, hierarchy)
	if device != "cpu" && device != "cuda" {
		return Placement{}, newError(ErrPlacement, op, "device type %q: use cpu or cuda", device)
	}
	if len(hierarchy) == 0 {
		return Placement{}, newError(ErrPlacement, op, "the mesh needs at least one dimension")
	}
	n := 1
	for d, h := range hierarchy {
		if h < 1 {
			return Placement{}, newError(ErrPlacement, op, "mesh dim %d has %d devices; each needs at least 1", d, h)
		}
		if n > maxDevices/h {
			return Placement{}, newError(ErrPlacement, op, "more than %d devices", maxDevices)
		}
		n *= h
	}
	if n != len(ranks) {
		return Placement{}, newError(ErrPlacement, op, "a mesh %v holds %d devices but %d ranks are given", hierarchy, n, len(ranks))
	}
	seen := map[int]bool{}
	for _, r := range ranks {
		if r < 0 {
			return Placement{}, newError(ErrPlacement, op, "rank %d is negative", r)
		}
		if seen[r] {
			return Placement{}, newError(ErrPlacement, op, "rank %d appears twice", r)
		}
		seen[r] = true
	}
	return Placement{device: device, ranks: append([]int{}, ranks...), hierarchy: append([]int{}, hierarchy...)}, nil
}

// ParsePlacement reads a placement. The device type is an optional prefix
// ("cpu:", the default, or "cuda:"), followed by
//
//	4              four devices, ranks 0..3
//	0-3            ranks 0 to 3
//	0,1,4,5        those ranks (items may be ranges: 0-1,4-5)
//	[0,1,2,3]      a 1-D list in brackets
//	[[0,1],[2,3]]  a 2-D mesh of 2×2 devices (deeper nesting: n-D)
//
// A single bare number is a count; write [2] for rank 2 alone.
func ParsePlacement(s string) (Placement, error) {
	op := fmt.Sprintf("placement %q", s)
	f := strings.Join(strings.Fields(s), "")
	device := "cpu"
	if before, after, ok := strings.Cut(f, ":"); ok {
		device, f = strings.ToLower(before), after
		if device != "cpu" && device != "cuda" {
			return Placement{}, newError(ErrParse, op, "device type %q: use cpu or cuda", before)
		}
	}
	if f == "" {
		return Placement{}, newError(ErrParse, op, "no ranks; write a count (4), a range (0-3), a list (0,1,2,3) or a mesh ([[0,1],[2,3]])")
	}
	var ranks, hierarchy []int
	var err error
	if f[0] == '[' {
		ranks, hierarchy, err = parseMesh(f)
	} else if n, convErr := strconv.Atoi(f); convErr == nil {
		if n < 1 || n > maxDevices {
			return Placement{}, newError(ErrParse, op, "%d devices; give 1 to %d", n, maxDevices)
		}
		p, _ := Devices(n)
		p.device = device
		return p, nil
	} else {
		ranks, err = parseRankList(f)
		hierarchy = []int{len(ranks)}
	}
	if err != nil {
		return Placement{}, newError(ErrParse, op, "%v", err)
	}
	p, err := NewPlacement(device, ranks, hierarchy)
	if err != nil {
		return Placement{}, newError(ErrParse, op, "%s", err.(*Error).Detail)
	}
	return p, nil
}

// parseRankList reads "0,1,4-7".
func parseRankList(f string) ([]int, error) {
	var ranks []int
	for _, item := range strings.Split(f, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := parseRank(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = parseRank(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("range %s runs backwards", item)
			}
		}
		if len(ranks)+b-a+1 > maxDevices {
			return nil, fmt.Errorf("more than %d devices", maxDevices)
		}
		for r := a; r <= b; r++ {
			ranks = append(ranks, r)
		}
	}
	return ranks, nil
}

func parseRank(s string) (int, error) {
	r, err := strconv.Atoi(s)
	if err != nil || s == "" || s[0] == '+' || s[0] == '-' {
		return 0, fmt.Errorf("rank %q is not a whole number >= 0", s)
	}
	return r, nil
}

// parseMesh reads nested brackets of ranks, e.g. [[0,1],[2,3]], and
// returns the ranks row-major with the mesh's hierarchy.
func parseMesh(f string) (ranks, hierarchy []int, err error) {
	pos := 0
	var walk func(depth int) ([]int, error) // returns the hierarchy below
	walk = func(depth int) ([]int, error) {
		if depth > 8 {
			return nil, fmt.Errorf("a mesh may have at most 8 dimensions")
		}
		if pos >= len(f) || f[pos] != '[' {
			return nil, fmt.Errorf("expected [ at position %d", pos)
		}
		pos++
		var sub []int
		count := 0
		for {
			if pos < len(f) && f[pos] == '[' {
				h, err := walk(depth + 1)
				if err != nil {
					return nil, err
				}
				if count > 0 && !slices.Equal(h, sub) {
					return nil, fmt.Errorf("rows of different lengths (%v and %v); a mesh must be rectangular", sub, h)
				}
				sub = h
			} else {
				end := pos
				for end < len(f) && f[end] != ',' && f[end] != ']' {
					end++
				}
				r, err := parseRank(f[pos:end])
				if err != nil {
					return nil, err
				}
				if count > 0 && sub != nil {
					return nil, fmt.Errorf("a rank beside a row; a mesh must be rectangular")
				}
				if len(ranks) >= maxDevices {
					return nil, fmt.Errorf("more than %d devices", maxDevices)
				}
				ranks = append(ranks, r)
				pos = end
			}
			count++
			if pos >= len(f) {
				return nil, fmt.Errorf("missing ]")
			}
			if f[pos] == ']' {
				pos++
				return append([]int{count}, sub...), nil
			}
			if f[pos] != ',' {
				return nil, fmt.Errorf("unexpected %q at position %d", f[pos], pos)
			}
			pos++
			if pos < len(f) && sub == nil && count > 0 && f[pos] == '[' {
				return nil, fmt.Errorf("a row beside a rank; a mesh must be rectangular")
			}
		}
	}
	hierarchy, err = walk(1)
	if err == nil && pos != len(f) {
		err = fmt.Errorf("unexpected %q after the mesh", f[pos:])
	}
	return ranks, hierarchy, err
}

// Device returns the device type, "cpu" or "cuda".
func (p Placement) Device() string { return p.device }

// Size returns the number of devices.
func (p Placement) Size() int { return len(p.ranks) }

// Ranks returns the ranks, row-major over the mesh.
func (p Placement) Ranks() []int { return append([]int{}, p.ranks...) }

// Hierarchy returns the mesh's shape: [n] for a 1-D placement.
func (p Placement) Hierarchy() []int { return append([]int{}, p.hierarchy...) }

// MeshRank returns the number of mesh dimensions: how many SBPs a global
// tensor on p has.
func (p Placement) MeshRank() int { return len(p.hierarchy) }

// Rank returns the process rank of the device at position i.
func (p Placement) Rank(i int) int { return p.ranks[i] }

// Coord returns the mesh coordinate of the device at position i:
// i = Σ_m coord[m]·Π_{m'>m} hierarchy[m'].
func (p Placement) Coord(i int) []int {
	c := make([]int, len(p.hierarchy))
	p.coord(c, i)
	return c
}

// coord writes Coord(i) into c (len(c) is the mesh's rank).
func (p Placement) coord(c []int, i int) {
	for m := len(p.hierarchy) - 1; m >= 0; m-- {
		c[m] = i % p.hierarchy[m]
		i /= p.hierarchy[m]
	}
}

// Equal reports whether p and q are the same devices on the same mesh.
func (p Placement) Equal(q Placement) bool {
	return p.device == q.device && slices.Equal(p.ranks, q.ranks) && slices.Equal(p.hierarchy, q.hierarchy)
}

// String spells p as ParsePlacement reads it: cpu:[0,1,2,3] or
// cpu:[[0,1],[2,3]].
func (p Placement) String() string { return p.device + ":" + p.Nested() }

// Nested spells the ranks as nested lists, [[0,1],[2,3]], the form both
// OneFlow's placement and PyTorch's DeviceMesh take.
func (p Placement) Nested() string {
	var b strings.Builder
	var walk func(m, base, step int)
	walk = func(m, base, step int) {
		b.WriteByte('[')
		step /= p.hierarchy[m]
		for k := 0; k < p.hierarchy[m]; k++ {
			if k > 0 {
				b.WriteString(", ")
			}
			if m == len(p.hierarchy)-1 {
				b.WriteString(strconv.Itoa(p.ranks[base+k]))
			} else {
				walk(m+1, base+k*step, step)
			}
		}
		b.WriteByte(']')
	}
	if len(p.ranks) > 0 {
		walk(0, 0, len(p.ranks))
	}
	return b.String()
}

// Groups returns the positions of the devices that differ only in mesh
// dim m, one group per setting of the other coordinates, each ordered by
// its coordinate along m: the devices a collective along m runs among.
// On a 2×3 mesh, Groups(0) is [[0 3] [1 4] [2 5]] and Groups(1) is
// [[0 1 2] [3 4 5]]. m must be a mesh dim, 0 <= m < MeshRank() (a
// programmer's error otherwise: it panics).
func (p Placement) Groups(m int) [][]int {
	var out [][]int
	p.eachGroup(m, make([]int, p.hierarchy[m]), func(g []int) { out = append(out, slices.Clone(g)) })
	return out
}

// eachGroup calls fn with each of Groups(m) in turn, written into g
// (hierarchy[m] ints, reused), so that a caller who only reads them
// allocates nothing.
func (p Placement) eachGroup(m int, g []int, fn func(g []int)) {
	inner := 1
	for _, h := range p.hierarchy[m+1:] {
		inner *= h
	}
	k := p.hierarchy[m]
	for i := range p.ranks {
		if (i/inner)%k != 0 {
			continue
		}
		for c := range g {
			g[c] = i + c*inner
		}
		fn(g)
	}
}

// MarshalText writes p as String does, so JSON shows "cpu:[[0, 1], [2, 3]]".
func (p Placement) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads p as ParsePlacement does.
func (p *Placement) UnmarshalText(b []byte) (err error) {
	*p, err = ParsePlacement(string(b))
	return err
}
