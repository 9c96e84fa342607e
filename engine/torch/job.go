package torch

import (
	"github.com/stridelab/stridelab/sbp"
)

// The job is what a run hands its workers: JOB/job.json (the types
// below), JOB/in/POS.npz (the input shards of the device at position
// POS, INDEX.npy for each input step), JOB/worker.py and the ops.py it
// imports (the local arithmetic, OpsPython). Shapes are lists
// of ints ([] for a scalar); every shard is float32, C order.

// job is JOB/job.json.
type job struct {
	Version  int       `json:"version"`    // 1
	World    int       `json:"world_size"` // one process per device
	Backend  string    `json:"backend"`    // gloo
	Device   string    `json:"device"`     // cpu
	DType    string    `json:"dtype"`      // float32, the programs' dtype
	Mesh     []int     `json:"mesh"`       // the placement's hierarchy
	Ranks    []int     `json:"ranks"`      // the placement's rank at each position
	Groups   [][][]int `json:"groups"`     // per mesh dim, its groups of positions: the ranks of each torch.distributed.new_group
	TimeoutS float64   `json:"timeout_s"`  // init_process_group's timeout
	Steps    []jobStep `json:"steps"`      // the plan's steps, in order
	Save     []int     `json:"save"`       // the steps whose shards the workers write to JOB/out/POS.npz (INDEX.npy each)
	TimeRuns int       `json:"time_runs"`  // how many more timed runs of each collective after its own (Options.TimeRuns)
}

// jobStep is one plan step, with what every device needs to run it.
type jobStep struct {
	Index int      `json:"index"`
	Kind  string   `json:"kind"` // input, op or boxing
	Name  string   `json:"name"`
	Shape []int    `json:"shape"` // logical
	Sbp   string   `json:"sbp"`   // of its output
	Reads []string `json:"reads"` // op: its inputs' step names; boxing: the tensor boxed

	// op
	Op     string     `json:"op,omitempty"`     // the sbp op's name: expand, repeat, reduce, mean, repeat_grad, matmul, transpose, permute, reshape, scale, add … eq, exp … step, softmax
	Reduce string     `json:"reduce,omitempty"` // reduce: sum, max or min
	Args   []rankArgs `json:"args,omitempty"`   // per position: sbp.PlanOp's rewrite

	// boxing
	Collectives []jobCollective `json:"collectives,omitempty"`
}

// rankArgs is sbp.PlanOp's rewrite of an op on one device.
type rankArgs struct {
	InShapes  [][]int `json:"in_shapes"`
	OutShape  []int   `json:"out_shape"`
	OutStride []int   `json:"out_stride"`
	// Expr is the op on this device's shards x[0] (and x[1]), in torch
	// with ops.py's helpers: the Local spelling of sbp's table of ops,
	// with this device's own arguments (the worker evaluates it).
	Expr string `json:"expr"`
}

// jobCollective is one sbp.Step of a boxing: one collective along one
// mesh dim, x -> y, and every device's shard shape before and after.
type jobCollective struct {
	MeshDim    int     `json:"mesh_dim"`
	Collective string  `json:"collective"` // sbp's name: all-gather, all-reduce, reduce-scatter, all-to-all, local-slice, local-zero, local-pad
	X          jobSbp  `json:"x"`
	Y          jobSbp  `json:"y"`
	Before     [][]int `json:"before"` // per position
	After      [][]int `json:"after"`
}

// jobSbp is one SBP: kind S, B or P; the split axis; the partial's op.
type jobSbp struct {
	Kind string `json:"kind"`
	Axis int    `json:"axis"`
	Op   string `json:"op"`
}

func toJobSbp(s sbp.SBP) jobSbp {
	switch s.Kind {
	case sbp.Split:
		return jobSbp{Kind: "S", Axis: s.Axis}
	case sbp.Partial:
		return jobSbp{Kind: "P", Op: s.Op.String()}
	}
	return jobSbp{Kind: "B"}
}

// ints is s as a JSON list that is never null.
func ints(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}
