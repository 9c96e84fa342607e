package script

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// dialect is how an engine spells a program on global tensors; the
// formats take Python expressions.
type dialect struct {
	launch   string // how to start it on %d processes
	notes    string // comment lines before the imports
	prelude  string // the imports, the placement and global_tensor(array, layout)
	lib      string // flow or torch: where the ops' functions live
	rank     string // this process's rank
	layout   string // the attribute that holds a global tensor's layout
	box      string // %s boxed to the spelled layout %s
	backward string // the backward of %s's sum
	// split (%d the axis), broadcast and partial spell one mesh dim's SBP.
	split, broadcast string
	partial          func(tensor.ReduceOp) string
	full             func(x string) string // x's full logical value as a NumPy array
}

// spell writes nd as the engine's list of layouts, one per mesh dim.
func (d dialect) spell(nd sbp.NdSbp) string {
	parts := make([]string, len(nd))
	for i, s := range nd {
		switch s.Kind {
		case sbp.Split:
			parts[i] = fmt.Sprintf(d.split, s.Axis)
		case sbp.Broadcast:
			parts[i] = d.broadcast
		default:
			parts[i] = d.partial(s.Op)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// dialectOf is the dialect of OneFlow or DTensor (e) on p.
func dialectOf(e Engine, p sbp.Placement) dialect {
	allB := fmt.Sprintf("[B] * %d", p.MeshRank())
	if e == OneFlow {
		var pre strings.Builder
		fmt.Fprintf(&pre, "import oneflow as flow\n\n")
		fmt.Fprintf(&pre, "placement = flow.placement(%q, ranks=%s)\n", p.Device(), p.Nested())
		fmt.Fprintf(&pre, "B = flow.sbp.broadcast\n\n\n")
		fmt.Fprintf(&pre, "def global_tensor(array, sbp):\n")
		fmt.Fprintf(&pre, "    \"\"\"The logical array, the same on every process, as a global tensor laid out by sbp.\"\"\"\n")
		fmt.Fprintf(&pre, "    return flow.tensor(array).to_global(placement=placement, sbp=%s).to_global(sbp=sbp)\n\n\n", allB)
		return dialect{
			launch: "python3 -m oneflow.distributed.launch --nproc_per_node %d this.py", prelude: pre.String(),
			lib: "flow", rank: "flow.env.get_rank()", layout: "sbp",
			box: "%s.to_global(sbp=%s)", backward: "%s.to_global(sbp=" + allB + ").sum().backward()",
			split: "flow.sbp.split(%d)", broadcast: "B", partial: func(tensor.ReduceOp) string { return "flow.sbp.partial_sum" },
			full: func(x string) string { return fmt.Sprintf("%s.to_global(sbp=%s).to_local().numpy()", x, allB) },
		}
	}
	var pre strings.Builder
	fmt.Fprintf(&pre, "import torch\nimport torch.distributed as dist\n")
	fmt.Fprintf(&pre, "from torch.distributed.device_mesh import DeviceMesh\n")
	fmt.Fprintf(&pre, "from torch.distributed.tensor import Partial, Replicate, Shard, distribute_tensor\n\n")
	fmt.Fprintf(&pre, "dist.init_process_group(%q)\n", map[string]string{"cpu": "gloo", "cuda": "nccl"}[p.Device()])
	fmt.Fprintf(&pre, "mesh = DeviceMesh(%q, %s)\n\n\n", p.Device(), p.Nested())
	fmt.Fprintf(&pre, "def global_tensor(array, placements):\n")
	fmt.Fprintf(&pre, "    \"\"\"The logical array, the same on every process, as a DTensor laid out by placements.\"\"\"\n")
	fmt.Fprintf(&pre, "    replicated = distribute_tensor(torch.from_numpy(array), mesh, [Replicate()] * mesh.ndim)\n")
	fmt.Fprintf(&pre, "    return replicated.redistribute(mesh, placements)\n\n\n")
	return dialect{
		launch: "torchrun --nproc_per_node %d this.py",
		notes: "# DTensor's Shard cuts uneven dims like torch.chunk (25 over 4: 7,7,7,4), OneFlow\n" +
			"# and stridelab like BalancedSplitter (7,6,6,6): shard shapes may differ, full values agree.\n",
		prelude: pre.String(), lib: "torch", rank: "dist.get_rank()", layout: "placements",
		box: "%s.redistribute(mesh, %s)", backward: "%s.full_tensor().sum().backward()",
		split: "Shard(%d)", broadcast: "Replicate()", partial: func(op tensor.ReduceOp) string { return fmt.Sprintf("Partial(%q)", op.String()) },
		full: func(x string) string { return x + ".full_tensor().numpy()" },
	}
}

// pyWords are the names the written programs use themselves, and
// Python's keywords: no tensor's variable may be one.
var pyWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`np os flow torch dist DeviceMesh Partial Replicate Shard distribute_tensor placement mesh B
		global_tensor full values name value print list
		False None True and as assert async await break class continue def del elif else except finally for from global if
		import in is lambda nonlocal not or pass raise return try while with yield`) {
		pyWords[w] = true
	}
}

var notIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// pyNames gives the name of every step a Python variable, the inputs'
// first: the name itself when it is an identifier the program does not
// use otherwise, else a spelling of it (x@S(0) → x_S_0, def → def_),
// numbered where two meet.
func pyNames(steps []planner.Step) map[string]string {
	names := map[string]string{}
	taken := map[string]bool{}
	add := func(name string) {
		if _, ok := names[name]; ok {
			return
		}
		v := strings.Trim(notIdent.ReplaceAllString(name, "_"), "_")
		if v == "" || v[0] >= '0' && v[0] <= '9' {
			v = "t_" + v
		}
		if pyWords[v] {
			v += "_"
		}
		for i, base := 2, v; taken[v]; i++ {
			v = fmt.Sprintf("%s_%d", base, i)
		}
		names[name], taken[v] = v, true
	}
	for _, s := range steps {
		if s.Kind == planner.StepInput {
			add(s.Name)
		}
	}
	for _, s := range steps {
		add(s.Name)
	}
	return names
}
