package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stridelab/stridelab/importer"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

const importSynopsis = "--model FILE.py:CLASS [--kwargs JSON] --example NAME=FILE.npy|NAME=DTYPE:SHAPE ... [--seed N] [--placement P] [--layout PATTERN=SBP|auto ...] [--layouts auto] [--precision f32|bf16|f16] [--optimizer adam|sgd|'adam zero1'|'adam zero2'] [--python PATH] -o DIR"

// repeated is a flag given once per value.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, " ") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }

// importFlags are the flags that say which module to trace and how to
// write it: the import command's, and the sweep's where it traces the
// model itself (--model).
type importFlags struct {
	model, kwargs, layoutsAll, precision, optimizer, python *string
	seed                                                    *int64
	examples, layouts                                       repeated
}

// addImportFlags registers the import flags on fs.
func addImportFlags(fs *flagSet) *importFlags {
	f := &importFlags{}
	f.model = fs.String("model", "", "the module: FILE.py:CLASS, built as CLASS(**kwargs); its forward takes the examples in order and returns the scalar loss")
	f.kwargs = fs.String("kwargs", "{}", "CLASS's keyword arguments, as a JSON object")
	fs.Var(&f.examples, "example", "the forward's next argument: NAME=FILE.npy (values) or NAME=DTYPE:SHAPE (shapes alone: nothing is computed, parameters read `from uniform`); once per argument")
	f.seed = fs.Int64("seed", 0, "torch.manual_seed before the module is built")
	fs.Var(&f.layouts, "layout", "an SBP for the parameters whose module path matches a glob (* spans dots), PATTERN=SBP, e.g. 'h.*.mlp.c_fc.weight=S(1)'; by default parameters are B and examples S(0) (data parallelism)")
	f.layoutsAll = fs.String("layouts", "", "auto: every parameter's layout the planner's to pick (written auto; exact picks the fastest that fits the devices' memory), unless a --layout says otherwise")
	f.precision = fs.String("precision", "f32", "the float parameters', examples' and constants' precision: f32, bf16 or f16 (what memory, the wire and the chip's peak count; values still run in float32)")
	f.optimizer = fs.String("optimizer", "", "an optimizer statement to write after the inputs: adam, sgd, 'adam zero1', 'adam zero2' (its state in what each device holds)")
	f.python = fs.String("python", "", "the interpreter (default: the first python3 that imports torch)")
	return f
}

// request is the importer's request the flags give, writing into out,
// or the usage error that names the flag at fault.
func (f *importFlags) request(out, source string) (importer.Request, error) {
	file, class, ok := strings.Cut(*f.model, ":")
	if !ok || file == "" || class == "" {
		return importer.Request{}, usagef("--model %q: write FILE.py:CLASS", *f.model)
	}
	if !json.Valid([]byte(*f.kwargs)) || !strings.HasPrefix(strings.TrimSpace(*f.kwargs), "{") {
		return importer.Request{}, usagef("--kwargs %q is not a JSON object", *f.kwargs)
	}
	req := importer.Request{Model: file, Class: class, Kwargs: json.RawMessage(*f.kwargs), Seed: *f.seed, Out: out, Python: *f.python, Source: source}
	for _, e := range f.examples {
		ex, err := importer.ParseExample(e)
		if err != nil {
			return importer.Request{}, usagef("%v", err)
		}
		req.Examples = append(req.Examples, ex)
	}
	switch *f.layoutsAll {
	case "":
	case "auto":
		req.AutoParameters = true
	default:
		return importer.Request{}, usagef("--layouts %q: the one word it takes is auto", *f.layoutsAll)
	}
	pr, ok := tensor.ParsePrecision(*f.precision)
	if !ok || pr == tensor.I32 {
		return importer.Request{}, usagef("--precision %q: choose f32, bf16 or f16", *f.precision)
	}
	req.Precision = pr
	if *f.optimizer != "" {
		o, err := program.ParseOptimizer(*f.optimizer)
		if err != nil {
			return importer.Request{}, usagef("--optimizer: %v", err)
		}
		req.Optimizer = o
	}
	for _, s := range f.layouts {
		lo, err := importer.ParseLayout(s)
		if err != nil {
			return importer.Request{}, usagef("%v", err)
		}
		req.Layouts = append(req.Layouts, lo)
	}
	return req, nil
}

// runImport traces a PyTorch module's forward and loss into a program
// (package importer) and writes DIR/model.st, DIR/params.json and the
// values.
func runImport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("import", importSynopsis, stderr)
	imp := addImportFlags(fs)
	placement := fs.String("placement", "1", "the program's placement (4, 0-3, [[0,1],[2,3]])")
	out := fs.String("o", "", "the folder to write (made if missing)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up on the trace after this long")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("-o DIR is required")
	}
	req, err := imp.request(*out, commandLine("import", args))
	if err != nil {
		return err
	}
	p, err := sbp.ParsePlacement(*placement)
	if err != nil {
		return usagef("--placement %q: %v", *placement, err)
	}
	req.Placement = p
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	start := time.Now()
	res, err := importer.Import(ctx, req)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "import: "))
	}
	fmt.Fprintf(stdout, "imported %s from %s in %.1f s: %d parameters (%s elements, %s as float32), %d statements\n",
		req.Class, req.Model, time.Since(start).Seconds(), res.Parameters, groupDigits(res.Elements), tensor.FormatBytes(4*res.Elements), res.Statements)
	fmt.Fprintf(stdout, "wrote %s/model.st, %s/params.json and %d .npy files\n", *out, *out, len(res.Files)-2)
	fmt.Fprintf(stdout, "next: stridelab sbp program --file %s/model.st [--out OUT] [--strategy exact]\n", *out)
	return nil
}

// groupDigits writes n with thousands separated: 124,439,808.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
