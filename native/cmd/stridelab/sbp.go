package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/viz"
)

const sbpUsage = `usage: stridelab sbp plan    --op OP --shape 4,3,1,2 [op args] --sbp 'S(3)' --placement 2 [--strict] [--cluster NAME|FILE] [--cost bytes|time] [--json] [--emit oneflow|pytorch]
       stridelab sbp boxing  --shape 25,33 --from 'S(0)' --to 'S(1)' --placement 4 [--cluster NAME|FILE] [--json] [--emit oneflow|pytorch] [--in X.npy] [--out Y.npy] [--engine sim|torch]
       stridelab sbp run     --op OP --in X.npy [--b B.npy] [op args] --sbp 'S(3)' [--b-sbp B] --placement 2 [--out Y.npy] [--backend cpu] [--engine sim|torch]
       stridelab sbp program (--file P | --src 'placement 4; x = input 8,4 S(0); …') [--strategy greedy|exact] [--cluster NAME|FILE] [--cost bytes|time] [--json] [--out DIR] [--emit oneflow|pytorch] [--backend cpu] [--engine sim|torch]

engines: sim (the simulated devices, default) or torch (one torch.distributed process per device,
     gloo on this machine's CPUs; --python PATH, --timeout 120s): its values are checked against
     sim's run of the same plan and it prints each rank's pid, step times and bytes beside the plan's

cluster: a preset (h100-node, two-h100-nodes, tpu-v5e, loopback) or a cluster file (stridelab cluster NAME prints one):
     each step timed there (a boxing by its collectives' links, an op by its roofline), a plan over its device's
     memory refused; --cost time (the default with --cluster) or bytes is what exact minimises

ops: expand (--size), repeat (--times), add, sub, mul, div, max, min, eq, matmul (two inputs, batched),
     reduce (--reduce sum|max|min --to 1,3), exp, log, neg, sqrt, rsqrt, tanh, relu, erf, square (one input),
     transpose (the last two dims), permute (--perm 0,2,1), reshape (--to 8,-1: one size may be -1),
     softmax (--dim -1: along one dim, negative counts from the end)
SBP: S(axis), B, P (sum), P(max), P(min); on a mesh one per mesh dim: '(S(0), B)'
placement: 4 | 0-3 | cpu:0,1,2,3 | cuda:[[0,1],[2,3]]
program: one statement a line or separated by ';' (docs/reference.md has the language):
     placement 4; x = input 64,32 S(0); w = input 32,16 B from w.npy; y = matmul x w;
     r = relu y; m = mean r 1,16; s = sum m 1,1; t = box y B; grad s
`

// sbpCommands are the words after sbp.
var sbpCommands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"plan": sbpPlan, "boxing": sbpBoxing, "run": sbpRun, "program": sbpProgram,
}

func runSbp(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("say which: sbp plan, sbp boxing, sbp run or sbp program (see stridelab sbp --help)")
	}
	if c, ok := sbpCommands[args[0]]; ok {
		return c(args[1:], stdout, stderr)
	}
	if isHelp(args[0]) || args[0] == "help" {
		io.WriteString(stderr, sbpUsage)
		return nil
	}
	return usagef("unknown sbp command %q; the commands are plan, boxing, run and program", args[0])
}

// opFlags are the flags that name an op and its arguments.
type opFlags struct {
	op, size, times, to, reduce, perm, dim *string
}

func defineOpFlags(fs *flagSet) *opFlags {
	return &opFlags{
		op:     fs.String("op", "", "expand, repeat, add, sub, mul, div, max, min, eq, matmul, reduce, exp, log, neg, sqrt, rsqrt, tanh, relu, erf, square, softmax, transpose, permute or reshape"),
		size:   fs.String("size", "", "expand: the expand size (-1 keeps a dim)"),
		times:  fs.String("times", "", "repeat: the repeat count per dim"),
		to:     fs.String("to", "", "reduce: the target shape (each dim the input's or 1); reshape: the new shape (one size may be -1)"),
		perm:   fs.String("perm", "", "permute: the order of the dims (y's dim k is x's dim perm[k])"),
		reduce: fs.String("reduce", "sum", "reduce: sum, max or min"),
		dim:    fs.String("dim", "-1", "softmax: the dim it normalises along (negative counts from the end)"),
	}
}

// build returns the op the flags name (viz.ParseOp); a bad op or a
// missing argument is a usage error.
func (f *opFlags) build() (sbp.Op, error) {
	op, err := viz.ParseOp(*f.op, viz.OpArgs{Size: *f.size, Times: *f.times, To: *f.to, Reduce: *f.reduce, Perm: *f.perm, Dim: *f.dim})
	if err != nil {
		return nil, usagef("%v", err)
	}
	return op, nil
}

// layoutFlags are the placement and the inputs' SBPs.
type layoutFlags struct {
	placement, sbp, bSbp *string
}

func defineLayoutFlags(fs *flagSet) *layoutFlags {
	return &layoutFlags{
		placement: fs.String("placement", "", "devices: 4, 0-3, cpu:0,1,2,3 or a mesh cuda:[[0,1],[2,3]]"),
		sbp:       fs.String("sbp", "", "the (first) input's SBP, one per mesh dim: S(0), B, P, P(max), (S(0), B)"),
		bSbp:      fs.String("b-sbp", "B", "the second input's SBP"),
	}
}

func (f *layoutFlags) parse(arity int) (sbp.Placement, []sbp.NdSbp, error) {
	if *f.placement == "" {
		return sbp.Placement{}, nil, usagef("--placement is required (see --help)")
	}
	if *f.sbp == "" {
		return sbp.Placement{}, nil, usagef("--sbp is required (see --help)")
	}
	p, err := sbp.ParsePlacement(*f.placement)
	if err != nil {
		return sbp.Placement{}, nil, usagef("--placement: %v", err)
	}
	var nds []sbp.NdSbp
	for i, s := range []string{*f.sbp, *f.bSbp}[:arity] {
		nd, err := sbp.ParseNd(s)
		if err != nil {
			return sbp.Placement{}, nil, usagef("--%s: %v", []string{"sbp", "b-sbp"}[i], err)
		}
		nds = append(nds, nd)
	}
	return p, nds, nil
}

func emitFlag(fs *flagSet) *string {
	return fs.String("emit", "", "print the equivalent program instead: oneflow, pytorch (DTensor) or torch (torch.distributed collectives, run with torchrun; not on sbp plan)")
}

func checkEmit(engine string) error {
	if engine != "" && engine != "oneflow" && engine != "pytorch" && engine != "torch" {
		return usagef("--emit %q: choose oneflow or pytorch (DTensor), or torch (torch.distributed collectives, for torchrun)", engine)
	}
	return nil
}

// parseOp parses the command line of an op command and returns its op.
func parseOp(fs *flagSet, args []string, ops *opFlags, engine *string) (sbp.Op, error) {
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	if err := checkEmit(*engine); err != nil {
		return nil, err
	}
	return ops.build()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// commandLine spells the command as a shell would take it back, quoting
// arguments such as 'S(0)' and '[[0,1],[2,3]]'.
func commandLine(cmd string, args []string) string {
	parts := []string{"stridelab", cmd}
	for _, a := range args {
		if a == "" || strings.ContainsFunc(a, func(r rune) bool { return !strings.ContainsRune(shellSafe, r) }) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=+@%"
