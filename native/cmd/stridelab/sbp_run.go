package main

import (
	"fmt"
	"io"

	"github.com/stridelab/stridelab/engine/script"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

func sbpRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sbp run", "--op OP --in X.npy [--b B.npy] [op args] --sbp S [--b-sbp S] --placement P [--out Y.npy] [--backend cpu] [--json] [--emit oneflow|pytorch] [--engine sim|torch] [--python PATH] [--timeout 120s] [--time-runs 5]", stderr)
	ops := defineOpFlags(fs)
	inPath := fs.String("in", "", "the (first) input .npy file")
	bPath := fs.String("b", "", "the second input .npy file (binary ops, matmul)")
	lay := defineLayoutFlags(fs)
	out := fs.String("out", "", "output .npy file (default: print)")
	asJSON := fs.Bool("json", false, "print the run (signature, boxing, per-device plan) as JSON")
	engine := emitFlag(fs)
	backend := computeFlags(fs, stderr)
	eng := defineEngineFlags(fs)
	op, err := parseOp(fs, args, ops, engine)
	if err != nil {
		return err
	}
	if err := eng.check(map[string]bool{"json": *asJSON, "emit": *engine != ""}); err != nil {
		return err
	}
	paths := []string{*inPath, *bPath}[:op.Arity()]
	for i, p := range paths {
		if p == "" {
			return usagef("--op %s needs --%s", op.Name(), []string{"in", "b"}[i])
		}
	}
	p, nds, err := lay.parse(op.Arity())
	if err != nil {
		return err
	}
	be, err := backend()
	if err != nil {
		return err
	}
	var full []tensor.Tensor
	var globals []*sbp.Global
	for i, path := range paths {
		t, err := load(path, stderr)
		if err != nil {
			return err
		}
		g, err := sbp.Scatter(be, t, p, nds[i])
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		full, globals = append(full, t), append(globals, g)
	}
	if eng.torch() {
		return runOpOnEngine(stdout, stderr, eng, be, op, p, nds, paths, full, *out)
	}
	opt := script.Options{Command: commandLine("sbp run", args), Files: map[string]string{}, DType: full[0].DType(), Out: *out}
	for i, name := range program.OneOpInputs(op) {
		opt.Files[name] = paths[i]
	}
	if *engine == "torch" {
		return writeOpScript(stdout, script.Torch, op, p, nds, shapesOf(full), opt)
	}
	y, applied, err := sbp.Apply(op, globals...)
	if err != nil {
		return err
	}
	result, err := y.Full()
	if err != nil {
		return err
	}
	check, err := compareSingle(be, op, full, result)
	if err != nil {
		return err
	}
	switch {
	case *engine != "":
		return writeOpScript(stdout, script.Engine(*engine), op, p, nds, shapesOf(full), opt)
	case *asJSON:
		if *out != "" {
			if err := saveNpy(*out, result); err != nil {
				return err
			}
		}
		return writeJSON(stdout, struct {
			sbp.Applied
			Backend string `json:"backend"`
			Check   string `json:"check"`
			Out     string `json:"out,omitempty"`
		}{applied, be.Name(), check, *out})
	}
	for i, b := range applied.Boxing {
		if len(b.Steps) > 0 {
			fmt.Fprintf(stdout, "input %d boxed %v -> %v by %s, %d bytes sent\n", i, b.From, b.To, b.Collective, b.SendBytes)
		}
	}
	writePlan(stdout, applied.Plan, op)
	fmt.Fprintf(stdout, "\nran on %d simulated devices (%s backend); the gathered result %s\n", p.Size(), be.Name(), check)
	return emit(result, *out, stdout)
}

// compareSingle runs op on one device of be and compares got with its
// result (tensor.Agree at tensor.Tolerance: integers exactly, floats
// within what the order of a partial sum's additions can change), and
// says how in words; a result that does not agree is an error.
func compareSingle(be tensor.Backend, op sbp.Op, full []tensor.Tensor, got tensor.Tensor) (string, error) {
	shapes := make([]tensor.Shape, len(full))
	for i, t := range full {
		shapes[i] = t.Shape()
	}
	outShape, err := op.OutShape(shapes)
	if err != nil {
		return "", err
	}
	want, err := op.Local(be, full, outShape)
	if err != nil {
		return "", err
	}
	ag, err := tensor.Agree(got, want, tensor.Tolerance)
	if err != nil {
		return "", err
	}
	if !ag.Agrees {
		return "", fmt.Errorf("the sharded result %s (a bug; please report it)", ag.Words("the single-device result"))
	}
	return ag.Words("the single-device result"), nil
}
