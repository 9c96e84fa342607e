package main

import (
	"io"

	"github.com/stridelab/stridelab/tensor"
)

// kernelCommand is the shape every kernel subcommand shares: flags naming
// .npy inputs and arguments, a backend, the kernel, and --out.
type kernelCommand struct {
	name, synopsis string
	inputs         []string // flags that name input .npy files, in the order kernel gets them
	// define registers the command's own flags and returns the kernel,
	// which validates those flags when it runs.
	define func(fs *flagSet) func(be tensor.Backend, in []tensor.Tensor) (tensor.Tensor, error)
	// required lists the flags (besides inputs) that must be given.
	required []string
}

func (c kernelCommand) run(args []string, stdout, stderr io.Writer) error {
	fs := newFlags(c.name, c.synopsis, stderr)
	paths := make([]*string, len(c.inputs))
	for i, name := range c.inputs {
		paths[i] = fs.String(name, "", "input .npy file")
	}
	kernel := c.define(fs)
	out := fs.String("out", "", "output .npy file (default: print)")
	backend := computeFlags(fs, stderr)
	if err := fs.parse(args); err != nil {
		return err
	}
	need := map[string]string{}
	for i, name := range c.inputs {
		need[name] = *paths[i]
	}
	for _, name := range c.required {
		need[name] = fs.Lookup(name).Value.String()
	}
	if err := required(need); err != nil {
		return err
	}
	be, err := backend()
	if err != nil {
		return err
	}
	in := make([]tensor.Tensor, len(paths))
	for i, p := range paths {
		if in[i], err = load(*p, stderr); err != nil {
			return err
		}
	}
	y, err := kernel(be, in)
	if err != nil {
		return err
	}
	return emit(y, *out, stdout)
}

var expandCommand = kernelCommand{
	name: "expand", synopsis: "--in X.npy --size 2,-1,4 [--out Y.npy] [--backend cpu]",
	inputs: []string{"in"}, required: []string{"size"},
	define: func(fs *flagSet) func(tensor.Backend, []tensor.Tensor) (tensor.Tensor, error) {
		size := fs.String("size", "", "expand size: one per dim (-1 keeps a dim), new dims in front")
		return func(be tensor.Backend, in []tensor.Tensor) (tensor.Tensor, error) {
			sz, err := parseList("size", *size)
			if err != nil {
				return tensor.Tensor{}, err
			}
			return tensor.Expand(be, in[0], sz)
		}
	},
}

var repeatCommand = kernelCommand{
	name: "repeat", synopsis: "--in X.npy --times 2,1,3 [--out Y.npy] [--backend cpu]",
	inputs: []string{"in"}, required: []string{"times"},
	define: func(fs *flagSet) func(tensor.Backend, []tensor.Tensor) (tensor.Tensor, error) {
		times := fs.String("times", "", "repeat count per dim, at least one per input dim (new dims in front)")
		return func(be tensor.Backend, in []tensor.Tensor) (tensor.Tensor, error) {
			tm, err := parseList("times", *times)
			if err != nil {
				return tensor.Tensor{}, err
			}
			return be.Repeat(in[0], tm)
		}
	},
}

var reduceCommand = kernelCommand{
	name: "reduce", synopsis: "--in X.npy --op sum|max|min --to 1,3,1 [--out Y.npy] [--backend cpu]",
	inputs: []string{"in"}, required: []string{"to"},
	define: func(fs *flagSet) func(tensor.Backend, []tensor.Tensor) (tensor.Tensor, error) {
		opName := fs.String("op", "sum", "sum, max or min")
		to := fs.String("to", "", "target shape: each dim equal to the input's or 1, missing leading dims reduced; () for a scalar")
		return func(be tensor.Backend, in []tensor.Tensor) (tensor.Tensor, error) {
			op, err := tensor.ParseReduceOp(*opName)
			if err != nil {
				return tensor.Tensor{}, usagef("--op: %v", err)
			}
			target, err := parseShapeFlag("to", *to)
			if err != nil {
				return tensor.Tensor{}, err
			}
			return be.Reduce(op, in[0], target)
		}
	},
}

var binaryCommand = kernelCommand{
	name: "binary", synopsis: "--op add|sub|mul|div|max|min|eq --a A.npy --b B.npy [--out Y.npy] [--backend cpu]",
	inputs: []string{"a", "b"}, required: []string{"op"},
	define: func(fs *flagSet) func(tensor.Backend, []tensor.Tensor) (tensor.Tensor, error) {
		opName := fs.String("op", "", "add, sub, mul, div, max, min or eq")
		return func(be tensor.Backend, in []tensor.Tensor) (tensor.Tensor, error) {
			op, err := tensor.ParseBinaryOp(*opName)
			if err != nil {
				return tensor.Tensor{}, usagef("--op: %v", err)
			}
			return be.Binary(op, in[0], in[1])
		}
	},
}
