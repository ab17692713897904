package testutil

import "syscall"

// serverProcAttr puts the server in its own process group (so cleanup can
// kill the group) and asks the kernel to kill it if the test process dies
// first.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
