//go:build unix

package platform

import "syscall"

// killTree kills the process group (and session) that pid leads: each command runs in a
// session of its own, so this reaches whatever it started that stayed in it.
func killTree(pid int) {
	syscall.Kill(-pid, syscall.SIGKILL)
}
