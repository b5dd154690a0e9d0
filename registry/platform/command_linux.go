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

// procAttr starts a command in a session (and process group) of its own and in the
// namespaces of the mode ns: as the first process of a new PID namespace (nsPID), the
// kernel kills everything still in it when the program ends, even what left the session
// with setsid; in a mount namespace (nsMount), the confining child mounts the workspace
// noexec where the host cannot see it; a user namespace (nsUser) maps the host's uid and
// gid to themselves, and lends the confining child CAP_SYS_ADMIN in it (as an ambient
// capability, so that it survives the exec of a user other than root) for its mounts; the
// child drops it before it executes the program.
func procAttr(ns int) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true}
	if ns&nsPID != 0 {
		a.Cloneflags |= syscall.CLONE_NEWPID
	}
	if ns&nsMount != 0 {
		a.Cloneflags |= syscall.CLONE_NEWNS
	}
	if ns&nsUser != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		a.AmbientCaps = []uintptr{capSysAdmin}
	}
	return a
}

// capSysAdmin is CAP_SYS_ADMIN.
const capSysAdmin = 21
