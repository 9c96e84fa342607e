package torch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// DebianPython is Debian's interpreter, whose python3-torch (1.13) ships
// torch.distributed with gloo: the last place FindPython looks.
const DebianPython = "/usr/bin/python3"

// ErrNoTorch marks a run refused because no interpreter imports torch.
var ErrNoTorch = errors.New("no python3 imports torch")

// install says what to install when no interpreter imports torch.
const install = "install PyTorch with torch.distributed and numpy (Debian: apt-get install python3-torch) or give --python PATH"

// probeTimeout bounds one interpreter's `import torch` (about 1 s).
const probeTimeout = 30 * time.Second

// probe is what the workers need of an interpreter.
const probe = "import numpy, torch, torch.distributed as d; assert d.is_available() and d.is_gloo_available(), 'torch.distributed has no gloo'"

var probed sync.Map // path → error (nil: it imports torch)

// FindPython returns the interpreter a run starts its workers with:
// path when it is given (it must import torch with torch.distributed and
// gloo, and numpy), else the first python3 on PATH that does, else
// DebianPython when it does. The answer for each path is kept for the
// life of the process. When none does, the error wraps ErrNoTorch and
// says in one line what was tried and what to install.
func FindPython(path string) (string, error) {
	if path != "" {
		full, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("torch engine: --python %s: %w", path, err)
		}
		if err := checkPython(full); err != nil {
			return "", fmt.Errorf("torch engine: %s does not import torch (%s): %s: %w", full, err, install, ErrNoTorch)
		}
		return full, nil
	}
	var tried []string
	seen := map[string]bool{}
	candidates := []string{}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir != "" {
			candidates = append(candidates, filepath.Join(dir, "python3"))
		}
	}
	for _, c := range append(candidates, DebianPython) {
		if seen[c] {
			continue
		}
		seen[c] = true
		if st, err := os.Stat(c); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			continue
		}
		if err := checkPython(c); err != nil {
			tried = append(tried, c)
			continue
		}
		return c, nil
	}
	what := "no python3 on PATH"
	if len(tried) > 0 {
		what = "none of " + strings.Join(tried, ", ") + " imports torch"
	}
	return "", fmt.Errorf("torch engine: %s: %s: %w", what, install, ErrNoTorch)
}

// checkPython runs the probe in python: nil when it imports torch.
func checkPython(python string) error {
	if v, ok := probed.Load(python); ok {
		err, _ := v.(error)
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-c", probe).CombinedOutput()
	if err != nil {
		err = errors.New(lastLine(string(out), err.Error()))
	}
	probed.Store(python, err)
	return err
}

// lastLine is the last non-empty line of text, or alt.
func lastLine(text, alt string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return alt
}
