package torch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/stridelab/stridelab/sbp"
)

// jobRun is one job for workers: the run of a plan (worker.py) or a
// calibration (calibrate.py).
type jobRun struct {
	python   string // as Options.Python: "" picks one
	port     int    // 0 picks a free one
	p        sbp.Placement
	timeout  time.Duration
	script   string                      // the file each worker runs
	write    func(dir string) error      // the job's own files: job.json, input shards
	fault    string                      // gang.fault
	onStatus func(pos int, where string) // gang.onStatus, without a pool only
	pool     *Pool                       // as Options.Pool: nil starts and stops the workers here
}

// started says what a job ran on.
type started struct {
	python string
	port   int
	// kept is how many jobs the workers had run before this one: 0
	// for workers started for it.
	kept int
}

// runJob runs j's job and hands its folder to read once every worker
// has finished it: it finds the interpreter, writes a temporary job
// folder (j.write's files beside the embedded worker.py, ops.py and
// calibrate.py), and runs the job within j.timeout on the gang j.pool
// keeps for its kind, or else on one worker per device of j.p started on
// j.script there (which j.pool keeps after it, if j.pool is set). The
// folder is removed before it returns, and the workers stopped unless
// j.pool keeps them. When ctx has ended already it starts nothing: the
// error wraps ErrCancelled (or ErrTimeout, for a deadline) and ctx's
// error.
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
	for name, body := range map[string][]byte{"worker.py": workerPy, "ops.py": []byte(OpsPython), "calibrate.py": calibratePy} {
		if err == nil {
			err = writeBytes(filepath.Join(dir, name), body)
		}
	}
	if err != nil {
		return started{}, fmt.Errorf("torch engine: writing the job: %w", err)
	}
	runCtx, cancel := context.WithTimeout(ctx, j.timeout)
	defer cancel()
	key := gangKey{python: python, size: j.p.Size(), port: j.port}
	g := j.pool.take(key, j.timeout)
	s := started{python: python}
	if g != nil {
		s.kept = g.seq
		err = g.next(runCtx, ctx, dir, j.fault, j.timeout)
	} else {
		port := j.port
		if port == 0 {
			if port, err = freePort(); err != nil {
				return started{}, fmt.Errorf("torch engine: no free port on 127.0.0.1: %w", err)
			}
		}
		g = &gang{python: python, dir: dir, port: port, placement: j.p, fault: j.fault, timeout: j.timeout, script: j.script, serve: j.pool != nil}
		if j.pool == nil { // a kept gang would call it in later runs
			g.onStatus = j.onStatus
		}
		if err = g.start(runCtx); err == nil {
			err = g.wait(runCtx, ctx)
		}
	}
	s.port = g.port
	if err == nil {
		err = read(dir)
	}
	switch {
	case err != nil:
		g.stop()
		return started{}, err
	case j.pool == nil:
		g.stop()
	default:
		j.pool.keep(key, g)
	}
	return s, nil
}
