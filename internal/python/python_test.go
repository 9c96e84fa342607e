package python

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fake writes an executable shell script standing in for python3: it
// sleeps while dir/slow exists, counts its runs in dir/runs, and exits
// with status code.
func fake(t *testing.T, code int) (path, dir string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "python3")
	script := "#!/bin/sh\necho run >> " + filepath.Join(dir, "runs") + "\n" +
		"if [ -e " + filepath.Join(dir, "slow") + " ]; then exec sleep 30; fi\n" +
		"echo 'ModuleNotFoundError: no module named numpy' >&2\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

func runs(t *testing.T, dir string) int {
	raw, _ := os.ReadFile(filepath.Join(dir, "runs"))
	return strings.Count(string(raw), "run")
}

var need = Need{Prefix: "test", What: "numpy", Probe: "import numpy", Install: "install it", Err: ErrNoNumPy}

// TestFindCancelled: a probe ends with the caller's context, and the
// error wraps the context's; a context already ended returns at once.
func TestFindCancelled(t *testing.T) {
	py, dir := fake(t, 0)
	os.WriteFile(filepath.Join(dir, "slow"), nil, 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Find(ctx, py, need)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Find took %v after its context was cancelled at 200ms", took)
	}
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrNoNumPy) {
		t.Errorf("got %v; want an error wrapping context.Canceled, not ErrNoNumPy", err)
	}
}

// TestFindTimeoutNotKept: a probe cut short by the caller's deadline is
// not remembered: the next Find asks the interpreter again, and keeps
// its pass (a third Find does not run it).
func TestFindTimeoutNotKept(t *testing.T) {
	py, dir := fake(t, 0)
	slow := filepath.Join(dir, "slow")
	os.WriteFile(slow, nil, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Find(ctx, py, need); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a probe past the deadline: %v; want context.DeadlineExceeded", err)
	}
	os.Remove(slow)
	got, err := Find(context.Background(), py, need)
	if err != nil || got != py {
		t.Fatalf("after the timeout: %q, %v; want %s asked again and passing", got, err, py)
	}
	if _, err := Find(context.Background(), py, need); err != nil || runs(t, dir) != 2 {
		t.Errorf("a third Find: %v, %d runs of the interpreter; want the pass kept (2 runs)", err, runs(t, dir))
	}
}

// TestFindFailureNotKept: an interpreter that lacks the need is refused
// in one line wrapping Need.Err, and asked again the next time.
func TestFindFailureNotKept(t *testing.T) {
	py, dir := fake(t, 1)
	for range 2 {
		_, err := Find(context.Background(), py, need)
		if !errors.Is(err, ErrNoNumPy) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "ModuleNotFoundError") {
			t.Errorf("got %v; want one line with the probe's last line, wrapping ErrNoNumPy", err)
		}
	}
	if n := runs(t, dir); n != 2 {
		t.Errorf("the interpreter ran %d times for 2 Finds; want 2 (a failure is not kept)", n)
	}
}

// TestFindOnPath: without a path, Find takes the first python3 on PATH
// that passes, after one that does not.
func TestFindOnPath(t *testing.T) {
	bad, _ := fake(t, 1)
	good, _ := fake(t, 0)
	t.Setenv("PATH", filepath.Dir(bad)+string(os.PathListSeparator)+filepath.Dir(good))
	if got, err := Find(context.Background(), "", need); err != nil || got != good {
		t.Errorf("got %q, %v; want %s", got, err, good)
	}
}
