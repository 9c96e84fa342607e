package script

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// torchPrelude is a torch.distributed file's helpers beside the torch
// engine's local arithmetic (torch.OpsPython, which the file holds
// first): the shards, and one function per collective, as the engine's
// worker.py runs them.
//
//go:embed torch_prelude.py
var torchPrelude string

// writeTorch writes plan as a standalone Python program for
// torch.distributed, one process per device, run by
//
//	torchrun --nproc_per_node N file.py [--device cuda] [--out DIR]
//
// (gloo on CPUs by default, NCCL on GPUs with --device cuda). Every step
// is spelled out: each input as the block of the logical value this
// rank holds, each op as torch on the local shards with this rank's
// arguments (sbp.PlanOpAs's rewrite) as literals, each boxing as the
// collectives of the boxing the planner chose with their mesh dims, axes
// and split sizes as literals. At the end every named tensor and
// gradient is boxed to B (sbp.PlanBoxing) and rank 0 saves it as
// DIR/NAME.npy (or prints it). The local arithmetic is the torch
// engine's own, so the file computes as the engine's workers do. No
// DTensor: any torch with torch.distributed runs it.
func writeTorch(w io.Writer, plan *planner.Plan, opt Options) error {
	p := plan.Program.Placement
	f := &torchFile{p: p, shape: map[string]tensor.Shape{}, sbp: map[string]sbp.NdSbp{}}
	for m := range p.MeshRank() {
		f.groups = append(f.groups, p.Groups(m))
	}
	for i, s := range plan.Steps {
		if err := f.step(i, s, opt); err != nil {
			return stepError(Torch, i, s.Kind, s.Name, err)
		}
	}
	wanted := gathered(plan)
	allB := make(sbp.NdSbp, p.MeshRank())
	for i := range allB {
		allB[i] = sbp.SBP{Kind: sbp.Broadcast}
	}
	if len(wanted) > 0 {
		f.body.WriteString("\n    # Gather every named tensor and gradient (box it to B) and save it on rank 0.\n")
	}
	for k, g := range wanted {
		read := plan.Steps[g.step].Name
		bx, err := sbp.PlanBoxing(f.shape[read], tensor.Float32, p, f.sbp[read], allB)
		if err == nil {
			err = f.boxing(len(plan.Steps)+k, g.name+"@gathered", read, bx)
		}
		if err != nil {
			return &Error{Engine: Torch, Detail: fmt.Sprintf("gathering %s: %v", g.name, err), Err: err}
		}
	}

	var o strings.Builder
	fmt.Fprintf(&o, "#!/usr/bin/env python3\n\"\"\"A stridelab plan on torch.distributed, one process per device.\n\n")
	if opt.Command != "" {
		fmt.Fprintf(&o, "Written by: %s\n\n", opt.Command)
	}
	fmt.Fprintf(&o, "Run it with %d processes, on CPUs (gloo) or on GPUs (NCCL, one per process):\n\n", p.Size())
	fmt.Fprintf(&o, "    torchrun --nproc_per_node %d THIS_FILE.py [--out DIR]\n", p.Size())
	fmt.Fprintf(&o, "    torchrun --nproc_per_node %d THIS_FILE.py --device cuda [--out DIR]\n\n", p.Size())
	fmt.Fprintf(&o, "Placement %v: process RANK is the device at that position of the mesh %v.\n", p, p.Hierarchy())
	fmt.Fprintf(&o, "Every step is spelled out per rank: the shards, the local ops with each rank's\n")
	fmt.Fprintf(&o, "arguments, and the collectives of each boxing. At the end every named tensor\n")
	fmt.Fprintf(&o, "and gradient is gathered (boxed to B) and rank 0 saves it as DIR/NAME.npy.\n\"\"\"\n\n")
	o.WriteString(torch.OpsPython)
	o.WriteString("\n\n")
	o.WriteString(torchPrelude)
	if slices.ContainsFunc(plan.Steps, func(s planner.Step) bool { return s.Kind == planner.StepInput && s.Values == program.ValuesUniform }) {
		o.WriteString("\n\n")
		o.WriteString(tensor.UniformPython)
	}
	fmt.Fprintf(&o, "\nWORLD = %d\nMESH = %s\nGROUPS = %s  # per mesh dim, its groups of ranks\nOUT_DIR = %s\n\n", p.Size(), sbp.PyList(p.Hierarchy()), pyGroups(f.groups), pyStr(opt.OutDir))
	o.WriteString("\ndef main():\n    args = setup(GROUPS, MESH)\n    V = {}\n")
	o.WriteString(f.body.String())
	for _, g := range wanted {
		fmt.Fprintf(&o, "    save(args, %s, V[%s])\n", pyStr(g.name), pyStr(g.name+"@gathered"))
	}
	o.WriteString("    dist.barrier()\n    dist.destroy_process_group()\n\n\nif __name__ == \"__main__\":\n    main()\n")
	_, err := io.WriteString(w, o.String())
	return err
}
