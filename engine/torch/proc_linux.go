package torch

import "syscall"

// loopback is the interface gloo is told to use (GLOO_SOCKET_IFNAME): the
// workers all run on this machine.
const loopback = "lo"

// sysProcAttr puts a worker in a process group of its own, and has the
// kernel kill it if the process that started it dies (Pdeathsig).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
