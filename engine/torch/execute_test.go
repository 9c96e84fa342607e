package torch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stridelab/stridelab/sbp/planner"
)

// fakePython writes a shell script standing in for python3: it passes
// the probe (python -c …) and, run as a worker, writes its pid to
// dir/started.PID and sleeps.
func fakePython(t *testing.T) (path, dir string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "python3")
	script := "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\necho $$ > " + dir + "/started.$$\nexec sleep 30\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

// TestExecuteDoneContext: execute with a context that has ended starts
// no worker and writes no job folder, even with the interpreter already
// found (its pass kept), and says the run was cancelled.
func TestExecuteDoneContext(t *testing.T) {
	py, dir := fakePython(t)
	if _, err := FindPython(context.Background(), py); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pl := planOf(t, faultProgram, planner.Greedy)
	b, err := buildJob(pl, nil, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer b.release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ex, err := New(Options{Python: py}).execute(ctx, b, "")
	if err == nil {
		ex.release()
	}
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want ErrCancelled wrapping context.Canceled", err)
	}
	if started, _ := filepath.Glob(filepath.Join(dir, "started.*")); len(started) != 0 {
		t.Errorf("workers started: %v", started)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %v in the temporary folder", left)
	}
}

// TestCancelledInTheProbe: a run cancelled while its interpreter is being
// asked whether it imports torch is a cancelled run (ErrCancelled), not a
// fault of the interpreter, and starts no worker.
func TestCancelledInTheProbe(t *testing.T) {
	dir := t.TempDir()
	py := filepath.Join(dir, "python3")
	probing := filepath.Join(dir, "probing")
	script := "#!/bin/sh\n[ \"$1\" = -c ] && { touch " + probing + "; exec sleep 30; }\necho $$ > " + dir + "/started.$$\nexec sleep 30\n"
	if err := os.WriteFile(py, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // cancel once the probe runs, not before
		for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(probing); err == nil {
				break
			}
		}
		cancel()
	}()
	_, err := New(Options{Python: py}).Run(ctx, planOf(t, faultProgram, planner.Greedy), nil)
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want ErrCancelled wrapping context.Canceled", err)
	}
	if _, err := os.Stat(probing); err != nil {
		t.Errorf("the probe never ran: %v", err)
	}
	if started, _ := filepath.Glob(filepath.Join(dir, "started.*")); len(started) != 0 {
		t.Errorf("workers started: %v", started)
	}
}
