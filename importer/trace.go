package importer

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stridelab/stridelab/internal/python"
	"github.com/stridelab/stridelab/tensor"
)

//go:embed trace.py
var traceScript []byte

// ErrNoTorch marks an import refused because no interpreter imports torch.
var ErrNoTorch = errors.New("no python3 imports torch")

// torchNeed is what the tracer needs of an interpreter: torch with
// make_fx (PyTorch 1.13 and 2.x both have it) and numpy.
var torchNeed = python.Need{
	Prefix:  "import",
	What:    "torch",
	Probe:   "import numpy, torch; from torch.fx.experimental.proxy_tensor import make_fx",
	Install: "install PyTorch and numpy (Debian: apt-get install python3-torch) or give --python PATH",
	Err:     ErrNoTorch,
}

// Example is one argument of the module's forward, in order: a .npy
// file (values), or a dtype and a shape alone (nothing computed).
type Example struct {
	Name  string
	File  string       // a .npy file, or ""
	DType string       // float32, int64, …, when File is ""
	Shape tensor.Shape // when File is ""
}

// ParseExample reads NAME=FILE.npy or NAME=DTYPE:SHAPE (int64:8,1024).
func ParseExample(s string) (Example, error) {
	name, what, ok := strings.Cut(s, "=")
	if !ok || name == "" || what == "" {
		return Example{}, fmt.Errorf("--example %q: write NAME=FILE.npy or NAME=DTYPE:SHAPE (e.g. idx=int64:8,1024)", s)
	}
	if strings.HasSuffix(strings.ToLower(what), ".npy") {
		return Example{Name: name, File: what}, nil
	}
	dt, shape, ok := strings.Cut(what, ":")
	if !ok {
		return Example{}, fmt.Errorf("--example %q: %q is neither a .npy file nor DTYPE:SHAPE (e.g. int64:8,1024)", s, what)
	}
	sh, err := tensor.ParseShape(shape)
	if err != nil {
		return Example{}, fmt.Errorf("--example %q: %w", s, err)
	}
	return Example{Name: name, DType: dt, Shape: sh}, nil
}

// traced is what trace.py prints: the forward's varying nodes in order,
// the parameters, examples and folded constants, and the loss.
type traced struct {
	Nodes      []*node `json:"nodes"`
	Loss       string  `json:"loss"`
	Parameters []*leaf `json:"parameters"`
	Examples   []*leaf `json:"examples"`
	Constants  []*leaf `json:"constants"`
}

// leaf is a parameter, an example or a constant: its graph node, its
// module path (parameters) or name (examples), shape, dtype and the
// .npy file trace.py wrote its values to ("" for none).
type leaf struct {
	Node   string   `json:"node"`
	Path   string   `json:"path"`
	Name   string   `json:"name"`
	Also   []string `json:"also"` // a tied parameter's other paths
	Shape  []int    `json:"shape"`
	DType  string   `json:"dtype"`
	Values string   `json:"values"`
	Module string   `json:"module"`
}

// node is one aten op of the trace.
type node struct {
	Name   string                     `json:"name"`
	Target string                     `json:"target"`
	Args   []json.RawMessage          `json:"args"`
	Kwargs map[string]json.RawMessage `json:"kwargs"`
	Shape  []int                      `json:"shape"` // nil for an op that returns several tensors
	DType  string                     `json:"dtype"`
	Module string                     `json:"module"`
	// Keep and Fill are the constants a masked_fill or a where with a
	// constant mask becomes: x·keep + fill (where: a·cond + b·(1 − cond)).
	Keep *leaf `json:"keep"`
	Fill *leaf `json:"fill"`
	// Vary is the argument of a where that varies (1 or 2), 0 for both.
	Vary int `json:"vary"`
}

// traceRequest is trace.py's request.
type traceRequest struct {
	Model    string            `json:"model"`
	Class    string            `json:"class"`
	Kwargs   json.RawMessage   `json:"kwargs"`
	Seed     int64             `json:"seed"`
	Examples []json.RawMessage `json:"examples"`
	Out      string            `json:"out"`
	Values   bool              `json:"values"`
}

// trace runs trace.py on req in the interpreter py finds, writing the
// values into dir; a fault of the model is the tracer's one line.
func trace(ctx context.Context, py string, req traceRequest) (*traced, error) {
	py, err := python.Find(ctx, py, torchNeed)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "stridelab-import-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	script := filepath.Join(tmp, "trace.py")
	reqFile := filepath.Join(tmp, "request.json")
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(script, traceScript, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(reqFile, body, 0o644); err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, py, script, reqFile)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("import: the trace stopped: %w", ctx.Err())
		}
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(l, "import: ") {
				return nil, errors.New(l)
			}
		}
		return nil, fmt.Errorf("import: the tracer (%s) failed: %s", py, python.LastLine(stderr.String(), err.Error()))
	}
	var t traced
	if err := json.Unmarshal(stdout.Bytes(), &t); err != nil {
		return nil, fmt.Errorf("import: the tracer's answer does not read: %w", err)
	}
	return &t, nil
}
