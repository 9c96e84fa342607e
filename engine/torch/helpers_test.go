package torch

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// needTorch returns the interpreter the tests run, or skips the test
// (saying why) when none imports torch; with STRIDELAB_REQUIRE_TORCH=1 it
// fails instead.
func needTorch(t *testing.T) string {
	t.Helper()
	py, err := FindPython("")
	if err != nil {
		if os.Getenv("STRIDELAB_REQUIRE_TORCH") == "1" {
			t.Fatalf("STRIDELAB_REQUIRE_TORCH=1: %v", err)
		}
		t.Skipf("skipped: %v", err)
	}
	return py
}

// noStrays fails the test when a worker of pids, or any process running
// the worker.py of a job folder under scope (the test's TMPDIR; "" for
// none), is still alive. The scope keeps other packages' runs, tested at
// the same time, out of the count.
func noStrays(t *testing.T, scope string, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if pid <= 0 {
			continue
		}
		if raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && strings.Contains(string(raw), "worker.py") {
			t.Errorf("worker pid %d outlived its run", pid)
		}
	}
	if scope == "" {
		return
	}
	if out, err := exec.Command("pgrep", "-f", regexp.QuoteMeta(scope)+"/stridelab-torch-.*/worker.py").Output(); err == nil {
		t.Errorf("stray workers: %s", strings.TrimSpace(string(out)))
	}
}
