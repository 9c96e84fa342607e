package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stridelab/stridelab/engine/torch"
)

func TestMain(m *testing.M) {
	torchWorkers = torch.NewPool()
	code := m.Run()
	torchWorkers.Close()
	if err := forker.close(); err != nil {
		fmt.Fprintf(os.Stderr, "the Python forker: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

// forkerPy is a Python process that runs scripts as processes of their
// own, each forked from it once it has imported what the emitted files
// import (torch, torch.distributed, NumPy, argparse, datetime): torch's
// costs some 2 s of CPU, which a fresh interpreter per rank and file
// paid again.
// It reads one job a line on its stdin, {"argv": [SCRIPT, ARG...],
// "env": [{NAME: VALUE}, …], "logs": [PATH, …]}, forks one child per
// entry of env, and prints a line with the children's exit statuses
// (negative: killed by that signal) once all have ended. A child is a
// fresh process as `python SCRIPT ARG...` would be: SCRIPT runs as
// __main__ (runpy.run_path) with sys.argv and sys.path[0] as python
// sets them, its environment its entry of env (the libraries the
// forker loaded read theirs at its start, from the same test process),
// its stdin /dev/null and its stdout and stderr the file at its log
// path. The forker itself calls nothing of torch, so no thread of
// torch's exists to be lost in the fork.
const forkerPy = `import json, os, runpy, sys, traceback
import argparse, datetime, numpy, torch, torch.distributed


def child(argv, env, log):
    code = 1
    try:
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


while True:
    line = sys.stdin.readline()
    if not line:
        break
    job = json.loads(line)
    pids = []
    for env, log in zip(job["env"], job["logs"]):
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            child(job["argv"], env, log)
        pids.append(pid)
    print(json.dumps([os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids]), flush=True)
`

// forker is the tests' one forkerPy process, started by the first run
// that needs it; TestMain closes it.
var forker forkerProc

// forkerProc is a forkerPy process, in a process group of its own with
// the children it forks.
type forkerProc struct {
	mu      sync.Mutex
	py      string
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan []int    // each job's exit statuses; closed when the forker's stdout ends
	stderr  bytes.Buffer  // read only once it has exited
	exited  chan struct{} // closed once Wait has returned
}

// forkerTimeout bounds one job, as the processes it stands in for were
// bounded.
var forkerTimeout = 120 * time.Second

// run runs argv (a script and its arguments) on one child per entry of
// envs, each writing its output to the log at its index, and returns
// their exit statuses. A job past forkerTimeout kills the forker with its
// children (the next job starts a new forker) and is an error.
func (f *forkerProc) run(py string, argv []string, envs []map[string]string, logs []string) ([]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cmd != nil && f.py != py {
		f.stop()
	}
	if f.cmd == nil {
		if err := f.start(py); err != nil {
			return nil, err
		}
	}
	line, err := json.Marshal(map[string]any{"argv": argv, "env": envs, "logs": logs})
	if err != nil {
		return nil, err
	}
	if _, err := f.in.Write(append(line, '\n')); err != nil {
		f.stop()
		return nil, fmt.Errorf("the forker took no job: %v; its stderr: %s", err, f.stderr.Bytes())
	}
	timer := time.NewTimer(forkerTimeout)
	defer timer.Stop()
	select {
	case codes, ok := <-f.replies:
		if !ok || len(codes) != len(envs) {
			f.stop()
			return nil, fmt.Errorf("the forker answered %v; its stderr: %s", codes, f.stderr.Bytes())
		}
		return codes, nil
	case <-timer.C:
		f.stop()
		return nil, fmt.Errorf("%v passed with the job still running: the forker and its children were killed", forkerTimeout)
	}
}

// start starts the forker and waits until it has imported torch.
func (f *forkerProc) start(py string) error {
	cmd := exec.Command(py, "-c", forkerPy)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = &f.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	f.stderr.Reset()
	if err := cmd.Start(); err != nil {
		return err
	}
	f.py, f.cmd, f.in, f.replies, f.exited = py, cmd, in, make(chan []int, 1), make(chan struct{})
	replies, exited := f.replies, f.exited
	go func() {
		defer close(replies)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var codes []int
			json.Unmarshal(sc.Bytes(), &codes)
			replies <- codes
		}
	}()
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return nil
}

// stop kills the forker and its children (their process group) and
// waits for it.
func (f *forkerProc) stop() {
	if f.cmd == nil {
		return
	}
	syscall.Kill(-f.cmd.Process.Pid, syscall.SIGKILL)
	<-f.exited
	f.cmd = nil
}

// close ends the forker: its stdin closed, it exits; past 10 s it is
// killed, and that is an error.
func (f *forkerProc) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cmd == nil {
		return nil
	}
	f.in.Close()
	select {
	case <-f.exited:
		f.cmd = nil
		return nil
	case <-time.After(10 * time.Second):
		f.stop()
		return errors.New("it did not exit within 10 s of its stdin's end, and was killed")
	}
}

// runWorld runs the file on n processes as torchrun would (Debian's
// torchrun fails under Python 3.11): each rank a process of its own,
// forked by the forker, with MASTER_ADDR, MASTER_PORT (a free port),
// RANK, WORLD_SIZE and LOCAL_RANK in its environment, the file its
// __main__ and args its arguments; and waits for all of them. Any
// failing fails the test, with its output; none outlives the test.
func runWorld(t *testing.T, py, file string, n int, args ...string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	envs, logs := make([]map[string]string, n), make([]string, n)
	for r := range n {
		envs[r] = environ("MASTER_ADDR=127.0.0.1", fmt.Sprintf("MASTER_PORT=%d", port), fmt.Sprintf("RANK=%d", r), fmt.Sprintf("WORLD_SIZE=%d", n), fmt.Sprintf("LOCAL_RANK=%d", r))
		logs[r] = filepath.Join(t.TempDir(), fmt.Sprintf("rank%d.log", r))
	}
	codes, err := forker.run(py, append([]string{file}, args...), envs, logs)
	if err != nil {
		t.Fatalf("%s on %d processes: %v", filepath.Base(file), n, err)
	}
	for r, code := range codes {
		if code != 0 {
			out, _ := os.ReadFile(logs[r])
			t.Errorf("rank %d of %s: exit status %d: %s", r, filepath.Base(file), code, out)
		}
	}
}

// runPython runs `python script args...` as a process forked by the
// forker, and returns its output and an error unless it exited 0.
func runPython(t *testing.T, py string, script string, args ...string) ([]byte, error) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "python.log")
	codes, err := forker.run(py, append([]string{script}, args...), []map[string]string{environ()}, []string{log})
	if err != nil {
		return nil, err
	}
	out, _ := os.ReadFile(log)
	if codes[0] != 0 {
		return out, fmt.Errorf("exit status %d", codes[0])
	}
	return out, nil
}

// environ is this process's environment with the NAME=VALUE pairs of
// more added, as exec.Cmd's Env of os.Environ() and more would be.
func environ(more ...string) map[string]string {
	env := map[string]string{}
	for _, kv := range append(os.Environ(), more...) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// TestForker: the forker's children are the processes they stand in for:
// each its own environment, argv and __main__, its exit status (a
// SystemExit's code, a signal as its negative), its output in its log;
// a job past forkerTimeout is one error, leaves no process behind, and
// the next job starts a new forker.
func TestForker(t *testing.T) {
	py := needTorch(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "ranks.py")
	src := "import os, signal, sys\nprint('rank', os.environ['RANK'], sys.argv[1:], __name__)\n" +
		"if os.environ['RANK'] == '1':\n    raise SystemExit(3)\nif os.environ['RANK'] == '2':\n    os.kill(os.getpid(), signal.SIGKILL)\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := []string{filepath.Join(dir, "l0"), filepath.Join(dir, "l1"), filepath.Join(dir, "l2")}
	codes, err := forker.run(py, []string{script, "--out", "x"}, []map[string]string{environ("RANK=0"), environ("RANK=1"), environ("RANK=2")}, logs)
	if err != nil || fmt.Sprint(codes) != "[0 3 -9]" {
		t.Fatalf("exit statuses %v, %v; want [0 3 -9] (0, SystemExit(3), SIGKILL)", codes, err)
	}
	if b, _ := os.ReadFile(logs[0]); string(b) != "rank 0 ['--out', 'x'] __main__\n" {
		t.Errorf("rank 0's log %q: want its RANK, its argv after the script and __main__", b)
	}

	hang := filepath.Join(dir, "hang.py")
	if err := os.WriteFile(hang, []byte("import time\nwhile True:\n    time.sleep(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { forkerTimeout = d }(forkerTimeout)
	forkerTimeout = 3 * time.Second
	if codes, err := forker.run(py, []string{hang}, []map[string]string{environ(), environ()}, []string{filepath.Join(dir, "h0"), filepath.Join(dir, "h1")}); err == nil {
		t.Fatalf("a job past its timeout returned %v and no error", codes)
	}
	if out, _ := exec.Command("pgrep", "-f", hang).Output(); strings.TrimSpace(string(out)) != "" {
		t.Errorf("processes of the timed-out job outlived it: %s", out)
	}
	forkerTimeout = 120 * time.Second
	if out, err := runPython(t, py, script); err == nil || !strings.Contains(string(out), "KeyError: 'RANK'") {
		t.Errorf("after the timeout, a new forker ran the script without RANK: %q, %v; want its KeyError", out, err)
	}
}
