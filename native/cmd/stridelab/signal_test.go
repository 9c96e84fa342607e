package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalCLI is not a test: started by TestSignalTorchRun as a
// process of its own, it runs the CLI on the arguments in
// STRIDELAB_SIGNAL_TEST_ARGS (one a line) and exits with its status.
func TestSignalCLI(t *testing.T) {
	args := os.Getenv("STRIDELAB_SIGNAL_TEST_ARGS")
	if args == "" {
		t.Skip("run by TestSignalTorchRun")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// TestSignalTorchRun: SIGTERM to `stridelab sbp program --engine torch`
// ends the run as Ctrl-C does: the CLI exits with an error, kills every
// worker and leaves no stridelab-torch-* folder. The workers are a
// shell script standing in for python3 (--python): it passes the probe,
// records its pid and sleeps, so the run is still going when the signal
// comes.
func TestSignalTorchRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("skipped: the check that no worker outlives the run reads /proc (Linux)")
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	pids := filepath.Join(dir, "pids")
	for _, d := range []string{tmp, pids} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	py := filepath.Join(dir, "python3")
	script := "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\necho $$ > " + pids + "/$$\nexec sleep 60\n"
	if err := os.WriteFile(py, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"sbp", "program", "--src", "placement 2; x = input 6,4 S(0); y = box x B", "--engine", "torch", "--python", py, "--timeout", "60s"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalCLI$")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "STRIDELAB_SIGNAL_TEST_ARGS="+strings.Join(args, "\n"))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the job folder and both workers.
	deadline := time.Now().Add(30 * time.Second)
	var started []string
	for {
		jobs, _ := filepath.Glob(filepath.Join(tmp, "stridelab-torch-*"))
		started, _ = filepath.Glob(filepath.Join(pids, "*"))
		if len(jobs) == 1 && len(started) == 2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("after 30 s: job folders %v, workers %v; output:\n%s", jobs, started, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("the CLI exited 0 after SIGTERM; output:\n%s", out.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the CLI did not exit within 20 s of SIGTERM; output:\n%s", out.String())
	}
	t.Logf("after SIGTERM: %s", strings.TrimSpace(out.String()))
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("SIGTERM left %v in TMPDIR", left)
	}
	// The workers may take a moment to be reaped once their parent is gone.
	for _, f := range started {
		pid, err := strconv.Atoi(filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("worker pid %d outlived the CLI", pid)
				break
			}
		}
	}
}

// alive reports whether pid is a live process (not a zombie) still
// running the stand-in worker.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 && s[i+2] == 'Z' {
		return false
	}
	return strings.Contains(s, "(sleep)")
}
