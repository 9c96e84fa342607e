//go:build unix

package torch

import (
	"os"
	"syscall"
)

// killGroup kills the process and its process group (the worker and
// anything it started).
func killGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		p.Kill()
	}
}
