package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// clusterFlags are --cluster and --cost: the cluster a plan is timed on
// (a preset or a cluster file, cluster.Resolve) and what the exact
// search minimises (planner.Cost). `sbp program` and `sbp plan` take
// both; `sbp boxing`, which has nothing to choose, only --cluster.
type clusterFlags struct {
	name *string
	cost *string // nil where the command has no --cost
}

func defineClusterFlags(fs *flagSet, withCost bool) *clusterFlags {
	f := &clusterFlags{name: fs.String("cluster", "", "time the plan on a cluster: a preset ("+cluster.PresetList()+") or a cluster file (stridelab cluster NAME prints the form); its device's memory also refuses a plan that does not fit")}
	if withCost {
		f.cost = fs.String("cost", "", "what exact minimises: time (the default with --cluster: compute and communication on the cluster) or bytes (the default without)")
	}
	return f
}

// options returns the planner's options the flags name (planOptions).
func (f *clusterFlags) options() (planner.Options, error) {
	cost := ""
	if f.cost != nil {
		cost = *f.cost
	}
	return planOptions(*f.name, cost)
}

// planOptions returns the planner's options that --cluster name and
// --cost cost ("" when not given) ask for: the cluster (nil without
// one) and the cost, beside NewPlan's comparison bound. name is a
// preset, a cluster file or a cluster's JSON itself (starting with
// "{"). An unknown cost and cost time without a cluster are usage
// errors; a cluster that is neither a preset nor a cluster file is
// cluster.Resolve's one line.
func planOptions(name, cost string) (planner.Options, error) {
	o := planner.Options{CompareBound: planner.ComparisonBound}
	if cost != "" {
		c, err := planner.ParseCost(cost)
		if err != nil {
			return o, usagef("--cost %q: choose bytes or time", cost)
		}
		o.Cost = c
	}
	if name == "" {
		if o.Cost == planner.Time {
			return o, usagef("--cost time needs --cluster NAME|FILE to time the steps on (the presets are %s)", cluster.PresetList())
		}
		return o, nil
	}
	c, err := cluster.Resolve(name, os.ReadFile)
	if inline(name) {
		c, err = viz.ParseCluster(name)
	}
	if err != nil {
		return o, err
	}
	o.Cluster = &c
	return o, nil
}

// inline says whether a --cluster value is a cluster's JSON itself, as
// a scene's command line spells one (viz.ParseCluster), not a name.
func inline(name string) bool { return strings.HasPrefix(strings.TrimSpace(name), "{") }

// fitsMesh refuses a cluster (when there is one) without a link per mesh dim
// of p: cluster.Check's line.
func fitsMesh(o planner.Options, p sbp.Placement) error {
	if o.Cluster == nil {
		return nil
	}
	return o.Cluster.Check(p)
}

// capacity refuses a plan on a cluster whose device cannot hold what
// some rank holds at its peak: Plan.Capacity's line, the device named
// by the cluster ("each h100-node device has 74.5 GiB").
func capacity(plan *planner.Plan) error {
	if plan.Cluster == nil {
		return nil
	}
	c := plan.Cluster.Device.MemCapacity
	return plan.Capacity(int64(min(c, math.MaxInt64)), plan.Cluster.Name+" device")
}

// meshDims names the mesh dims a boxing's collectives cross, each once,
// in the order it crosses them: "mesh dim 1", "mesh dims 1, 0"; "local"
// for a boxing that only slices, zeroes or pads.
func meshDims(t *cluster.BoxingTime) string {
	var dims []string
	for _, st := range t.Steps {
		d := strconv.Itoa(st.MeshDim)
		if !localStep(st.Collective) && !slices.Contains(dims, d) {
			dims = append(dims, d)
		}
	}
	switch len(dims) {
	case 0:
		return "local"
	case 1:
		return "mesh dim " + dims[0]
	}
	return "mesh dims " + strings.Join(dims, ", ")
}

// localStep says whether a boxing step moves nothing between devices.
func localStep(c sbp.Collective) bool {
	return c == sbp.LocalSlice || c == sbp.LocalZero || c == sbp.LocalPad
}

// stepTime spells one timed step of a boxing: the devices along its
// mesh dim, the bytes S of the tensor each group holds whole, the
// link's α and β and the ring time (cluster.RingTerms); a local step
// moves nothing.
//
//	on 2 devices: S 4.00 KiB, α 10.0 µs, β 50 GB/s: 10.1 µs
func stepTime(st cluster.StepTime) string {
	if localStep(st.Collective) {
		return "local: 0"
	}
	return fmt.Sprintf("on %d devices: S %s, α %s, β %s: %s", st.Devices, formatBytes(st.Bytes), cluster.FormatSeconds(st.Alpha), cluster.FormatRate(st.Beta), cluster.FormatSeconds(st.TimeS))
}

// formatBytes is tensor.FormatBytes of a byte count held as a float64.
func formatBytes(b float64) string {
	return tensor.FormatBytes(int64(min(b, math.MaxInt64)))
}
