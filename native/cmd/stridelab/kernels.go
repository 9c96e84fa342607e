package main

import (
	"io"

	"github.com/stridelab/stridelab/tensor"
)

func runExpand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("expand", "--in X.npy --size 2,-1,4 [--out Y.npy] [--backend cpu]", stderr)
	in := fs.String("in", "", "input .npy file")
	size := fs.String("size", "", "expand size: one per dim (-1 keeps a dim), new dims in front")
	out := fs.String("out", "", "output .npy file (default: print)")
	backend := backendFlag(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := required(map[string]string{"in": *in, "size": *size}); err != nil {
		return err
	}
	sz, err := parseList("size", *size)
	if err != nil {
		return err
	}
	be, err := backend()
	if err != nil {
		return err
	}
	x, err := load(*in, stderr)
	if err != nil {
		return err
	}
	y, err := tensor.Expand(be, x, sz)
	if err != nil {
		return err
	}
	return emit(y, *out, stdout)
}

func runRepeat(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("repeat", "--in X.npy --times 2,1,3 [--out Y.npy] [--backend cpu]", stderr)
	in := fs.String("in", "", "input .npy file")
	times := fs.String("times", "", "repeat count per dim, at least one per input dim (new dims in front)")
	out := fs.String("out", "", "output .npy file (default: print)")
	backend := backendFlag(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := required(map[string]string{"in": *in, "times": *times}); err != nil {
		return err
	}
	tm, err := parseList("times", *times)
	if err != nil {
		return err
	}
	be, err := backend()
	if err != nil {
		return err
	}
	x, err := load(*in, stderr)
	if err != nil {
		return err
	}
	y, err := be.Repeat(x, tm)
	if err != nil {
		return err
	}
	return emit(y, *out, stdout)
}

func runReduce(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("reduce", "--in X.npy --op sum|max|min --to 1,3,1 [--out Y.npy] [--backend cpu]", stderr)
	in := fs.String("in", "", "input .npy file")
	opName := fs.String("op", "sum", "sum, max or min")
	to := fs.String("to", "", "target shape: each dim equal to the input's or 1, missing leading dims reduced; () for a scalar")
	out := fs.String("out", "", "output .npy file (default: print)")
	backend := backendFlag(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := required(map[string]string{"in": *in, "to": *to}); err != nil {
		return err
	}
	op, err := tensor.ParseReduceOp(*opName)
	if err != nil {
		return usagef("--op: %v", err)
	}
	target, err := parseShapeFlag("to", *to)
	if err != nil {
		return err
	}
	be, err := backend()
	if err != nil {
		return err
	}
	x, err := load(*in, stderr)
	if err != nil {
		return err
	}
	y, err := be.Reduce(op, x, target)
	if err != nil {
		return err
	}
	return emit(y, *out, stdout)
}

func runBinary(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("binary", "--op add|sub|mul|div|max|min --a A.npy --b B.npy [--out Y.npy] [--backend cpu]", stderr)
	opName := fs.String("op", "", "add, sub, mul, div, max or min")
	a := fs.String("a", "", "first operand .npy file")
	b := fs.String("b", "", "second operand .npy file")
	out := fs.String("out", "", "output .npy file (default: print)")
	backend := backendFlag(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := required(map[string]string{"op": *opName, "a": *a, "b": *b}); err != nil {
		return err
	}
	op, err := tensor.ParseBinaryOp(*opName)
	if err != nil {
		return usagef("--op: %v", err)
	}
	be, err := backend()
	if err != nil {
		return err
	}
	x, err := load(*a, stderr)
	if err != nil {
		return err
	}
	y, err := load(*b, stderr)
	if err != nil {
		return err
	}
	z, err := be.Binary(op, x, y)
	if err != nil {
		return err
	}
	return emit(z, *out, stdout)
}
