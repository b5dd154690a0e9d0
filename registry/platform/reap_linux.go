//go:build linux

package platform

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

const (
	prSetDumpable       = 4
	prSetChildSubreaper = 36
)

// reap is the process between the host and a command's program when the command has no
// PID namespace of its own. It marks itself a child subreaper, so that whatever the
// program starts and leaves behind (a daemon, a child in a session of its own) is
// reparented to it rather than to init; starts the confining child with args (policy,
// working directory relative to the workspace, program, program argv), which restricts
// itself and executes the program, or, with an empty policy (an unconfined command), the
// program itself; waits for it, or on SIGTERM
// (the host's timeout) kills it; then kills every descendant still left and ends as the
// program ended. It stays unconfined itself: a confined program, in a Landlock domain of
// its own, cannot trace it, nor signal it where the kernel scopes signals (ABI 6). It
// returns only when its child could not be started.
func reap(args []string) error {
	// The confining child's parent-death signal fires when the thread that started it
	// ends: keep this one.
	runtime.LockOSThread()
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("platform: reap: child subreaper: %w", errno)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	attr := &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2, confineFD},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	name, argv := "/proc/self/exe", append([]string{confineArg0}, args...)
	if args[0] == "" { // unconfined: the program itself
		name, argv = args[2], args[3:]
		attr.Files = attr.Files[:3]
	}
	pid, err := syscall.ForkExec(name, argv, attr)
	if err != nil {
		return fmt.Errorf("platform: reap: start %s: %w", name, err)
	}
	// The confining child reports on its own copy, which its exec closes: the host reads
	// the end of the report once the program started.
	syscall.Close(confineFD)
	type exit struct {
		ws  syscall.WaitStatus
		err error
	}
	exited := make(chan exit, 1)
	go func() {
		var e exit
		for {
			if _, e.err = syscall.Wait4(pid, &e.ws, 0, nil); e.err != syscall.EINTR {
				break
			}
		}
		exited <- e
	}()
	var e exit
	select {
	case e = <-exited:
	case <-stop:
		syscall.Kill(pid, syscall.SIGKILL)
		e = <-exited
	}
	reapAll(time.Now().Add(reapGrace))
	if e.err == nil && e.ws.Exited() {
		os.Exit(e.ws.ExitStatus())
	}
	sig := syscall.SIGKILL
	if e.err == nil && e.ws.Signaled() {
		sig = e.ws.Signal()
	}
	dieBy(sig)
	return nil
}

// reapAll kills every child of the process (what the program left behind has been
// reparented here) and collects it, round after round, as each killed process's own
// children are reparented in turn, until none is left or the deadline passes. The
// children are unreaped, so their pids cannot have been reused by anyone else.
func reapAll(deadline time.Time) {
	for {
		for _, pid := range children() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return // ECHILD: no child left
			}
			if pid == 0 {
				break // some are still dying
			}
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// children returns the pids of the process's children: from each thread's
// /proc/self/task/*/children, or, where the kernel lacks those files
// (CONFIG_PROC_CHILDREN), from the parent pid of every process in /proc.
func children() []int {
	var pids []int
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, w := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(w)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if len(tasks) > 0 {
		return pids
	}
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			if f := bytes.Fields(b[i+1:]); len(f) > 1 && string(f[1]) == strconv.Itoa(self) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// dieBy ends the process by sig, so that the host sees the program's signal as its own:
// it restores the signal's default action (the Go runtime handles most signals) and sends
// it to itself. The process is made non-dumpable first, so a core-dumping signal leaves
// no core of it in the workspace. Should sig not end it, SIGKILL does.
func dieBy(sig syscall.Signal) {
	syscall.RawSyscall6(syscall.SYS_PRCTL, prSetDumpable, 0, 0, 0, 0, 0)
	if sig != syscall.SIGKILL {
		// A zeroed struct sigaction: SIG_DFL, no flags, an empty mask.
		var dfl [64]byte
		for _, setSize := range []uintptr{8, 16} { // sizeof(sigset_t): 16 on MIPS
			if _, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig),
				uintptr(unsafe.Pointer(&dfl)), 0, setSize, 0, 0); errno == 0 {
				syscall.Kill(os.Getpid(), sig)
				time.Sleep(100 * time.Millisecond)
				break
			} else if !errors.Is(errno, syscall.EINVAL) {
				break
			}
		}
	}
	for {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Second)
	}
}
