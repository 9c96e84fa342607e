package python

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

// Debian is Debian's interpreter, whose python3-numpy and python3-torch
// are the ones the project's tests use: the last place Find looks.
const Debian = "/usr/bin/python3"

// ProbeTimeout bounds one probe: `import torch` takes about 1 s, and a
// machine busy with other work may take several.
const ProbeTimeout = 30 * time.Second

// Need is what a caller needs of an interpreter, and how its errors read.
type Need struct {
	Prefix  string // the caller's error prefix: "torch engine", "bench"
	What    string // what the interpreter must import, as an error says it: "torch", "numpy"
	Probe   string // Python source (python -c) that exits 0 when the interpreter has it
	Install string // what to install, or to give, when none has it
	Err     error  // the sentinel an error wraps when no interpreter has it
}

// ErrNoNumPy marks a search for NumPy that found no interpreter with it.
var ErrNoNumPy = errors.New("no python3 imports numpy")

// NumPy is an interpreter that imports numpy.
var NumPy = Need{
	Prefix:  "python",
	What:    "numpy",
	Probe:   "import numpy",
	Install: "install NumPy (Debian: apt-get install python3-numpy)",
	Err:     ErrNoNumPy,
}

// passed holds the interpreters that passed a probe: key{path, probe} → true.
var passed sync.Map

type key struct{ path, probe string }

// Find returns the interpreter that has need: path when it is given (a
// path, or a name looked up on PATH), else the first python3 on PATH
// that passes need.Probe, else Debian when it does. It returns once ctx
// ends, with an error that wraps ctx's.
func Find(ctx context.Context, path string, need Need) (string, error) {
	if path != "" {
		full, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", need.Prefix, path, err)
		}
		if err := probe(ctx, full, need); err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("%s: asking %s whether it imports %s: %w", need.Prefix, full, need.What, ctx.Err())
			}
			return "", fmt.Errorf("%s: %s does not import %s (%s): %s: %w", need.Prefix, full, need.What, err, need.Install, need.Err)
		}
		return full, nil
	}
	var tried []string
	seen := map[string]bool{}
	var candidates []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir != "" {
			candidates = append(candidates, filepath.Join(dir, "python3"))
		}
	}
	for _, c := range append(candidates, Debian) {
		if seen[c] {
			continue
		}
		seen[c] = true
		if st, err := os.Stat(c); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			continue
		}
		if err := probe(ctx, c, need); err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("%s: asking %s whether it imports %s: %w", need.Prefix, c, need.What, ctx.Err())
			}
			tried = append(tried, c)
			continue
		}
		return c, nil
	}
	what := "no python3 on PATH"
	if len(tried) > 0 {
		what = "none of " + strings.Join(tried, ", ") + " imports " + need.What
	}
	return "", fmt.Errorf("%s: %s: %s: %w", need.Prefix, what, need.Install, need.Err)
}

// probe runs need.Probe in python, within ProbeTimeout and ctx: nil
// when it exits 0, else an error of one line (its last line of output,
// or how it ended). Only a pass is kept.
func probe(ctx context.Context, python string, need Need) error {
	k := key{python, need.Probe}
	if _, ok := passed.Load(k); ok {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(pctx, python, "-c", need.Probe)
	cmd.WaitDelay = time.Second // a probe's children holding its output open do not hold Find
	out, err := cmd.CombinedOutput()
	if err != nil {
		if pctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("no answer within %v", ProbeTimeout)
		}
		return errors.New(LastLine(string(out), err.Error()))
	}
	passed.Store(k, true)
	return nil
}

// LastLine is the last non-empty line of text, or alt.
func LastLine(text, alt string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return alt
}
