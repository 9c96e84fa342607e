package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp"
)

// Level is one tier of a cluster built as a hierarchy: Devices blocks of
// the tier below (single devices, for the first) joined by Link. An
// 8-GPU node is the level {8, NVLink}; N such nodes add {N, InfiniBand}.
type Level struct {
	Devices int
	Link    Link
	// Wrap says the level's blocks form a ring with its wraparound (a
	// TPU torus axis of 16 chips), which Link's β counts both ways: a
	// group along all Devices of them gets that β, a group along fewer
	// (a line, no wraparound) half of it. Without Wrap (a switch: NVLink,
	// InfiniBand) every group gets Link.
	Wrap bool
}

// maxDevices is the most devices a cluster of levels may have: the
// sweeps go to 1,024, and a placement names each device.
const maxDevices = 1 << 16

// Size is how many devices c has: the product of its levels' Devices,
// or 0 for a cluster of links (any placement whose mesh has one dim a
// link).
func (c Cluster) Size() int {
	if len(c.Levels) == 0 {
		return 0
	}
	n := 1
	for _, l := range c.Levels {
		n *= l.Devices
	}
	return n
}

// On returns c as placement p sees it: one link per mesh dim of p. A
// cluster of links must already have one per mesh dim (otherwise the
// error wraps ErrMesh and says how many of each there are). A cluster
// of levels gives each mesh dim the link of the outermost level its
// groups cross (the slowest: a collective's ring is as fast as its
// slowest hop). Level l joins blocks of b_l = Π_{k<l} Devices_k devices,
// device d lying in block ⌊d / b_l⌋, so
//
//	link(m) = Levels[l*].Link,  l* = max{ l : two devices of one group along m differ in ⌊d / b_l⌋ }
//
// (the first level when no group holds two devices).
// On a 2-node h100-nodes:2, a 2×8 mesh's dim 1 stays in a node (NVLink)
// and its dim 0 crosses nodes (InfiniBand); a 1-D placement of 16
// crosses nodes; a 2×4 mesh of one node is NVLink on both dims. A
// device past the cluster's size is refused (ErrMesh).
func (c Cluster) On(p sbp.Placement) (Cluster, error) {
	if len(c.Levels) == 0 {
		if len(c.Links) != p.MeshRank() {
			return Cluster{}, newError(ErrMesh, c.Name, "links", "%s for %v, a %d-D mesh; give one link per mesh dim", plural(len(c.Links), "link"), p, p.MeshRank())
		}
		return c, nil // shares c's links: the planners time every boxing through here
	}
	size := c.Size()
	for i := range p.Size() {
		if d := p.Rank(i); d >= size {
			return Cluster{}, newError(ErrMesh, c.Name, "levels", "it has %s (%s), and device %d of the placement's %d is past them", plural(size, "device"), c.levelWords(), d, p.Size())
		}
	}
	out := Cluster{Name: c.Name, Device: c.Device, Links: make([]Link, p.MeshRank())}
	for m := range p.MeshRank() {
		crossed, line := 0, false
		for _, g := range p.Groups(m) {
			l, partial := c.crossed(p, g)
			if l > crossed {
				crossed, line = l, false
			}
			line = line || (l == crossed && partial)
		}
		out.Links[m] = c.Levels[crossed].Link
		if c.Levels[crossed].Wrap && line {
			out.Links[m].Beta /= 2 // a line along part of the ring: no wraparound
		}
	}
	return out, nil
}

// crossed is the outermost level whose blocks the devices at positions
// g of p do not share: the largest l with two of them in different
// blocks of size b_l (0 when they all sit in one block of the first
// level's, or g holds one device). partial says g spans fewer of that
// level's blocks than it joins (Level.Wrap's line).
func (c Cluster) crossed(p sbp.Placement, g []int) (level int, partial bool) {
	block := 1
	for l, lv := range c.Levels {
		blocks := map[int]bool{}
		for _, i := range g {
			blocks[p.Rank(i)/block] = true
		}
		if len(blocks) > 1 {
			level, partial = l, len(blocks) < lv.Devices
		}
		block *= lv.Devices
	}
	if level == 0 && len(g) < 2 {
		partial = false
	}
	return level, partial
}

// levelWords says how c's levels multiply out, innermost first: "8 × 4".
func (c Cluster) levelWords() string {
	parts := make([]string, len(c.Levels))
	for i, l := range c.Levels {
		parts[i] = strconv.Itoa(l.Devices)
	}
	return strings.Join(parts, " × ")
}

// A family is a preset with a size in its name: NAME:ARG builds the
// cluster (h100-nodes:4, tpu-v5e:16x16); usage says what ARG is.
type family struct {
	name, usage string
	build       func(arg string) (Cluster, error)
	// sized is the size that holds n devices, the least of them: ARG of
	// NAME:ARG, or an error past the family's largest.
	sized func(n int) (string, error)
}

// families is the table of sized presets; a new family is a row.
var families = []family{
	{"h100-nodes", "h100-nodes:N (N nodes of 8 H100s)", h100Nodes, func(n int) (string, error) {
		if n > 8*1024 {
			return "", fmt.Errorf("h100-nodes holds at most 8,192 GPUs (1,024 nodes), not %d", n)
		}
		return strconv.Itoa((n + 7) / 8), nil
	}},
	{"tpu-v5e", "tpu-v5e:RxC (an R×C TPU v5e slice)", tpuSlice, func(n int) (string, error) {
		if n > 256 {
			return "", fmt.Errorf("a tpu-v5e slice holds at most 256 chips (16×16), not %d", n)
		}
		cols := min(n, 16)
		return fmt.Sprintf("%dx%d", (n+cols-1)/cols, cols), nil
	}},
}

// h100Nodes is N DGX H100 nodes: NVLink 4 inside a node, InfiniBand NDR
// between nodes (one NIC per GPU, so each GPU's ring across nodes has
// its own rail).
func h100Nodes(arg string) (Cluster, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > 1024 {
		return Cluster{}, fmt.Errorf("the number of nodes must be a whole number from 1 to 1024, got %q", arg)
	}
	return Cluster{Name: "h100-nodes:" + arg, Levels: []Level{{Devices: 8, Link: nvlink}, {Devices: n, Link: ndr}}, Device: h100}, nil
}

// tpuSlice is an R×C TPU v5e slice, devices numbered row by row: a row's
// C chips along one axis of the 2-D torus, the R rows along the other.
// An axis of 16 chips has its wraparound, so a ring along all of it
// sends both ways (90 GB/s); a shorter axis, or part of one, has none
// (45 GB/s: docs/reference.md).
func tpuSlice(arg string) (Cluster, error) {
	r, c, ok := strings.Cut(arg, "x")
	rows, err1 := strconv.Atoi(r)
	cols, err2 := strconv.Atoi(c)
	if !ok || err1 != nil || err2 != nil || rows < 1 || rows > 16 || cols < 1 || cols > 16 {
		return Cluster{}, fmt.Errorf("the slice must be RxC, rows and columns each from 1 to 16 (4x4, 16x16), got %q", arg)
	}
	axis := func(n int) Level {
		if n == 16 {
			return Level{Devices: n, Link: ici, Wrap: true}
		}
		return Level{Devices: n, Link: iciNoWrap}
	}
	return Cluster{Name: "tpu-v5e:" + arg, Levels: []Level{axis(cols), axis(rows)}, Device: tpuV5e}, nil
}

// familyPreset builds the sized preset name names (NAME:ARG), reporting
// whether name is a family's at all.
func familyPreset(name string) (Cluster, bool, error) {
	base, arg, ok := strings.Cut(name, ":")
	if !ok {
		return Cluster{}, false, nil
	}
	f, ok := familyNamed(base)
	if !ok {
		return Cluster{}, false, nil
	}
	c, err := f.build(arg)
	if err != nil {
		return Cluster{}, true, newError(ErrNotFound, name, "", "%v", err)
	}
	return c, true, nil
}

// familyNamed is the family of that name, reporting whether there is one.
func familyNamed(name string) (family, bool) {
	for _, f := range families {
		if f.name == name {
			return f, true
		}
	}
	return family{}, false
}

// Family reports whether name is a family's (h100-nodes, tpu-v5e: a
// preset with a size to give it).
func Family(name string) bool {
	_, ok := familyNamed(name)
	return ok
}

// ForDevices is the least cluster of family name that holds n devices:
// h100-nodes for 20 GPUs is h100-nodes:3, tpu-v5e for 32 chips
// tpu-v5e:2x16. A name that is no family's, or n past the family's
// largest, is an error wrapping ErrNotFound.
func ForDevices(name string, n int) (Cluster, error) {
	f, ok := familyNamed(name)
	switch {
	case !ok:
		return Cluster{}, newError(ErrNotFound, name, "", "not a family of presets; the families are %s", listWords(FamilyUsages()))
	case n < 1:
		return Cluster{}, newError(ErrNotFound, name, "", "a cluster of %d devices: give 1 or more", n)
	}
	arg, err := f.sized(n)
	if err != nil {
		return Cluster{}, newError(ErrNotFound, name, "", "%v", err)
	}
	return f.build(arg)
}

// FamilyUsages says the sized presets, as the lists of presets name
// them: "h100-nodes:N (N nodes of 8 H100s)", ….
func FamilyUsages() []string {
	out := make([]string, len(families))
	for i, f := range families {
		out[i] = f.usage
	}
	return out
}

// validateLinks checks c's links or levels as Validate does: exactly one
// of the two, 1 to 8 of them, every number finite and positive, a
// level's devices a whole number from 1 and all of them at most
// maxDevices.
func (c Cluster) validateLinks() error {
	src := c.Name
	checkLink := func(path string, l Link) error {
		for _, n := range []struct {
			f field
			v float64
		}{{alphaField, l.Alpha}, {betaField, l.Beta}} {
			if err := checkNumber(src, path+"."+n.f.name, n.f, n.v); err != nil {
				return err
			}
		}
		return checkOwn(src, path, l)
	}
	switch {
	case len(c.Links) > 0 && len(c.Levels) > 0:
		return newError(ErrInvalid, src, "levels", "a cluster has links (one per mesh dim) or levels (a hierarchy), not both")
	case len(c.Levels) > 0:
		if len(c.Levels) > maxLinks {
			return newError(ErrInvalid, src, "levels", "must list 1 to %d levels, innermost first; got %d", maxLinks, len(c.Levels))
		}
		size := 1
		for i, l := range c.Levels {
			path := fmt.Sprintf("levels[%d]", i)
			if l.Devices < 1 || size > maxDevices/l.Devices {
				return newError(ErrInvalid, src, path+".devices", "must be a whole number from 1, the levels' product at most %d devices; got %d", maxDevices, l.Devices)
			}
			size *= l.Devices
			if err := checkLink(path, l.Link); err != nil {
				return err
			}
		}
	default:
		if len(c.Links) == 0 || len(c.Links) > maxLinks {
			return newError(ErrInvalid, src, "links", "must list 1 to %d links, one per mesh dim; got %d", maxLinks, len(c.Links))
		}
		for i, l := range c.Links {
			if err := checkLink(fmt.Sprintf("links[%d]", i), l); err != nil {
				return err
			}
		}
	}
	return nil
}

// PresetList is every preset's name and every family's usage, for a
// command's help and errors: "h100-node, two-h100-nodes, …,
// h100-nodes:N (N nodes of 8 H100s), tpu-v5e:RxC (…)".
func PresetList() string { return strings.Join(append(PresetNames(), FamilyUsages()...), ", ") }
