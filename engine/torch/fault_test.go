package torch

import (
	"context"
	"errors"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// faultProgram has a boxing at step 1 and step 3, and an op at step 2.
const faultProgram = "placement 2; x = input 6,4 S(0); y = box x B; z = add y y; w = box z S(1)"

// fail runs faultProgram with opts and returns its error, which must be
// an *Error of one line, reached within bound, leaving no worker and no
// job folder behind. With kept, the run is handed the workers testPool
// keeps after a run of faultProgram that succeeds (its own timeout the
// default), and its error must name them; else it starts its own.
func fail(t *testing.T, opts Options, bound time.Duration, kept bool) *Error {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pl := planOf(t, faultProgram, planner.Greedy)
	opts.Python = needTorch(t)
	var keptPids []int
	if kept {
		res, err := pooled(t, Options{}).Run(context.Background(), pl, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Values.Release()
		for _, r := range res.Ranks {
			keptPids = append(keptPids, r.Pid)
		}
		keptWorkers(t, keptPids...)
		opts.Pool = testPool
	}
	start := time.Now()
	res, err := New(opts).Run(context.Background(), pl, nil)
	took := time.Since(start)
	if err == nil {
		res.Values.Release()
		t.Fatal("the run succeeded")
	}
	t.Logf("after %v: %v", took.Round(time.Millisecond), err)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%v: want an *Error", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the error has more than one line: %q", err)
	}
	if took > bound {
		t.Errorf("the run took %v to fail; want at most %v", took, bound)
	}
	var pids []int
	for _, st := range e.Ranks {
		if st.Pid <= 0 {
			t.Errorf("rank %d has no pid", st.Rank)
		}
		pids = append(pids, st.Pid)
	}
	if kept && !slices.Equal(pids, keptPids) {
		t.Errorf("the run failed on pids %v; want the kept workers %v", pids, keptPids)
	}
	noStrays(t, pids...)
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %v in the temporary folder", left)
	}
	return e
}

// TestWorkerRaises: a worker's exception ends the run, on workers started
// for it and on workers kept from an earlier run, and the error names
// its rank, step and line.
func TestWorkerRaises(t *testing.T) {
	needTorch(t)
	for _, kept := range []bool{false, true} {
		t.Run(map[bool]string{false: "started", true: "kept"}[kept], func(t *testing.T) {
			e := fail(t, Options{fault: "raise:1:2"}, 60*time.Second, kept)
			want := "rank 1 (pid "
			if !errors.Is(e, ErrWorker) || e.Rank != 1 || e.Line != "RuntimeError: injected fault at step 2" ||
				!strings.Contains(e.Error(), want) || !strings.Contains(e.Error(), "failed in step 2: op z = add") {
				t.Errorf("got %v (rank %d, line %q); want rank 1 failing in step 2 with its RuntimeError", e, e.Rank, e.Line)
			}
		})
	}
}

// TestWorkerKilled: a worker killed by a signal, on workers kept from an
// earlier run, is blamed before the peers its death broke.
func TestWorkerKilled(t *testing.T) {
	needTorch(t)
	e := fail(t, Options{fault: "kill:0:1"}, 60*time.Second, true)
	if !errors.Is(e, ErrWorker) || e.Rank != 0 || !strings.Contains(e.Error(), "rank 0 (pid ") ||
		!strings.Contains(e.Error(), "was killed (signal: killed) in step 1: boxing y (all-gather)") {
		t.Errorf("got %v; want rank 0 killed in step 1", e)
	}
}

// TestPortTaken: workers started on a port another process holds fail in
// torch.distributed's start, and the error says the port may be taken.
func TestPortTaken(t *testing.T) {
	needTorch(t)
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	e := fail(t, Options{Port: port}, 60*time.Second, false)
	if !errors.Is(e, ErrWorker) || e.Rank != 0 || !strings.Contains(e.Error(), "in init:") ||
		!strings.Contains(e.Error(), "did not start on 127.0.0.1:") || !strings.Contains(strings.ToLower(e.Line), "address already in use") {
		t.Errorf("got %v (line %q); want rank 0 failing to start torch.distributed on the taken port", e, e.Line)
	}
}

// TestTimeout: a run past its timeout (rank 1 hangs in step 1 for ever)
// kills every worker and says where each was. It runs on workers kept
// from an earlier run, which reach step 1 at once, so its timeout need
// not cover their start.
func TestTimeout(t *testing.T) {
	needTorch(t)
	timeout := 3 * time.Second
	e := fail(t, Options{fault: "hang:1:1", Timeout: timeout}, timeout+10*time.Second, true)
	if !errors.Is(e, ErrTimeout) || e.Rank != -1 {
		t.Fatalf("got %v; want a timeout", e)
	}
	for _, want := range []string{"rank 0 in step 1: boxing y (all-gather)", "rank 1 in step 1: boxing y (all-gather)", "the timeout is 3s"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("%v: want %q", e, want)
		}
	}
}

// TestCancelled: ctx ending while the workers run (rank 1 hangs in step
// 1 for ever; the cancel comes once it is there) kills every worker and
// says where each was.
func TestCancelled(t *testing.T) {
	py := needTorch(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hear := func(pos int, where string) {
		if pos == 1 && strings.HasPrefix(where, "step 1:") {
			cancel()
		}
	}
	_, err := New(Options{Python: py, fault: "hang:1:1", onStatus: hear}).Run(ctx, planOf(t, faultProgram, planner.Greedy), nil)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrCancelled) || !strings.Contains(err.Error(), "rank 1 in step 1: boxing y (all-gather)") {
		t.Fatalf("got %v; want a cancelled run, rank 1 in step 1", err)
	}
	var pids []int
	for _, st := range e.Ranks {
		pids = append(pids, st.Pid)
	}
	noStrays(t, pids...)
}

// TestNoTorch: an interpreter without torch is refused in one line that
// says what to install, before any worker starts.
func TestNoTorch(t *testing.T) {
	_, err := New(Options{Python: "false"}).Run(context.Background(), planOf(t, faultProgram, planner.Greedy), nil)
	if !errors.Is(err, ErrNoTorch) || !strings.Contains(err.Error(), "apt-get install python3-torch") || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v; want one line naming python3-torch", err)
	}
	if _, err := FindPython(context.Background(), "/no/such/python3"); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("a missing interpreter: %v", err)
	}
}

// TestPastTheBudget: a run past the result budget is refused before any
// worker starts (no interpreter is even looked for).
func TestPastTheBudget(t *testing.T) {
	prev := tensor.SetMaxBytes(tensor.Limit{Bytes: 1 << 10, Source: "the test's"})
	defer tensor.SetMaxBytes(prev)
	pl := planOf(t, "placement 4; x = input 64,64 B; y = add x x", planner.Greedy)
	_, err := New(Options{Python: "/no/such/python3"}).Run(context.Background(), pl, nil)
	if !errors.Is(err, tensor.ErrTooLarge) || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v; want the budget's one-line refusal", err)
	}
}
