package torch

import (
	"context"
	"errors"

	"github.com/stridelab/stridelab/internal/python"
	"github.com/stridelab/stridelab/sbp"
)

// DebianPython is Debian's interpreter, whose python3-torch (1.13) ships
// torch.distributed with gloo: the last place FindPython looks.
const DebianPython = python.Debian

// ErrNoTorch marks a run refused because no interpreter imports torch.
var ErrNoTorch = errors.New("no python3 imports torch")

// torchNeed is what the workers need of an interpreter.
var torchNeed = python.Need{
	Prefix:  "torch engine",
	What:    "torch",
	Probe:   "import numpy, torch, torch.distributed as d; assert d.is_available() and d.is_gloo_available(), 'torch.distributed has no gloo'",
	Install: "install PyTorch with torch.distributed and numpy (Debian: apt-get install python3-torch) or give --python PATH",
	Err:     ErrNoTorch,
}

// FindPython returns the interpreter a run starts its workers with
// (python.Find): path when it is given (it must import torch with
// torch.distributed and gloo, and numpy), else the first python3 on
// PATH that does, else DebianPython when it does. An interpreter that
// passed is kept for the life of the process; one that failed, or whose
// probe ran out of time, is asked again next time. When none does, the
// error wraps ErrNoTorch and says in one line what was tried and what
// to install; when ctx ends first, it wraps ctx's error.
func FindPython(ctx context.Context, path string) (string, error) {
	return python.Find(ctx, path, torchNeed)
}

// findPython is FindPython for a run on p: a probe that ctx ended is
// the run's cancellation (notStarted: ErrCancelled or ErrTimeout), not a
// fault of the interpreter.
func findPython(ctx context.Context, path string, p sbp.Placement) (string, error) {
	py, err := FindPython(ctx, path)
	if err != nil && ctx.Err() != nil {
		return "", notStarted(ctx, p)
	}
	return py, err
}

// lastLine is the last non-empty line of text, or alt.
func lastLine(text, alt string) string { return python.LastLine(text, alt) }
