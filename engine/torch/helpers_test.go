package torch

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stridelab/stridelab/internal/pythontest"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// testPool keeps the workers of the tests' runs (pooled) for the next
// run of their kind, so each kind starts its processes once; TestMain
// closes it and then checks that no worker is left.
var testPool = NewPool()

// numbersTests are the tests that check the engine's numbers on many
// cases (every op and boxing, the gallery's programs, calibration): they
// run the same pool, workers and gang as the rest, only more often. make
// test runs them without the race detector, beside the other packages
// (STRIDELAB_TORCH_TESTS=numbers), and the rest, the machinery, under it
// (STRIDELAB_TORCH_TESTS=machinery): under -race the numbers took a minute
// more and found nothing the machinery's tests do not. Unset, every test
// runs.
const numbersTests = `^(TestEveryOpAndBoxingOn1D|TestEveryBoxingOn2x2Mesh|TestGalleryPrograms|TestCalibrate)$`

func TestMain(m *testing.M) {
	flag.Parse()
	switch os.Getenv("STRIDELAB_TORCH_TESTS") {
	case "numbers":
		flag.Set("test.run", numbersTests)
	case "machinery":
		flag.Set("test.skip", numbersTests)
	}
	code := m.Run()
	testPool.Close()
	if left := workersLeft(); left != "" {
		fmt.Fprintf(os.Stderr, "workers left after the pool was closed: %s\n", left)
		code = 1
	}
	os.Exit(code)
}

// testPython is the interpreter FindPython picked, asked once: a python3
// on PATH that fails the probe (a pyenv shim, say) is asked again on
// every search, and the tests hand the one found to the engine.
var testPython = sync.OnceValues(func() (string, error) { return FindPython(context.Background(), "") })

// needTorch returns the interpreter the tests run, or skips the test
// (saying why) when none imports torch; with STRIDELAB_REQUIRE_TORCH=1 it
// fails instead.
func needTorch(t *testing.T) string {
	t.Helper()
	return pythontest.Torch(t, func(context.Context, string) (string, error) { return testPython() })
}

// pooled is the engine most tests run: opts with the interpreter found
// and testPool.
func pooled(t *testing.T, opts Options) *Engine {
	t.Helper()
	opts.Python, opts.Pool = needTorch(t), testPool
	return New(opts)
}

// noStrays fails the test when a worker of pids is still alive, or a
// child of this process runs a job folder's worker.py that is not one of
// testPool's.
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
	if left := workersLeft(testPool.pids()...); left != "" {
		t.Errorf("stray workers: %s", left)
	}
}

// keptWorkers fails the test unless every one of pids is a worker
// testPool keeps for the next run (so it ran in a process of its own),
// each a different one, and no other worker is left.
func keptWorkers(t *testing.T, pids ...int) {
	t.Helper()
	kept := testPool.pids()
	for i, pid := range pids {
		if pid <= 0 || pid == os.Getpid() || !slices.Contains(kept, pid) || slices.Contains(pids[:i], pid) {
			t.Errorf("rank at position %d ran in pid %d; the pool keeps %v", i, pid, kept)
		}
	}
	noStrays(t)
}

// workersLeft lists the children of this process running a job
// folder's worker.py, less those of pids: only this process's, since
// another package's tests (the CLI's) may run workers of their own at
// the same time.
func workersLeft(pids ...int) string {
	out, err := exec.Command("pgrep", "-P", strconv.Itoa(os.Getpid()), "-f", "stridelab-torch-.*/worker.py").Output()
	if err != nil {
		return ""
	}
	var left []string
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err != nil || !slices.Contains(pids, pid) {
			left = append(left, f)
		}
	}
	return strings.Join(left, " ")
}

// pids are the process ids of the workers the pool keeps.
func (p *Pool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var pids []int
	for _, g := range p.gangs {
		for _, w := range g.workers {
			pids = append(pids, w.cmd.Process.Pid)
		}
	}
	return pids
}

// boxing appends a boxing of the step read to the nd-SBP to that no plan
// step made (a test's own job), planned here by sbp.PlanBoxing, and
// returns its plan.
func (b *builder) boxing(name, read string, to sbp.NdSbp) (sbp.Boxing, error) {
	shape, ok := b.shape[read]
	if !ok {
		return sbp.Boxing{}, fmt.Errorf("it boxes %s, which no earlier step defines", read)
	}
	bx, err := sbp.PlanBoxing(shape, tensor.Float32, b.p, b.sbp[read], to)
	if err != nil {
		return sbp.Boxing{}, err
	}
	return bx, b.addBoxing(name, read, bx)
}
