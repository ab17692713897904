//go:build unix && !linux

package testutil

import "syscall"

// serverProcAttr puts the server in its own process group so cleanup can kill
// the group.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
