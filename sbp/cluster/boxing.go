package cluster

import (
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// StepTime is the time of one boxing step: its collective along one mesh
// dim, run by every group of the devices that differ only there.
type StepTime struct {
	MeshDim    int            `json:"mesh_dim"`
	Collective sbp.Collective `json:"collective"`
	Devices    int            `json:"devices"` // n: the devices in each group
	// Bytes is S, the bytes of the tensor the slowest group holds as a
	// whole: the sum of its shards on the split side (S(i) -> B, P ->
	// S(i), S(i) -> S(j)), else one device's (P -> B).
	Bytes float64 `json:"bytes"`
	// Alpha and Beta are the link's for this collective (Link.For: its
	// own where the link carries them).
	Alpha float64 `json:"alpha_s"`
	Beta  float64 `json:"beta_bytes_per_s"`
	TimeS float64 `json:"time_s"` // Steps·α + Fraction·S/β of the slowest group (RingTerms)
}

// BoxingTime is the time of a whole boxing: its steps in order, and
// their sum.
type BoxingTime struct {
	Steps []StepTime `json:"steps"`
	TimeS float64    `json:"time_s"`
}

// TimeBoxing times boxing b on cluster c: every step along its mesh dim
// m takes, in each group of n devices along m, the ring time of its
// collective over c.Links[m] (RingTerms, at the link's α and β for that
// collective: Link.For) for the group's tensor of S bytes; the groups
// run at once, so the slowest decides the step, and the boxing takes the
// sum of its steps:
//
//	T = Σ_steps max_groups (steps(n)·α_m + fraction(n)·S_group/β_m)
//
// A boxing with no steps takes 0. c must fit b's placement (Cluster.On
// gives it its links).
func TimeBoxing(c Cluster, b sbp.Boxing) (BoxingTime, error) {
	c, err := c.On(b.Placement)
	if err != nil {
		return BoxingTime{}, err
	}
	dt, err := tensor.ParseDType(b.DType)
	if err != nil {
		return BoxingTime{}, newError(ErrUnsupported, c.Name, "", "boxing %v from %v to %v: %v", b.Shape, b.From, b.To, err)
	}
	width := int64(dt.Size())
	if b.ElemBytes > 0 {
		width = int64(b.ElemBytes) // a 16-bit tensor (sbp.Boxing.AtWidth)
	}
	out := BoxingTime{Steps: []StepTime{}}
	for _, st := range b.Steps {
		s, err := timeStep(c, b.Placement, st, width)
		if err != nil {
			return BoxingTime{}, err
		}
		out.Steps = append(out.Steps, s)
		out.TimeS += s.TimeS
	}
	return out, nil
}

// timeStep times one step of a boxing whose elements are e bytes.
func timeStep(c Cluster, p sbp.Placement, st sbp.Step, e int64) (StepTime, error) {
	m := st.MeshDim
	if len(st.Ranks) != p.Size() || m < 0 || m >= p.MeshRank() || m >= len(st.From) || m >= len(st.To) {
		return StepTime{}, newError(ErrUnsupported, c.Name, "", "a %s step on mesh dim %d for %d devices does not fit the boxing's placement %v", st.Collective, m, len(st.Ranks), p)
	}
	if m >= len(c.Links) {
		return StepTime{}, newError(ErrMesh, c.Name, "links", "a %s step on mesh dim %d, but the cluster has %s", st.Collective, m, plural(len(c.Links), "link"))
	}
	l := c.Links[m]
	groups := p.Groups(m)
	out := StepTime{MeshDim: m, Collective: st.Collective}
	out.Alpha, out.Beta = l.For(st.Collective)
	for _, g := range groups {
		var sum, one float64
		splitBefore, splitAfter := st.From[m].Kind == sbp.Split, st.To[m].Kind == sbp.Split
		for _, i := range g {
			before, after := shapeBytes(st.Ranks[i].Before, e), shapeBytes(st.Ranks[i].After, e)
			switch {
			case splitBefore:
				sum += before
			case splitAfter:
				sum += after
			default:
				one = max(one, before)
			}
		}
		s := sum
		if !splitBefore && !splitAfter {
			s = one
		}
		t, err := l.Time(st.Collective, len(g), s)
		if err != nil {
			return StepTime{}, newError(ErrUnsupported, c.Name, "", "step along mesh dim %d: %s", m, strings.TrimPrefix(err.Error(), "cluster: "))
		}
		if t >= out.TimeS {
			out.TimeS, out.Bytes, out.Devices = t, s, len(g)
		}
	}
	return out, nil
}

// shapeBytes is the bytes of a shard of shape s with e-byte elements
// (shapes come from PlanBoxing, so they are valid).
func shapeBytes(s tensor.Shape, e int64) float64 {
	n := float64(e)
	for _, d := range s {
		n *= float64(d)
	}
	return n
}
