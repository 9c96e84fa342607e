package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/npyfile"
)

// Layout sets the SBP of every parameter whose module path (or example
// whose name) the glob Pattern matches (path.Match: * spans dots).
type Layout struct {
	Pattern string
	Sbp     sbp.NdSbp
	Auto    bool // PATTERN=auto: the planner picks (Sbp nil)
}

// ParseLayout reads PATTERN=SBP, or PATTERN=auto.
func ParseLayout(s string) (Layout, error) {
	i := strings.LastIndex(s, "=")
	if i <= 0 || i == len(s)-1 {
		return Layout{}, fmt.Errorf("--layout %q: write PATTERN=SBP, e.g. 'h.*.c_fc.weight=S(1)'", s)
	}
	if _, err := path.Match(s[:i], ""); err != nil {
		return Layout{}, fmt.Errorf("--layout %q: the pattern: %w", s, err)
	}
	if s[i+1:] == "auto" {
		return Layout{Pattern: s[:i], Auto: true}, nil
	}
	nd, err := sbp.ParseNd(s[i+1:])
	if err != nil {
		return Layout{}, fmt.Errorf("--layout %q: %w", s, err)
	}
	return Layout{Pattern: s[:i], Sbp: nd}, nil
}

// Request is what `stridelab import` is asked.
type Request struct {
	Model, Class string          // FILE.py and the class in it
	Kwargs       json.RawMessage // CLASS(**kwargs); nil for none
	Seed         int64           // torch.manual_seed before the class is built
	Examples     []Example       // the forward's arguments, in order
	Placement    sbp.Placement
	Layouts      []Layout // in order; a later match wins
	// AutoParameters writes every parameter auto (the planner picks its
	// layout) unless a Layout says otherwise.
	AutoParameters bool
	// Precision is what the float parameters, examples and constants are
	// written in (F32, the default, writes no word; bf16: mixed
	// precision's 16-bit tensors), Optimizer the optimizer statement to
	// write after the inputs (nil: none).
	Precision tensor.Precision
	Optimizer *program.Optimizer
	Out       string // DIR
	Python    string // the interpreter, or "" to find one
	Source    string // the command line, for the program's first comment
}

// Result is what Import wrote.
type Result struct {
	Program    *program.Program
	Text       string // DIR/model.st
	Parameters int    // distinct parameters (a tied weight once)
	Elements   int64  // their elements
	Statements int
	Files      []string // the files written in DIR
}

// paramEntry is one module path's row of params.json.
type paramEntry struct {
	Input string `json:"input"`
	File  string `json:"file,omitempty"`
	Shape []int  `json:"shape"`
}

// Import traces req's module and writes the program, params.json and
// the values into req.Out. Every fault is one line; DIR is written only
// when the whole import succeeds.
func Import(ctx context.Context, req Request) (*Result, error) {
	if req.Out == "" {
		return nil, fmt.Errorf("import: -o DIR is required")
	}
	if len(req.Examples) == 0 {
		return nil, fmt.Errorf("import: give the forward's arguments with --example NAME=FILE.npy or NAME=DTYPE:SHAPE")
	}
	values := true
	var examples []json.RawMessage
	for _, e := range req.Examples {
		var raw []byte
		if e.File != "" {
			abs, err := filepath.Abs(e.File)
			if err != nil {
				return nil, err
			}
			raw, _ = json.Marshal(map[string]any{"name": e.Name, "file": abs})
		} else {
			values = false
			raw, _ = json.Marshal(map[string]any{"name": e.Name, "dtype": e.DType, "shape": []int(e.Shape)})
		}
		examples = append(examples, raw)
	}
	model, err := filepath.Abs(req.Model)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(model); err != nil || st.IsDir() {
		return nil, fmt.Errorf("import: %s: no such file", req.Model)
	}
	parent := filepath.Dir(filepath.Clean(req.Out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(req.Out)+".import-")
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer os.RemoveAll(stage)
	kwargs := req.Kwargs
	if len(kwargs) == 0 {
		kwargs = json.RawMessage("{}")
	}
	t, err := trace(ctx, req.Python, traceRequest{Model: model, Class: req.Class, Kwargs: kwargs, Seed: req.Seed,
		Examples: examples, Out: stage, Values: values})
	if err != nil {
		return nil, err
	}
	res, files, err := write(t, req, values)
	if err != nil {
		return nil, err
	}
	for from, to := range files.renames {
		if err := os.Rename(filepath.Join(stage, from), filepath.Join(stage, to)); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	}
	for _, f := range files.consts {
		if err := npyfile.WriteFile(filepath.Join(stage, f.name+".npy"), f.t); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	}
	if err := floatFiles(stage, files.floats); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(stage, "model.st"), []byte(res.Text), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(stage, "params.json"), files.params, 0o644); err != nil {
		return nil, err
	}
	// only what the program reads: trace.py's files of nodes it folded
	// away are left behind
	keep := append([]string{"model.st", "params.json"}, files.read...)
	if err := os.MkdirAll(req.Out, 0o755); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	for _, f := range keep {
		if err := os.Rename(filepath.Join(stage, f), filepath.Join(req.Out, f)); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	}
	res.Files = keep
	return res, nil
}

// written is what write decided about DIR's files.
type written struct {
	renames map[string]string
	consts  []constFile
	read    []string // every .npy file the program reads
	floats  []string // the files of integers the program reads as float32 (floatFiles)
	params  []byte   // params.json
}

// write lowers the trace into the program and params.json.
func write(t *traced, req Request, values bool) (*Result, written, error) {
	l := newLowering(req.Placement)
	l.precision = req.Precision
	res := &Result{}
	split0 := make(sbp.NdSbp, len(req.Placement.Hierarchy()))
	for i := range split0 {
		split0[i] = sbp.S(0)
	}
	used := make([]bool, len(req.Layouts))
	// layout is the SBP of key, nil for auto.
	layout := func(key string, shape tensor.Shape, def sbp.NdSbp) (sbp.NdSbp, error) {
		nd := def
		for i, lo := range req.Layouts {
			if ok, _ := path.Match(lo.Pattern, key); ok {
				nd, used[i] = lo.Sbp, true
			}
		}
		if nd == nil {
			return nil, nil // auto
		}
		if err := sbp.Validate(shape, req.Placement, nd); err != nil {
			if slices.Equal(nd, def) {
				return l.whole(), nil // too small to split: whole
			}
			return nil, fmt.Errorf("import: %s %v as %v: %w", key, shape, nd, err)
		}
		return nd, nil
	}
	lookups := idsOnly(t.Nodes)
	asFloat := map[string]bool{} // the integer inputs the program reads as float32: their files become float32
	params := map[string]paramEntry{}
	examples := map[string]paramEntry{}
	src := func(f string) string {
		if f == "" && !values {
			return program.ValuesUniform
		}
		return f
	}
	for _, p := range t.Parameters {
		sh := tensor.Shape(p.Shape)
		def := l.whole()
		if req.AutoParameters {
			def = nil
		}
		nd, err := layout(p.Path, sh, def)
		if err != nil {
			return nil, written{}, err
		}
		l.module = p.Path
		name := l.input(p.Path, sh, nd, src(p.Values), false, false, p.Path+strings.Join(append([]string{""}, p.Also...), ", tied to "))
		l.names[p.Node] = name
		e := paramEntry{Input: name, Shape: p.Shape}
		if p.Values != "" {
			e.File = name + ".npy"
		}
		for _, path := range append([]string{p.Path}, p.Also...) {
			params[path] = e
		}
		res.Parameters++
		if n, err := sh.NumElements(); err == nil {
			res.Elements += int64(n)
		}
	}
	for _, e := range t.Examples {
		sh := tensor.Shape(e.Shape)
		nd, err := layout(e.Name, sh, split0)
		if err != nil {
			return nil, written{}, err
		}
		// integer examples (token ids, targets) are data without a gradient;
		// ids only embeddings read are int32 (i32), the others float32
		isConst := !isFloat(e.DType)
		ids := isConst && lookups[e.Node]
		values := src(e.Values)
		if ids && values == program.ValuesUniform {
			values = "" // shapes alone: ids 0, 1, 2, … (uniform values are no row numbers)
		}
		name := l.input(e.Name, sh, nd, values, isConst && !ids, ids, "example "+e.Name+" ("+e.DType+")")
		l.names[e.Node] = name
		asFloat[name] = isConst && !ids
		entry := paramEntry{Input: name, Shape: e.Shape}
		if e.Values != "" {
			entry.File = name + ".npy"
		}
		examples[e.Name] = entry
	}
	for _, c := range t.Constants {
		module := c.Module
		if module == "" {
			module = req.Class
		}
		ids := !isFloat(c.DType) && lookups[c.Node]
		name := l.input(c.Node, tensor.Shape(c.Shape), l.whole(), c.Values, true, ids, module+": folded at import ("+c.DType+")")
		l.names[c.Node] = name
		asFloat[name] = asFloat[name] || !isFloat(c.DType) && !ids
	}
	for _, n := range t.Nodes {
		l.module = n.Module
		f, ok := opTable[opName(n.Target)]
		if !ok {
			return nil, written{}, l.refusal(opName(n.Target), "docs/import.md lists the ops the importer writes")
		}
		if err := f(l, n); err != nil {
			return nil, written{}, err
		}
	}
	for i, lo := range req.Layouts {
		if !used[i] {
			var paths []string
			for _, p := range t.Parameters {
				paths = append(paths, p.Path)
			}
			if len(paths) > 6 {
				paths = append(paths[:6], "…")
			}
			spelled := lo.Sbp.String()
			if lo.Auto {
				spelled = "auto"
			}
			return nil, written{}, fmt.Errorf("import: --layout %s=%s matches no parameter or example (the parameters: %s)", lo.Pattern, spelled, strings.Join(paths, ", "))
		}
	}
	loss, ok := l.names[t.Loss]
	if !ok {
		return nil, written{}, fmt.Errorf("import: the loss %s was not written", t.Loss)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n# written by stridelab import: one statement a line, each op's comment the module path it came from\n", req.Source)
	fmt.Fprintf(&b, "placement %s\n", spellPlacement(req.Placement))
	width := 0
	for _, s := range slices.Concat(l.inputs, l.ops) {
		width = max(width, len(s.text))
	}
	line := func(s stmt) {
		if s.module == "" {
			s.module = req.Class // the root module: the model's own forward
		}
		fmt.Fprintf(&b, "%-*s  # %s\n", width, s.text, s.module)
	}
	for _, s := range l.inputs {
		line(s)
	}
	if req.Optimizer != nil {
		fmt.Fprintf(&b, "%s\n", req.Optimizer)
	}
	for _, s := range l.ops {
		line(s)
	}
	fmt.Fprintf(&b, "grad %s\n", loss)
	res.Text = b.String()
	prog, err := program.Parse(res.Text)
	if err != nil {
		return nil, written{}, fmt.Errorf("import: the program written does not parse (a fault of the importer): %w", err)
	}
	res.Program = prog
	res.Statements = len(prog.Stmts)
	var read, floats []string
	for _, s := range prog.Inputs() {
		if s.From != "" {
			read = append(read, s.From)
			if asFloat[s.Name] {
				floats = append(floats, s.From)
			}
		}
	}
	doc, err := json.MarshalIndent(map[string]any{"parameters": params, "examples": examples, "loss": loss}, "", "  ")
	if err != nil {
		return nil, written{}, err
	}
	return res, written{renames: l.renames, consts: l.files, read: read, floats: floats, params: append(doc, '\n')}, nil
}

// spellPlacement writes p as a person would: 8 for devices 0 to 7 in a
// line, [[0,1],[2,3]] for a mesh, each as ParsePlacement reads it back;
// else as sbp writes it.
func spellPlacement(p sbp.Placement) string {
	short := strings.ReplaceAll(strings.TrimPrefix(p.String(), "cpu:"), " ", "")
	if h := p.Hierarchy(); len(h) == 1 {
		short = fmt.Sprint(h[0])
	}
	if q, err := sbp.ParsePlacement(short); err == nil && q.String() == p.String() {
		return short
	}
	return p.String()
}

// floatFiles rewrites as float32 the files in dir of the integer inputs
// (trace.py writes ids as int32) that the program reads as float32: the
// ids no gather reads, which it compares with its classes (eq) in
// float32, which holds every id below 2^24 exactly. Only those files are
// read: the parameters' are float32 already.
func floatFiles(dir string, files []string) error {
	for _, f := range files {
		file := filepath.Join(dir, f)
		t, _, err := npyfile.ReadFile(file, npyfile.Options{})
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if t.DType() == tensor.Float32 {
			continue
		}
		ft, err := tensor.ExactFloat32(t)
		if err != nil {
			return fmt.Errorf("import: %s (compared in float32): %w", f, err)
		}
		if err := npyfile.WriteFile(file, ft); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	return nil
}
