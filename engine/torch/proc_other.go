//go:build !unix

package torch

import (
	"os"
	"syscall"
)

const loopback = ""

// sysProcAttr is the default: no process groups here.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the process.
func killGroup(p *os.Process) { p.Kill() }
