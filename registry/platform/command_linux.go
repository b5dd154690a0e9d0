//go:build linux

package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// workDir returns the directory a command starts in. On Linux it opens rel through the
// root (so no symlink can lead it out) and names the open directory by its
// /proc/self/fd entry: the child changes into it before exec, so a path component swapped
// for a symlink after the check cannot move the command out. done closes it.
func workDir(root *os.Root, abs, rel string) (dir string, done func(), err error) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return filepath.Join(abs, rel), func() {}, nil
	}
	d, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", nil, refuse("working directory: %v", fileErr("dir", rel, err))
	}
	return fmt.Sprintf("/proc/self/fd/%d", d.Fd()), func() { d.Close() }, nil
}

// subreapers tells that commands without a PID namespace can run below a child subreaper
// (reapArg0).
const subreapers = true

// procAttr starts a command in a session (and process group) of its own and, with pidns,
// as the first process of a new PID namespace: when it ends, the kernel kills everything
// still in the namespace, even what left the session with setsid.
func procAttr(pidns bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true}
	if pidns {
		a.Cloneflags = syscall.CLONE_NEWPID
	}
	return a
}
