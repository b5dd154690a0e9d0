//go:build !unix

package platform

import (
	"os"
	"syscall"
)

// killTree kills the program itself: without process groups there is nothing wider.
func killTree(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// procAttr keeps exec's defaults.
func procAttr(int) *syscall.SysProcAttr { return nil }
