package sbp

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// Program is a global computation written out for a real distributed
// engine, so that a plan studied here runs on a cluster: its inputs laid
// out by their SBPs, then an op (Op) or a boxing to To, then the full
// result saved or printed.
type Program struct {
	Command   string // the stridelab command line it came from, for the header
	Placement Placement
	Inputs    []Input
	Op        Op    // the op to run, or nil for a boxing
	OutSbp    NdSbp // the output SBP stridelab inferred, printed beside the engine's
	To        NdSbp // the boxing target when Op is nil
	Out       string
}

// Input is one global input of a Program: loaded from Path (a .npy file),
// or when Path is empty an arange of Shape.
type Input struct {
	Name  string
	Path  string
	Shape tensor.Shape
	DType tensor.DType
	Sbp   NdSbp
}

// Emit writes pr for the engine "oneflow" (global tensors with
// flow.placement and flow.sbp) or "pytorch" (DTensor with DeviceMesh,
// Shard / Replicate / Partial and redistribute).
func Emit(w io.Writer, engine string, pr Program) error {
	switch engine {
	case "oneflow":
		return emitOneFlow(w, pr)
	case "pytorch":
		return emitPyTorch(w, pr)
	}
	return newError(ErrParse, fmt.Sprintf("emit %q", engine), "the engines are oneflow and pytorch")
}

func emitOneFlow(w io.Writer, pr Program) error {
	for _, nd := range pr.sbps() {
		for _, s := range nd {
			if s.Kind == Partial && s.Op != tensor.Sum {
				return newError(ErrSBP, "emit oneflow", "OneFlow has only partial_sum, so %v has no OneFlow spelling; use --emit pytorch (DTensor has Partial(%q))", s, s.Op.String())
			}
		}
	}
	var b strings.Builder
	pr.header(&b, fmt.Sprintf("python3 -m oneflow.distributed.launch --nproc_per_node %d this.py", pr.Placement.Size()))
	fmt.Fprintf(&b, "import numpy as np\nimport oneflow as flow\n\n")
	fmt.Fprintf(&b, "placement = flow.placement(%q, ranks=%s)\n", pr.Placement.Device(), pr.Placement.Nested())
	fmt.Fprintf(&b, "B = flow.sbp.broadcast\n\n\n")
	fmt.Fprintf(&b, "def global_tensor(array, sbp):\n")
	fmt.Fprintf(&b, "    \"\"\"The logical array, the same on every process, as a global tensor laid out by sbp.\"\"\"\n")
	fmt.Fprintf(&b, "    return flow.tensor(array).to_global(placement=placement, sbp=[B] * %d).to_global(sbp=sbp)\n\n\n", pr.Placement.MeshRank())
	spell := func(nd NdSbp) string {
		parts := make([]string, len(nd))
		for i, s := range nd {
			switch s.Kind {
			case Split:
				parts[i] = fmt.Sprintf("flow.sbp.split(%d)", s.Axis)
			case Broadcast:
				parts[i] = "B"
			default:
				parts[i] = "flow.sbp.partial_sum"
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	pr.inputs(&b, spell)
	if pr.Op == nil {
		fmt.Fprintf(&b, "y = %s.to_global(sbp=%s)\n", pr.Inputs[0].Name, spell(pr.To))
	} else {
		fmt.Fprintf(&b, "y = %s\n", pr.call("flow"))
	}
	fmt.Fprintf(&b, "print(\"sbp:\", y.sbp)  # stridelab: %s\n", spell(pr.result()))
	fmt.Fprintf(&b, "full = y.to_global(sbp=[B] * %d).to_local().numpy()\n", pr.Placement.MeshRank())
	pr.footer(&b, "flow.env.get_rank()")
	_, err := io.WriteString(w, b.String())
	return err
}

func emitPyTorch(w io.Writer, pr Program) error {
	var b strings.Builder
	pr.header(&b, fmt.Sprintf("torchrun --nproc_per_node %d this.py", pr.Placement.Size()))
	fmt.Fprintf(&b, "# DTensor's Shard cuts uneven dims like torch.chunk (25 over 4: 7,7,7,4), OneFlow\n")
	fmt.Fprintf(&b, "# and stridelab like BalancedSplitter (7,6,6,6): shard shapes may differ, full values agree.\n")
	fmt.Fprintf(&b, "import numpy as np\nimport torch\nimport torch.distributed as dist\n")
	fmt.Fprintf(&b, "from torch.distributed.device_mesh import DeviceMesh\n")
	fmt.Fprintf(&b, "from torch.distributed.tensor import Partial, Replicate, Shard, distribute_tensor\n\n")
	backend := map[string]string{"cpu": "gloo", "cuda": "nccl"}[pr.Placement.Device()]
	fmt.Fprintf(&b, "dist.init_process_group(%q)\n", backend)
	fmt.Fprintf(&b, "mesh = DeviceMesh(%q, %s)\n\n\n", pr.Placement.Device(), pr.Placement.Nested())
	fmt.Fprintf(&b, "def global_tensor(array, placements):\n")
	fmt.Fprintf(&b, "    \"\"\"The logical array, the same on every process, as a DTensor laid out by placements.\"\"\"\n")
	fmt.Fprintf(&b, "    replicated = distribute_tensor(torch.from_numpy(array), mesh, [Replicate()] * mesh.ndim)\n")
	fmt.Fprintf(&b, "    return replicated.redistribute(mesh, placements)\n\n\n")
	spell := func(nd NdSbp) string {
		parts := make([]string, len(nd))
		for i, s := range nd {
			switch s.Kind {
			case Split:
				parts[i] = fmt.Sprintf("Shard(%d)", s.Axis)
			case Broadcast:
				parts[i] = "Replicate()"
			default:
				parts[i] = fmt.Sprintf("Partial(%q)", s.Op.String())
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	pr.inputs(&b, spell)
	if pr.Op == nil {
		fmt.Fprintf(&b, "y = %s.redistribute(mesh, %s)\n", pr.Inputs[0].Name, spell(pr.To))
	} else {
		fmt.Fprintf(&b, "y = %s\n", pr.call("torch"))
	}
	fmt.Fprintf(&b, "print(\"placements:\", y.placements)  # stridelab: %s\n", spell(pr.result()))
	fmt.Fprintf(&b, "full = y.full_tensor().numpy()\n")
	pr.footer(&b, "dist.get_rank()")
	_, err := io.WriteString(w, b.String())
	return err
}

func (pr Program) sbps() []NdSbp {
	var all []NdSbp
	for _, in := range pr.Inputs {
		all = append(all, in.Sbp)
	}
	return append(all, pr.result())
}

func (pr Program) result() NdSbp {
	if pr.Op == nil {
		return pr.To
	}
	return pr.OutSbp
}

func (pr Program) header(b *strings.Builder, launch string) {
	if pr.Command != "" {
		fmt.Fprintf(b, "# %s\n", pr.Command)
	}
	fmt.Fprintf(b, "# Generated by stridelab. Run on %d processes: %s\n", pr.Placement.Size(), launch)
}

var numpyDType = map[tensor.DType]string{tensor.Float32: "np.float32", tensor.Int32: "np.int32", tensor.Uint32: "np.uint32"}

func (pr Program) inputs(b *strings.Builder, spell func(NdSbp) string) {
	for _, in := range pr.Inputs {
		array := fmt.Sprintf("np.load(%q)", in.Path)
		if in.Path == "" {
			n, _ := in.Shape.NumElements()
			array = fmt.Sprintf("np.arange(%d, dtype=%s).reshape(%s)", n, numpyDType[in.DType], pyTuple(in.Shape))
		}
		fmt.Fprintf(b, "%s = global_tensor(%s, %s)\n", in.Name, array, spell(in.Sbp))
	}
}

func (pr Program) footer(b *strings.Builder, rank string) {
	if pr.Out != "" {
		fmt.Fprintf(b, "if %s == 0:\n    np.save(%q, full)\n", rank, pr.Out)
	} else {
		fmt.Fprintf(b, "if %s == 0:\n    print(full)\n", rank)
	}
}

// call spells the op on the inputs in the engine's Python (lib is "flow"
// or "torch"; the two share these spellings).
func (pr Program) call(lib string) string {
	x := pr.Inputs[0].Name
	switch o := pr.Op.(type) {
	case expandOp:
		return fmt.Sprintf("%s.expand%s", x, pyArgs(o.size))
	case repeatOp:
		return fmt.Sprintf("%s.repeat%s", x, pyArgs(o.times))
	case matmulOp:
		return fmt.Sprintf("%s.matmul(%s, %s)", lib, x, pr.Inputs[1].Name)
	case binaryOp:
		y := pr.Inputs[1].Name
		switch o.op {
		case tensor.Add:
			return x + " + " + y
		case tensor.Sub:
			return x + " - " + y
		case tensor.Mul:
			return x + " * " + y
		case tensor.Div:
			return x + " / " + y
		case tensor.Max:
			return fmt.Sprintf("%s.maximum(%s, %s)", lib, x, y)
		case tensor.Min:
			return fmt.Sprintf("%s.minimum(%s, %s)", lib, x, y)
		case tensor.Eq: // a bool tensor, brought back to the operands' dtype
			return fmt.Sprintf("%s.eq(%s, %s).to(%s.dtype)", lib, x, y, x)
		}
	case reduceOp:
		reduced, _ := tensor.ReducedAxes(pr.Inputs[0].Shape, o.to)
		var axes []int
		for a, r := range reduced {
			if r {
				axes = append(axes, a)
			}
		}
		if len(axes) == 0 { // sum(dim=[]) would reduce every dim
			return fmt.Sprintf("%s.reshape%s", x, pyArgs(o.to))
		}
		fn := map[tensor.ReduceOp]string{tensor.Sum: "sum", tensor.MaxAll: "amax", tensor.MinAll: "amin"}[o.op]
		return fmt.Sprintf("%s.%s(dim=%s, keepdim=True).reshape%s", x, fn, pyTuple(axes), pyArgs(o.to))
	case transposeOp:
		return x + ".transpose(0, 1)"
	case scaleOp:
		c := strconv.FormatFloat(o.c, 'g', -1, 64)
		if o.c == math.Trunc(o.c) && math.Abs(o.c) < 1<<53 { // an int literal keeps an int tensor's dtype
			c = strconv.FormatFloat(o.c, 'f', -1, 64)
		}
		return fmt.Sprintf("%s * %s", x, c)
	case repeatGradOp:
		plan, _ := tensor.PlanRepeat(o.in, o.times)
		var axes []int // the copy dims of the repeat's expand
		k, lead := 0, len(o.times)-len(o.in)
		for d, t := range o.times {
			switch {
			case d < lead || t != 1 && o.in[d-lead] == 1:
				axes = append(axes, k)
				k++
			case t == 1:
				k++
			default: // (t, s)
				axes = append(axes, k)
				k += 2
			}
		}
		if len(axes) == 0 {
			return fmt.Sprintf("%s.reshape(%s)", x, pyTuple(o.in))
		}
		return fmt.Sprintf("%s.reshape(%s).sum(dim=%s).reshape(%s)", x, pyTuple(plan.ExpandSize), pyTuple(axes), pyTuple(o.in))
	}
	return "None  # unknown op"
}

// pyTuple spells ints as a Python tuple: (), (3,), (2, 3).
func pyTuple(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	if len(v) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// pyArgs spells ints as a call's arguments: (2, 3).
func pyArgs(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
