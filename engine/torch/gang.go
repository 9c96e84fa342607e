package torch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stridelab/stridelab/sbp"
)

// Sentinels of *Error, for errors.Is.
var (
	// ErrWorker: a worker failed (an exception, a signal, a failed start
	// of torch.distributed).
	ErrWorker = errors.New("a worker failed")
	// ErrTimeout: the run passed its timeout.
	ErrTimeout = errors.New("the run passed its timeout")
	// ErrCancelled: the caller's context ended the run.
	ErrCancelled = errors.New("the run was cancelled")
)

// Error is a run that failed once its workers had started. Its message
// is one line: the rank blamed, its pid, the step it was in and its last
// error line; for a timeout, the step every rank was in.
type Error struct {
	Kind  error        // ErrWorker, ErrTimeout or ErrCancelled
	Rank  int          // the placement rank blamed (ErrWorker), else -1
	Line  string       // the blamed worker's last error line
	Ranks []RankStatus // every worker, in placement order
	// Detail is added after the rest: a hint, or the timeout's length.
	Detail string
}

// RankStatus is where one worker was when the run ended.
type RankStatus struct {
	Position int
	Rank     int
	Pid      int
	Where    string // the worker's last status: "init: …", "step 3: boxing …", "done"
	Exit     string // how it ended: "exit status 1", "signal: killed", "" (still running when stopped)
}

func (e *Error) Unwrap() error { return e.Kind }

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("torch engine: ")
	switch e.Kind {
	case ErrWorker:
		st := e.Ranks[positionOf(e.Ranks, e.Rank)]
		fmt.Fprintf(&b, "rank %d (pid %d) ", st.Rank, st.Pid)
		if strings.HasPrefix(st.Exit, "signal") {
			fmt.Fprintf(&b, "was killed (%s) ", st.Exit)
		} else {
			b.WriteString("failed ")
		}
		b.WriteString(at(st.Where))
		if e.Line != "" {
			fmt.Fprintf(&b, ": %s", e.Line)
		}
		b.WriteString("; every other worker was stopped")
	default:
		b.WriteString(e.Kind.Error())
		parts := make([]string, len(e.Ranks))
		for i, st := range e.Ranks {
			parts[i] = fmt.Sprintf("rank %d %s", st.Rank, at(st.Where))
		}
		fmt.Fprintf(&b, "; every worker was killed: %s", strings.Join(parts, ", "))
	}
	if e.Detail != "" {
		b.WriteString(" (" + e.Detail + ")")
	}
	return strings.ReplaceAll(b.String(), "\n", " ")
}

// at says where a worker was, from its last status.
func at(where string) string {
	switch where {
	case "start":
		return "at its start"
	case "done":
		return "after its last step"
	}
	return "in " + where
}

func positionOf(ranks []RankStatus, rank int) int {
	for i, st := range ranks {
		if st.Rank == rank {
			return i
		}
	}
	return 0
}

// gang is the workers of a job: one process per device. A one-shot
// gang's workers run the job they start with and exit; a serving gang's
// (a Pool's) stay, each running the next job its stdin names.
type gang struct {
	python    string
	dir       string // the folder of the job running now
	port      int
	placement sbp.Placement
	fault     string        // the tests' fault for the job running now
	timeout   time.Duration // the job running now's
	// joined is the timeout the workers joined torch.distributed with,
	// their first job's: gloo's own, for the world's collectives. A
	// serving gang runs later jobs whose timeout is no longer, so that
	// the engine's timeout, not gloo's, ends a job that hangs.
	joined  time.Duration
	workers []*worker
	// script is the file in dir each worker runs: worker.py when empty
	// (calibrate runs calibrate.py).
	script string
	// onStatus, when set, hears every status line a worker prints (its
	// position and the line's text), as it prints it.
	onStatus func(pos int, where string)
	// serve starts the workers with --serve: after each job a worker
	// prints "stridelab-idle: SEQ" and reads its next job from its stdin.
	serve bool
	seq   int          // the job running now, or last run: 1 is the one the workers start with
	exits chan *worker // each worker, once, when it has exited
	idle  chan int     // serve: the job each worker says it has finished
}

// worker is one process.
type worker struct {
	pos  int
	cmd  *exec.Cmd
	out  *tail
	in   io.WriteCloser // serve: its stdin, where its next job goes
	err  error          // from Wait
	done bool
}

// grace is how long, after the first worker fails, the run waits for the
// others to fail on their own before it stops them: a worker killed by a
// signal or raising on its own is then blamed before the peers whose
// collectives broke because of it.
const grace = 300 * time.Millisecond

// errLeft is a serving worker's exit in the middle of a job: it exits
// only when its stdin ends, and never during a job.
var errLeft = errors.New("exited before its job was done")

// start starts one worker per device on the job in g.dir, each in a
// process group of its own, and no worker once runCtx has ended (wait
// then says why). On an error the caller stops the gang.
func (g *gang) start(runCtx context.Context) error {
	n := g.placement.Size()
	g.seq, g.joined, g.exits, g.idle = 1, g.timeout, make(chan *worker, n), make(chan int, n)
	for pos := range n {
		if runCtx.Err() != nil {
			break
		}
		w, err := g.startWorker(pos)
		if err != nil {
			return fmt.Errorf("torch engine: starting rank %d with %s: %w", g.placement.Rank(pos), g.python, err)
		}
		g.workers = append(g.workers, w)
		go func() {
			w.err = w.cmd.Wait()
			g.exits <- w
		}()
	}
	return nil
}

// next hands a serving gang its next job, the folder dir (fault: the
// tests' fault for it; timeout: its timeout, the one runCtx carries),
// and waits for it as wait does. A worker that has exited cannot read
// the job: wait hears its exit.
func (g *gang) next(runCtx, callerCtx context.Context, dir, fault string, timeout time.Duration) error {
	g.seq++
	g.dir, g.fault, g.timeout = dir, fault, timeout
	line, err := json.Marshal(jobLine{Job: dir, Fault: fault, Seq: g.seq})
	if err != nil {
		return fmt.Errorf("torch engine: %w", err)
	}
	line = append(line, '\n')
	for _, w := range g.workers {
		w.in.Write(line)
	}
	return g.wait(runCtx, callerCtx)
}

// jobLine is a serving worker's next job: one line of JSON on its stdin.
type jobLine struct {
	Job   string `json:"job"`   // the job folder
	Fault string `json:"fault"` // the tests' fault (Options.fault)
	Seq   int    `json:"seq"`   // the job's number in the gang: it says "stridelab-idle: SEQ" when done
}

// wait waits until every worker has finished the job running now: a
// one-shot worker by exiting 0, a serving one by saying it is idle. The
// first worker to fail (for a serving gang, to exit at all) and the end
// of runCtx return an *Error; the caller then stops the gang. runCtx
// carries the timeout; callerCtx tells a cancellation from it.
func (g *gang) wait(runCtx, callerCtx context.Context) error {
	for left := g.placement.Size(); left > 0; {
		select {
		case w := <-g.exits:
			w.done = true
			if w.err == nil && g.serve {
				w.err = errLeft
			}
			if w.err != nil {
				return g.failed(w)
			}
			left--
		case seq := <-g.idle:
			if seq == g.seq {
				left--
			}
		case <-runCtx.Done():
			g.killAll()
			kind, detail := ErrTimeout, fmt.Sprintf("the timeout is %v", g.timeout)
			if callerCtx.Err() != nil {
				kind, detail = ErrCancelled, callerCtx.Err().Error()
			}
			return &Error{Kind: kind, Rank: -1, Ranks: g.statuses(), Detail: detail}
		}
	}
	return nil
}

// alive reports whether every worker of an idle serving gang is still
// running.
func (g *gang) alive() bool {
	select {
	case w := <-g.exits:
		w.done = true
		return false
	default:
		return true
	}
}

// stop kills every worker still running, with its process group, and
// waits until each has been reaped.
func (g *gang) stop() {
	g.killAll()
	for _, w := range g.workers {
		for !w.done {
			(<-g.exits).done = true
		}
	}
}

// failed collects the workers that fail within grace of first, stops
// the rest, and blames one: a worker killed by a signal first, then one
// whose error is its own (not a broken connection to a peer), then the
// first.
func (g *gang) failed(first *worker) error {
	failures := []*worker{first}
	timer := time.NewTimer(grace)
	defer timer.Stop()
wait:
	for {
		select {
		case w := <-g.exits:
			w.done = true
			if w.err == nil && g.serve {
				w.err = errLeft
			}
			if w.err != nil {
				failures = append(failures, w)
			}
		case <-timer.C:
			break wait
		}
	}
	g.killAll()
	blame := failures[0]
	for _, w := range failures {
		if signalled(w.err) {
			blame = w
			break
		}
	}
	if !signalled(blame.err) {
		for _, w := range failures {
			if !peerError(g.lastLine(w)) {
				blame = w
				break
			}
		}
	}
	e := &Error{Kind: ErrWorker, Rank: g.placement.Rank(blame.pos), Line: g.lastLine(blame), Ranks: g.statuses()}
	if where := e.Ranks[blame.pos].Where; strings.HasPrefix(where, "init: joining") {
		e.Detail = fmt.Sprintf("torch.distributed did not start on 127.0.0.1:%d; is the port taken?", g.port)
	}
	return e
}

// signalled reports whether a worker's Wait error is a death by signal.
func signalled(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && strings.HasPrefix(ee.String(), "signal")
}

// peerError reports whether an error line is gloo's word for a peer that
// went away: an effect of another worker's failure, not a cause.
func peerError(line string) bool {
	l := strings.ToLower(line)
	for _, s := range []string{"connection closed by peer", "connection reset", "broken pipe", "timed out", "timeout", "socket closed"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// lastLine is a worker's last error line: the one it wrote to its error
// file, else the last line of its output, else how it exited.
func (g *gang) lastLine(w *worker) string {
	if raw, err := os.ReadFile(filepath.Join(g.dir, fmt.Sprintf("error.%d", w.pos))); err == nil {
		if _, line, ok := strings.Cut(strings.TrimSpace(string(raw)), "\t"); ok {
			return line
		}
	}
	if signalled(w.err) {
		return ""
	}
	alt := ""
	if w.err != nil {
		alt = w.err.Error()
	}
	return lastLine(w.out.String(), alt)
}

// statuses says where every worker was.
func (g *gang) statuses() []RankStatus {
	out := make([]RankStatus, g.placement.Size())
	for pos := range out {
		st := RankStatus{Position: pos, Rank: g.placement.Rank(pos), Where: "start"}
		if pos < len(g.workers) {
			w := g.workers[pos]
			st.Where = w.out.Status()
			st.Pid = w.cmd.Process.Pid
			if w.done && w.err != nil {
				st.Exit = w.err.Error()
			} else if w.done {
				st.Exit = "exit status 0"
			}
		}
		out[pos] = st
	}
	return out
}

// startWorker starts the worker at position pos in a process group of
// its own.
func (g *gang) startWorker(pos int) (*worker, error) {
	script := g.script
	if script == "" {
		script = "worker.py"
	}
	args := []string{"-u", filepath.Join(g.dir, script), g.dir}
	if g.serve {
		args = append(args, "--serve")
	}
	cmd := exec.Command(g.python, args...)
	cmd.Dir = g.dir
	cmd.Env = g.env(pos)
	out := &tail{max: tailBytes}
	if g.onStatus != nil {
		out.onStatus = func(where string) { g.onStatus(pos, where) }
	}
	w := &worker{pos: pos, cmd: cmd, out: out}
	if g.serve {
		out.onIdle = func(seq int) { g.idle <- seq }
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		w.in = in
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return w, nil
}

// env is the worker's environment: the caller's, less anything that
// would confuse torch.distributed or inject a fault, plus the rendezvous.
func (g *gang) env(pos int) []string {
	drop := map[string]bool{"MASTER_ADDR": true, "MASTER_PORT": true, "RANK": true, "WORLD_SIZE": true, "LOCAL_RANK": true,
		"LOCAL_WORLD_SIZE": true, "GROUP_RANK": true, "STRIDELAB_TORCH_TEST_FAULT": true}
	var env []string
	has := map[string]bool{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
			has[k] = true
		}
	}
	env = append(env, "MASTER_ADDR=127.0.0.1", "MASTER_PORT="+strconv.Itoa(g.port), "RANK="+strconv.Itoa(pos),
		"WORLD_SIZE="+strconv.Itoa(g.placement.Size()), "PYTHONDONTWRITEBYTECODE=1")
	// One thread per worker: a run starts a process per device, and
	// torch's own thread pool per process would oversubscribe the CPUs.
	if !has["OMP_NUM_THREADS"] {
		env = append(env, "OMP_NUM_THREADS=1")
	}
	if !has["GLOO_SOCKET_IFNAME"] && loopback != "" {
		env = append(env, "GLOO_SOCKET_IFNAME="+loopback)
	}
	if g.fault != "" {
		env = append(env, "STRIDELAB_TORCH_TEST_FAULT="+g.fault)
	}
	return env
}

// killAll kills every worker still running, with its process group.
func (g *gang) killAll() {
	for _, w := range g.workers {
		if !w.done {
			killGroup(w.cmd.Process)
		}
	}
}

// freePort asks the kernel for a free TCP port on 127.0.0.1. Another
// process may take it before rank 0 listens on it; the run then fails
// in init and says so.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitDelay bounds how long Wait waits for a killed worker's output
// to close.
const waitDelay = 2 * time.Second

// tailBytes is how much of a worker's output is kept: its traceback's
// last lines.
const tailBytes = 16 << 10

// statusPrefix starts the lines a worker prints to say where it is.
const statusPrefix = "stridelab-status: "

// idlePrefix starts the line a serving worker prints when it has
// finished a job, the job's number after it.
const idlePrefix = "stridelab-idle: "

// tail keeps the last max bytes a worker writes, less its status and
// idle lines, and the last status line apart.
type tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	partial []byte // a line not yet ended
	status  string
	// onStatus hears each status line, after Write has let go of mu.
	onStatus func(where string)
	// onIdle hears each idle line's job number, after Write has let go
	// of mu.
	onIdle func(seq int)
}

func (t *tail) Write(p []byte) (int, error) {
	var heard []string
	var idle []int
	defer func() {
		for _, where := range heard {
			t.onStatus(where)
		}
		for _, seq := range idle {
			t.onIdle(seq)
		}
	}()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		line := t.partial[:i+1]
		if rest, ok := bytes.CutPrefix(line, []byte(statusPrefix)); ok {
			t.status = strings.TrimSpace(string(rest))
			if t.onStatus != nil {
				heard = append(heard, t.status)
			}
		} else if rest, ok := bytes.CutPrefix(line, []byte(idlePrefix)); ok && t.onIdle != nil {
			if seq, err := strconv.Atoi(strings.TrimSpace(string(rest))); err == nil {
				idle = append(idle, seq)
			}
		} else {
			t.buf = append(t.buf, line...)
		}
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > t.max { // a line longer than the tail: keep its end
		t.buf = append(t.buf, t.partial...)
		t.partial = t.partial[:0]
	}
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the output kept, an unended last line included.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf) + string(t.partial)
}

// Status is the worker's last status line, or "start".
func (t *tail) Status() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == "" {
		return "start"
	}
	return t.status
}

// notStarted is the error of a run whose context ended before any
// worker started (nil while ctx is live): ErrCancelled, or ErrTimeout
// for a deadline, wrapping ctx's error as well.
func notStarted(ctx context.Context, p sbp.Placement) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	kind := ErrCancelled
	if errors.Is(err, context.DeadlineExceeded) {
		kind = ErrTimeout
	}
	return fmt.Errorf("torch engine: %w before any of its %d workers started: %w", kind, p.Size(), err)
}
