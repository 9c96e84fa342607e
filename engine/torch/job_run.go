package torch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/stridelab/stridelab/sbp"
)

// jobRun is one start of workers on a job folder: the run of a plan
// (worker.py) or a calibration (calibrate.py).
type jobRun struct {
	python   string // as Options.Python: "" picks one
	port     int    // 0 picks a free one
	p        sbp.Placement
	timeout  time.Duration
	script   string                      // the file each worker runs
	write    func(dir string) error      // the job's own files: job.json, input shards
	fault    string                      // gang.fault
	onStatus func(pos int, where string) // gang.onStatus
}

// started says what a job ran on.
type started struct {
	python string
	port   int
}

// runJob starts j's workers and hands their folder to read once every
// one has exited 0: it finds the interpreter, writes a temporary job
// folder (j.write's files beside the embedded worker.py, ops.py and
// calibrate.py), starts one worker per device of j.p on j.script there
// within j.timeout, and removes the folder before it returns. When ctx
// has ended already it starts nothing: the error wraps ErrCancelled (or
// ErrTimeout, for a deadline) and ctx's error.
func runJob(ctx context.Context, j jobRun, read func(dir string) error) (started, error) {
	if err := notStarted(ctx, j.p); err != nil {
		return started{}, err
	}
	python, err := findPython(ctx, j.python, j.p)
	if err != nil {
		return started{}, err
	}
	dir, err := os.MkdirTemp("", "stridelab-torch-")
	if err != nil {
		return started{}, fmt.Errorf("torch engine: %w", err)
	}
	defer os.RemoveAll(dir)
	err = j.write(dir)
	for name, body := range map[string][]byte{"worker.py": workerPy, "ops.py": opsPy, "calibrate.py": calibratePy} {
		if err == nil {
			err = writeBytes(filepath.Join(dir, name), body)
		}
	}
	if err != nil {
		return started{}, fmt.Errorf("torch engine: writing the job: %w", err)
	}
	port := j.port
	if port == 0 {
		if port, err = freePort(); err != nil {
			return started{}, fmt.Errorf("torch engine: no free port on 127.0.0.1: %w", err)
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, j.timeout)
	defer cancel()
	g := &gang{python: python, dir: dir, port: port, placement: j.p, fault: j.fault, timeout: j.timeout, script: j.script, onStatus: j.onStatus}
	if err := g.run(runCtx, ctx); err != nil {
		return started{}, err
	}
	s := started{python: python, port: port}
	return s, read(dir)
}
