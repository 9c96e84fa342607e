//go:build unix && !linux

package torch

import "syscall"

// loopback is left to gloo: the loopback's name varies (lo0 on BSD and
// macOS).
const loopback = ""

// sysProcAttr puts a worker in a process group of its own.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
