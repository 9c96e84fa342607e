package torch

import (
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp/planner"
)

// TestPoolKeepsWorkers runs faultProgram twice on a pool of its own: the
// second run is handed the first's workers (the same pids, and a note
// saying so), its setup on each rank is shorter than the first's (the
// import and torch.distributed's start were the first's), and its values
// have the first's bits. Close kills those workers and leaves no folder;
// a run after Close starts its own workers and stops them.
func TestPoolKeepsWorkers(t *testing.T) {
	py := needTorch(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pool := NewPool()
	defer pool.Close()
	pl := planOf(t, faultProgram, planner.Greedy)
	var runs [2]*engine.Result
	for i := range runs {
		res, err := New(Options{Python: py, Pool: pool}).Run(context.Background(), pl, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Values.Release()
		runs[i] = res
	}
	first, second := runs[0], runs[1]
	var pids []int
	for pos, r := range second.Ranks {
		pids = append(pids, r.Pid)
		if f := first.Ranks[pos]; r.Pid != f.Pid || !(r.Setup > 0 && r.Setup < f.Setup) {
			t.Errorf("rank %d: pid %d after a setup of %v, then pid %d after %v; want the same pid, the second setup shorter", r.Rank, f.Pid, f.Setup, r.Pid, r.Setup)
		}
	}
	kept := func(res *engine.Result) bool {
		return slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "workers kept by the pool, this their job 2") })
	}
	if kept(first) || !kept(second) {
		t.Errorf("notes %q, then %q; want the second run's to say its workers were kept", first.Notes, second.Notes)
	}
	for _, a := range engine.Compare(second.Values, first.Values) {
		if !a.Equal {
			t.Errorf("%s: on kept workers %s", a.Name, a.Verdict("on new ones"))
		}
	}
	if got := pool.pids(); !slices.Equal(sorted(got), sorted(pids)) {
		t.Errorf("the pool keeps %v; want %v", got, pids)
	}
	pool.Close()
	noStrays(t, pids...)
	if got := pool.pids(); len(got) != 0 {
		t.Errorf("a closed pool keeps %v", got)
	}
	res, err := New(Options{Python: py, Pool: pool}).Run(context.Background(), planOf(t, "placement 1; x = input 6,4 B; y = add x x", planner.Greedy), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Values.Release()
	var after []int
	for _, r := range res.Ranks {
		after = append(after, r.Pid)
		if slices.Contains(pids, r.Pid) {
			t.Errorf("rank %d ran after Close on pid %d, a closed pool's", r.Rank, r.Pid)
		}
	}
	noStrays(t, after...)
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the runs left %v in the temporary folder", left)
	}
}

// TestPoolWorkerDiedWaiting: a kept worker that dies while it waits for
// the next run (killed here) ends its gang: the next run starts workers
// of its own and succeeds, and none of the old gang is left.
func TestPoolWorkerDiedWaiting(t *testing.T) {
	needTorch(t)
	pl := planOf(t, faultProgram, planner.Greedy)
	run := func() []int {
		t.Helper()
		res, err := pooled(t, Options{}).Run(context.Background(), pl, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Values.Release()
		var pids []int
		for _, r := range res.Ranks {
			pids = append(pids, r.Pid)
		}
		keptWorkers(t, pids...)
		return pids
	}
	old := run()
	if err := syscall.Kill(old[1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Once reaped, its exit is the gang's to hear.
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(old[1])); err != nil {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("pid %d was not reaped within 10 s", old[1])
		}
	}
	for _, pid := range run() {
		if slices.Contains(old, pid) {
			t.Errorf("the run after a worker died ran on pid %d, of the dead worker's gang %v", pid, old)
		}
	}
	noStrays(t, old...)
}

// TestPoolKinds: a pool hands a gang only to runs of its kind (the
// interpreter, the devices, the port) whose timeout is no longer than
// the one the gang joined with; it keeps one gang a kind, the one with
// the longer timeout, and none once closed. Runs taking and giving back
// gangs at once (under -race) never share one. The gangs here have no
// workers.
func TestPoolKinds(t *testing.T) {
	p := NewPool()
	k2, k3 := gangKey{python: "py", size: 2}, gangKey{python: "py", size: 3}
	g60 := &gang{joined: 60 * time.Second}
	p.keep(k2, g60)
	for _, c := range []struct {
		k       gangKey
		timeout time.Duration
		want    *gang
	}{
		{k3, time.Second, nil},
		{gangKey{python: "other", size: 2}, time.Second, nil},
		{gangKey{python: "py", size: 2, port: 29500}, time.Second, nil},
		{k2, 120 * time.Second, nil},
		{k2, 60 * time.Second, g60},
		{k2, time.Second, nil}, // taken: none waits
	} {
		if got := p.take(c.k, c.timeout); got != c.want {
			t.Errorf("take(%+v, %v) = %p; want %p", c.k, c.timeout, got, c.want)
		}
	}
	g120, g30 := &gang{joined: 120 * time.Second}, &gang{joined: 30 * time.Second}
	p.keep(k2, g60)
	p.keep(k2, g120) // longer: it waits, g60 is stopped
	p.keep(k2, g30)  // shorter: stopped
	if got := p.take(k2, time.Second); got != g120 {
		t.Errorf("after keeping 60 s, 120 s and 30 s gangs the pool hands %p; want the 120 s one %p", got, g120)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := map[*gang]bool{}
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				g := p.take(k2, 0)
				if g == nil {
					g = &gang{joined: time.Duration(i*50+j) * time.Millisecond}
				}
				mu.Lock()
				if held[g] {
					t.Errorf("a gang was handed to two runs at once")
				}
				held[g] = true
				mu.Unlock()
				runtime.Gosched()
				mu.Lock()
				delete(held, g)
				mu.Unlock()
				p.keep(k2, g)
			}
		}()
	}
	wg.Wait()
	p.Close()
	p.keep(k3, &gang{joined: time.Hour})
	if got := p.take(k3, time.Second); got != nil {
		t.Errorf("a closed pool kept a gang")
	}
}

// sorted is s in increasing order, in a new slice.
func sorted(s []int) []int {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
