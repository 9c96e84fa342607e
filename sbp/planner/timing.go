package planner

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/minsum"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// A plan on a named cluster (Options.Cluster) is timed: every boxing by
// its collectives along the mesh dims they cross (cluster.TimeBoxing:
// the ring time of each step over its dim's link, the steps summed),
// every op by the roofline of its slowest device's shards
// (cluster.TimeOp), a step being either compute or communication. The
// plan's time is their sum (no overlap); OverlapTimeS is the same steps
// scheduled on two streams per device, one computing and one
// communicating, each step in program order starting once its stream is
// free and its inputs are made, so that a boxing overlaps the compute
// before it that it does not wait for.
//
// Under Cost Time exact minimises that sum instead of the bytes: a
// tensor's factor costs its tree of boxings in time, and each op adds
// its own time under each candidate (a factor over the op alone).

// Cost is what the exact search minimises.
type Cost string

const (
	// Bytes: the bytes the boxings send (ties: fewer boxings).
	Bytes Cost = "bytes"
	// Time: the plan's time on its cluster, compute and communication
	// summed (ties: fewer boxings).
	Time Cost = "time"
)

// ParseCost reads "bytes" or "time".
func ParseCost(s string) (Cost, error) {
	switch Cost(s) {
	case Bytes, Time:
		return Cost(s), nil
	}
	return "", fmt.Errorf("program: cost %q: choose bytes or time", s)
}

// onCluster sets the planner's cluster and cost from o: Cost "" is
// Time with a cluster and Bytes without, Time needs a cluster, and the
// cluster needs a link per mesh dim of the placement.
func (pl *planner) onCluster(o Options) error {
	cost := o.Cost
	if cost == "" {
		cost = Bytes
		if o.Cluster != nil {
			cost = Time
		}
	}
	if _, err := ParseCost(string(cost)); err != nil {
		return err
	}
	if cost == Time && o.Cluster == nil {
		return &program.Error{Err: fmt.Errorf("cost time needs a cluster to time the steps on")}
	}
	if o.Cluster != nil {
		c, err := o.Cluster.On(pl.p) // a cluster of levels: each mesh dim's link
		if err != nil {
			return &program.Error{Err: err}
		}
		c = c.Clone()
		pl.clu = &c
	}
	pl.cost, pl.opPs = cost, make([][]int64, len(pl.g.Nodes))
	return nil
}

// picosecond is the exact search's unit of time: a time in seconds is
// rounded to whole picoseconds, so that factors stay integers (2^47 ps,
// the most a weight holds, is 140 s).
const picosecond = 1e-12

// ps is t seconds in the search's unit, kept at minsum.Infinite.
func ps(t float64) int64 {
	v := math.Round(t / picosecond)
	if v >= float64(minsum.Infinite>>16) {
		return minsum.Infinite >> 16
	}
	return int64(v)
}

// boxingCost is the cost of boxing x from one layout to another in the
// search's unit: bytes, or under Cost Time picoseconds on the cluster.
func (pl *planner) boxingCost(b sbp.Boxing) (int64, error) {
	if pl.cost != Time {
		return b.SendBytes, nil
	}
	t, err := cluster.TimeBoxing(*pl.clu, b)
	if err != nil {
		return 0, err
	}
	return ps(t.TimeS), nil
}

// opCost is op node i's own cost under candidate k: its time in
// picoseconds under Cost Time (memoized), else 0.
func (pl *planner) opCost(i, k int) int64 {
	switch {
	case pl.cost != Time:
		return 0
	case pl.g.Nodes[i].Kind != graph.KindOp: // an auto input computes nothing; fitMemory may price its memory
		if pl.lambda == 0 || pl.cands[i] == nil {
			return 0
		}
		return int64(pl.lambda * float64(pl.staticBytes(i, k)))
	}
	if pl.opPs[i] == nil {
		pl.opPs[i] = make([]int64, len(pl.cands[i]))
		for k := range pl.opPs[i] {
			pl.opPs[i][k] = minsum.Infinite >> 16
			if t, err := pl.timeOp(i, pl.cands[i][k]); err == nil {
				pl.opPs[i][k] = ps(t.TimeS)
			}
		}
	}
	return pl.opPs[i][k]
}

// timeOp times op node i under candidate c on the plan's cluster.
func (pl *planner) timeOp(i int, c cand) (cluster.OpTime, error) {
	n := pl.g.Nodes[i]
	shapes := make([]tensor.Shape, len(n.Args))
	ins := make([]sbp.NdSbp, len(n.Args))
	for j, a := range pl.args[i] {
		shapes[j] = pl.g.Nodes[pl.def[a]].Shape
		ins[j] = pl.nds[c.in[j]]
	}
	plan, err := sbp.PlanOpAs(n.Op, shapes, pl.p, ins, pl.nds[c.out])
	if err != nil {
		return cluster.OpTime{}, err
	}
	return cluster.TimeOp(*pl.clu, n.Op, plan, pl.prec[pl.out[i]])
}

// timeBoxingStep sets a boxing step's time on the plan's cluster.
func (pl *planner) timeBoxingStep(s *Step, b sbp.Boxing) error {
	if pl.clu == nil {
		return nil
	}
	t, err := cluster.TimeBoxing(*pl.clu, b)
	if err != nil {
		return err
	}
	s.TimeS, s.BoxingTime = t.TimeS, &t
	return nil
}

// timeOpStep sets an op step's time, work and bound on the plan's
// cluster: the slowest device's.
func (pl *planner) timeOpStep(s *Step, i int, c cand) error {
	if pl.clu == nil {
		return nil
	}
	t, err := pl.timeOp(i, c)
	if err != nil {
		return err
	}
	s.TimeS, s.FLOPs, s.MemBytes, s.Bound = t.TimeS, t.FLOPs, t.Bytes, string(t.Bound)
	return nil
}

// Timing is a plan's time on its cluster.
type Timing struct {
	TimeS        float64 `json:"time_s"`         // every step's time summed: compute plus communication, no overlap
	CommTimeS    float64 `json:"comm_time_s"`    // the boxings'
	ComputeTimeS float64 `json:"compute_time_s"` // the ops'
	// OverlapTimeS is the plan on two streams: each op starts once the
	// previous op is done and its inputs are made; each boxing an op
	// waits for starts once the previous such boxing is done and its
	// source is made; and the boxings nothing reads (a parameter's final
	// gradient) take the communication stream as their sources are made,
	// the first ready first, as data parallelism's bucketed all-reduces
	// run beside the backward.
	OverlapTimeS float64 `json:"overlap_time_s"`
}

// timing sums the steps' times and schedules them on two streams.
func timing(steps []Step) Timing {
	var t Timing
	done := map[string]float64{} // a step's name → when it is made
	var comm, compute float64    // when each stream is free
	read := map[string]bool{}    // the names a step reads
	for _, s := range steps {
		for _, a := range s.args {
			read[a] = true
		}
	}
	type trailing struct{ ready, took float64 }
	var last []trailing // the boxings nothing reads: scheduled after, by when they are ready
	for _, s := range steps {
		switch s.Kind {
		case StepBoxing:
			t.CommTimeS += s.TimeS
			if !read[s.Name] {
				last = append(last, trailing{done[s.args0()], s.TimeS})
				continue
			}
			start := max(comm, done[s.args0()])
			comm = start + s.TimeS
			done[s.Name] = comm
		case StepOp:
			t.ComputeTimeS += s.TimeS
			start := compute
			for _, a := range s.args {
				start = max(start, done[a])
			}
			compute = start + s.TimeS
			done[s.Name] = compute
		}
	}
	slices.SortStableFunc(last, func(a, b trailing) int { return cmp.Compare(a.ready, b.ready) })
	for _, b := range last {
		comm = max(comm, b.ready) + b.took
	}
	t.TimeS = t.CommTimeS + t.ComputeTimeS
	t.OverlapTimeS = max(comm, compute)
	return t
}

// args0 is a boxing step's source, or "".
func (s Step) args0() string {
	if len(s.args) == 0 {
		return ""
	}
	return s.args[0]
}
