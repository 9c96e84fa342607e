package main

import (
	"io"

	"github.com/stridelab/stridelab/tensor"
)

func runGrad(args []string, stdout, stderr io.Writer) error {
	op, args, err := leadWord(args, expandOrRepeat,
		"usage: stridelab grad expand --in-shape 3,1 --size 2,3,4 --grad G.npy [--out DX.npy]\n"+
			"       stridelab grad repeat --in-shape 3,1 --times 2,3 --grad G.npy [--out DX.npy]\n",
		usagef("say which op: grad expand or grad repeat"), stderr)
	if err != nil {
		return err
	}
	argName, argHelp := "size", "the expand size of the forward op"
	if op == "repeat" {
		argName, argHelp = "times", "the repeat counts of the forward op"
	}
	fs := newFlags("grad "+op, "--in-shape 3,1 --"+argName+" ... --grad G.npy [--out DX.npy] [--backend cpu]", stderr)
	inShape := fs.String("in-shape", "", "shape of the forward op's input")
	arg := fs.String(argName, "", argHelp)
	grad := fs.String("grad", "", "gradient of the forward op's output (.npy)")
	out := fs.String("out", "", "output .npy file for the input's gradient (default: print)")
	backend := computeFlags(fs, stderr)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := required(map[string]string{"in-shape": *inShape, argName: *arg, "grad": *grad}); err != nil {
		return err
	}
	shape, err := parseShapeFlag("in-shape", *inShape)
	if err != nil {
		return err
	}
	list, err := parseList(argName, *arg)
	if err != nil {
		return err
	}
	be, err := backend()
	if err != nil {
		return err
	}
	g, err := load(*grad, stderr)
	if err != nil {
		return err
	}
	var dx tensor.Tensor
	if op == "expand" {
		l, err := tensor.Contiguous(shape)
		if err != nil {
			return err
		}
		fwd, err := l.Expand(list)
		if err != nil {
			return err
		}
		if !g.Shape().Equal(fwd.Shape()) {
			return usagef("--grad has shape %v, but expand %v to %v outputs %v", g.Shape(), shape, list, fwd.Shape())
		}
		dx, err = tensor.ExpandBackward(be, g, shape)
		if err != nil {
			return err
		}
	} else if dx, err = tensor.RepeatBackward(be, g, shape, list); err != nil {
		return err
	}
	return emit(dx, *out, stdout)
}
