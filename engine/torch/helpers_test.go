package torch

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// needTorch returns the interpreter the tests run, or skips the test
// (saying why) when none imports torch; with STRIDELAB_REQUIRE_TORCH=1 it
// fails instead.
func needTorch(t *testing.T) string {
	t.Helper()
	py, err := FindPython(context.Background(), "")
	if err != nil {
		if os.Getenv("STRIDELAB_REQUIRE_TORCH") == "1" {
			t.Fatalf("STRIDELAB_REQUIRE_TORCH=1: %v", err)
		}
		t.Skipf("skipped: %v", err)
	}
	return py
}

// noStrays fails the test when a worker of pids, or any child of this
// process running a job folder's worker.py, is still alive.
func noStrays(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if pid <= 0 {
			continue
		}
		if raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && strings.Contains(string(raw), "worker.py") {
			t.Errorf("worker pid %d outlived its run", pid)
		}
	}
	// Only this test process's children: another package's tests (the
	// CLI's) may run workers of their own at the same time.
	if out, err := exec.Command("pgrep", "-P", strconv.Itoa(os.Getpid()), "-f", "stridelab-torch-.*/worker.py").Output(); err == nil {
		t.Errorf("stray workers: %s", strings.TrimSpace(string(out)))
	}
}
