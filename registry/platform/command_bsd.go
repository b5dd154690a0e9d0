//go:build unix && !linux

package platform

import "syscall"

// procAttr starts a command in a session (and process group) of its own.
func procAttr(int) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
