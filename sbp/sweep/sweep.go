// Package sweep plans one program on a growing number of devices: for
// each count, the program on a placement of that many (a 1-D one, or a
// 2-D mesh of nodes by devices within a node), on the least cluster of a
// family that holds them (cluster.ForDevices), or on one cluster, with
// its predicted step time split into compute and communication, each
// rank's peak against the device's memory, and the inputs' layouts: how
// the answer to "how fast, does it fit" changes as the cluster grows.
// `stridelab sweep` prints and plots it.
//
// The package imports the planner and builds and tests under GOOS=js.
package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
)

// Options says what to sweep.
type Options struct {
	// Devices are the device counts, in the order the rows come.
	Devices []int
	// Mesh is 1 (a placement of n devices in a row) or 2 (a mesh of n/k
	// by k, k the devices of the cluster's innermost level, a node's 8
	// GPUs or a slice's row, or n when fewer).
	Mesh int
	// Cluster gives the cluster for n devices: cluster.ForDevices of a
	// family, or one cluster for every n.
	Cluster func(n int) (cluster.Cluster, error)
	// Strategy plans each placement: exact (the default) or greedy.
	Strategy planner.Strategy
	// Progress, when set, is told of each row as it is done (i of n).
	Progress func(i, n int, r Row)
	// Program, when set, gives the program for a count's placement
	// where it differs by count (a batch per device: the model traced
	// again at n times the batch); Run's src is then not read. A count it
	// gives no program for gets a row with its error.
	Program func(ctx context.Context, p sbp.Placement) (string, error)
}

// Row is the program planned on one device count.
type Row struct {
	Devices   int    `json:"devices"`
	Placement string `json:"placement"`
	Cluster   string `json:"cluster"`
	// TimeS is the plan's step time (compute plus communication, one
	// after the other: planner.Timing), CommTimeS and ComputeTimeS its
	// two parts, OverlapTimeS the same steps on two streams.
	TimeS        float64 `json:"time_s"`
	CommTimeS    float64 `json:"comm_time_s"`
	ComputeTimeS float64 `json:"compute_time_s"`
	OverlapTimeS float64 `json:"overlap_time_s"`
	// ExactGap is, where exact did not prove the row's plan the cheapest
	// (planner.Plan.ExactUnproven), the share of its time the optimum
	// may lie below it; 0 where proven, and under greedy.
	ExactGap float64 `json:"exact_gap,omitempty"`
	// PeakHeldBytes is what the rank holding the most holds at its
	// peak (planner.Plan.Peak), CapacityBytes the device's memory, Fits
	// whether the one is within the other.
	PeakHeldBytes int64   `json:"peak_held_bytes"`
	CapacityBytes float64 `json:"capacity_bytes"`
	Fits          bool    `json:"fits"`
	// Layouts is every input's SBP, by name, as the plan has it, and
	// Scheme their name per mesh dim (scheme).
	Layouts map[string]string `json:"layouts"`
	Scheme  string            `json:"scheme"`
	// TokensPerSPerDevice is, where the program reads token ids (an
	// input written i32), their count over the step time over the
	// devices; SamplesPerSPerDevice the first data input's dim 0 (an i32
	// or const input split along dim 0) likewise.
	TokensPerSPerDevice  float64 `json:"tokens_per_s_per_device,omitempty"`
	SamplesPerSPerDevice float64 `json:"samples_per_s_per_device,omitempty"`
	// Error says why this count was not planned ("" when it was): a
	// placement the program's shapes or the cluster do not take.
	Error string `json:"error,omitempty"`
}

// Result is a sweep: its rows, and the program and strategy swept.
type Result struct {
	Strategy planner.Strategy `json:"strategy"`
	Mesh     string           `json:"mesh"`
	Rows     []Row            `json:"rows"`
}

// Run plans src (or o.Program's for each count) on every device count
// of o. A count the program or the cluster cannot take gets a row with
// its Error; a program that does not parse, or a cancelled ctx, fails
// the sweep.
func Run(ctx context.Context, src string, o Options) (*Result, error) {
	if o.Strategy == "" {
		o.Strategy = planner.Exact
	}
	if o.Mesh != 1 && o.Mesh != 2 {
		return nil, fmt.Errorf("sweep: the mesh is 1-D or 2-D, not %d-D", o.Mesh)
	}
	if len(o.Devices) == 0 {
		return nil, fmt.Errorf("sweep: no device counts to sweep")
	}
	if o.Program == nil {
		if err := meshOf(src, o.Mesh); err != nil {
			return nil, err
		}
	}
	res := &Result{Strategy: o.Strategy, Mesh: fmt.Sprintf("%dd", o.Mesh)}
	for i, n := range o.Devices {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		row, err := plan(ctx, src, n, o)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			row.Error = strings.TrimPrefix(err.Error(), "program: ")
		}
		res.Rows = append(res.Rows, row)
		if o.Progress != nil {
			o.Progress(i, len(o.Devices), row)
		}
	}
	return res, nil
}

// meshOf checks that src parses and its placement is a mesh of rank
// mesh, which its SBPs are written for.
func meshOf(src string, mesh int) error {
	base, err := program.Parse(src)
	if err != nil {
		return err
	}
	if base.Placement.MeshRank() != mesh {
		return fmt.Errorf("sweep: the program's placement %v is a %d-D mesh and its SBPs are written for one; a %d-D sweep needs a program written for a %d-D mesh", base.Placement, base.Placement.MeshRank(), mesh, mesh)
	}
	return nil
}

// plan plans src on n devices: the row, or why not.
func plan(ctx context.Context, src string, n int, o Options) (Row, error) {
	row := Row{Devices: n}
	if n < 1 {
		return row, fmt.Errorf("%d devices: give 1 or more", n)
	}
	c, err := o.Cluster(n)
	if err != nil {
		return row, err
	}
	row.Cluster, row.CapacityBytes = c.Name, c.Device.MemCapacity
	p, err := placement(n, o.Mesh, c)
	if err != nil {
		return row, err
	}
	row.Placement = p.Nested()
	if o.Program != nil {
		if src, err = o.Program(ctx, p); err != nil {
			return row, err
		}
		if err := meshOf(src, o.Mesh); err != nil {
			return row, err
		}
	}
	prog, err := program.Parse(program.WithPlacement(src, p))
	if err != nil {
		return row, err
	}
	pl, err := planner.NewPlanContext(ctx, prog, o.Strategy, planner.Options{Cluster: &c})
	if err != nil {
		return row, err
	}
	fill(&row, pl)
	return row, nil
}

// placement is n devices as a 1-D placement, or a 2-D mesh of n/k rows
// of k: k the cluster's innermost level's devices (a node's GPUs), or n
// when fewer; n must then be a multiple of k.
func placement(n, mesh int, c cluster.Cluster) (sbp.Placement, error) {
	if mesh == 1 {
		return sbp.Devices(n)
	}
	k := n
	if len(c.Levels) > 0 {
		k = min(n, c.Levels[0].Devices)
	} else if len(c.Links) == 2 {
		return sbp.Placement{}, errors.New("a 2-D sweep needs a cluster of levels (h100-nodes, tpu-v5e): one of two fixed links has no size to lay a mesh by")
	}
	if n%k != 0 {
		return sbp.Placement{}, fmt.Errorf("%d devices do not make whole rows of %d (the cluster's %d devices a node)", n, k, k)
	}
	rows := make([]string, n/k)
	for r := range rows {
		ids := make([]string, k)
		for j := range ids {
			ids[j] = fmt.Sprint(r*k + j)
		}
		rows[r] = "[" + strings.Join(ids, ",") + "]"
	}
	return sbp.ParsePlacement("[" + strings.Join(rows, ",") + "]")
}

// fill writes pl's time, peak, layouts and throughput into row.
func fill(row *Row, pl *planner.Plan) {
	if t := pl.Timing; t != nil {
		row.TimeS, row.CommTimeS, row.ComputeTimeS, row.OverlapTimeS = t.TimeS, t.CommTimeS, t.ComputeTimeS, t.OverlapTimeS
	}
	row.ExactGap = pl.ExactGap
	row.PeakHeldBytes = pl.MostHeld()
	row.Fits = float64(row.PeakHeldBytes) <= row.CapacityBytes
	row.Layouts = map[string]string{}
	var tokens, samples int
	for _, s := range pl.Steps {
		if s.Kind != planner.StepInput || s.Pass != "forward" {
			continue
		}
		row.Layouts[s.Name] = s.Sbp.String()
		split0 := len(s.Shape) > 0 && len(s.Sbp) > 0 && s.Sbp[0].Kind == sbp.Split && s.Sbp[0].Axis == 0
		if s.Int && tokens == 0 {
			tokens, _ = s.Shape.NumElements()
		}
		if !s.IsParameter() && split0 && samples == 0 {
			samples = s.Shape[0]
		}
	}
	row.Scheme = scheme(pl)
	if row.TimeS > 0 {
		per := row.TimeS * float64(row.Devices)
		row.TokensPerSPerDevice = float64(tokens) / per
		row.SamplesPerSPerDevice = float64(samples) / per
	}
}

// scheme names how a plan lays its inputs out, per mesh dim, joined by
// " × ": "data parallel" where every parameter (an input that gets a
// gradient) is whole (B) and the data (const and i32 inputs) split;
// "ZeRO-3" where parameters are split and each is gathered whole (boxed
// to B along the dim) before it is used, the data split; "tensor
// parallel" where some split parameter is used as it is split (the
// ops run on its shards, Megatron's column and row layouts);
// "replicated" where nothing is split; "one device" on one.
func scheme(pl *planner.Plan) string {
	if pl.Program.Placement.Size() == 1 {
		return "one device"
	}
	var dims []string
	for m := range pl.Program.Placement.MeshRank() {
		gathered := map[string]bool{}
		for _, s := range pl.Steps {
			if s.Kind == planner.StepBoxing && m < len(s.To) && s.To[m].Kind == sbp.Broadcast && m < len(s.From) && s.From[m].Kind == sbp.Split {
				gathered[s.Tensor] = true
			}
		}
		split, usedSplit, dataSplit := 0, 0, 0
		for _, s := range pl.Steps {
			if s.Kind != planner.StepInput || s.Pass != "forward" || m >= len(s.Sbp) || s.Sbp[m].Kind != sbp.Split {
				continue
			}
			switch {
			case !s.IsParameter():
				dataSplit++
			case gathered[s.Name]:
				split++
			default:
				split, usedSplit = split+1, usedSplit+1
			}
		}
		switch {
		case usedSplit > 0:
			dims = append(dims, "tensor parallel")
		case split > 0 && dataSplit > 0:
			dims = append(dims, "ZeRO-3")
		case dataSplit > 0:
			dims = append(dims, "data parallel")
		case split > 0:
			dims = append(dims, "split, gathered")
		default:
			dims = append(dims, "replicated")
		}
	}
	return strings.Join(dims, " × ")
}
