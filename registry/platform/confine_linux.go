//go:build linux

package platform

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Landlock's system calls have the same numbers on every Linux architecture. The package
// calls them itself (through syscall, as golang.org/x/sys/unix would) rather than through
// a Landlock library: the restriction is needed in one thread only, the one that executes
// the program right after, and the library that applies it to every thread of a process
// brings a cgo wrapper of pthread_create into every host binary.
const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1
	landlockRulePathBeneath      = 1

	llExecute    = 1 << 0
	llWriteFile  = 1 << 1
	llReadFile   = 1 << 2
	llReadDir    = 1 << 3
	llRemoveDir  = 1 << 4
	llRemoveFile = 1 << 5
	llMakeChar   = 1 << 6
	llMakeDir    = 1 << 7
	llMakeReg    = 1 << 8
	llMakeSock   = 1 << 9
	llMakeFifo   = 1 << 10
	llMakeBlock  = 1 << 11
	llMakeSym    = 1 << 12
	llRefer      = 1 << 13 // ABI 2
	llTruncate   = 1 << 14 // ABI 3
	llIoctlDev   = 1 << 15 // ABI 5

	llNetBindTCP    = 1 << 0 // ABI 4
	llNetConnectTCP = 1 << 1 // ABI 4

	llScopeAbstractUnix = 1 << 0 // ABI 6
	llScopeSignal       = 1 << 1 // ABI 6

	prSetNoNewPrivs      = 38
	prCapAmbient         = 47
	prCapAmbientClearAll = 4
	oPath                = 0x200000 // O_PATH on every architecture Go supports; package syscall lacks it
)

type llRulesetAttr struct {
	fs, net, scoped uint64
}

// llPathBeneath mirrors the kernel's packed struct: the kernel reads its first 12 bytes.
type llPathBeneath struct {
	allowed uint64
	fd      int32
	_       int32
}

// landlockABI returns the Landlock ABI version the kernel offers, 0 when it has none (or
// it is disabled at boot).
func landlockABI() int {
	v, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// handledFS returns the file-system rights a ruleset of the given ABI handles: every one
// it knows, so that what is not granted is refused.
func handledFS(abi int) uint64 {
	h := uint64(llExecute | llWriteFile | llReadFile | llReadDir | llRemoveDir | llRemoveFile |
		llMakeChar | llMakeDir | llMakeReg | llMakeSock | llMakeFifo | llMakeBlock | llMakeSym)
	if abi >= 2 {
		h |= llRefer
	}
	if abi >= 3 {
		h |= llTruncate
	}
	if abi >= 5 {
		h |= llIoctlDev
	}
	return h
}

const fileRights = llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev

// confineAndExec restricts the calling thread with Landlock according to p and executes
// prog with argv there (the environment passes on unchanged), in rel below the
// workspace. With p.NoExec it first mounts the workspace noexec in its own mount
// namespace (noexecWorkspace). It returns only on failure.
func confineAndExec(p policy, rel, prog string, argv []string) error {
	// Landlock and no_new_privs bind the thread that sets them; execve keeps that thread's
	// credentials and ends the others.
	runtime.LockOSThread()
	syscall.CloseOnExec(confineFD)
	abi := landlockABI()
	if abi < 1 {
		return errors.New("platform: confine: the kernel offers no Landlock")
	}
	if p.NoExec {
		if err := noexecWorkspace(p.Work, rel, p.HostNS); err != nil {
			return err
		}
	}
	handled := handledFS(abi)
	attr := llRulesetAttr{fs: handled}
	if abi >= 4 && !p.Net {
		attr.net = llNetBindTCP | llNetConnectTCP // no rules: every TCP bind and connect refused
	}
	if abi >= 6 {
		attr.scoped = llScopeAbstractUnix | llScopeSignal
	}
	size := unsafe.Sizeof(attr)
	if abi < 4 {
		size = 8 // older kernels know the fs field only
	} else if abi < 6 {
		size = 16
	}
	rfd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("platform: confine: create ruleset: %w", errno)
	}
	ruleset := int(rfd)
	dirRead := uint64(llReadFile | llReadDir)
	work := handled &^ llExecute
	if err := addPath(ruleset, p.Work, work, handled, true); err != nil {
		return err
	}
	for _, r := range p.Read {
		if err := addPath(ruleset, r, dirRead, handled, false); err != nil {
			return err
		}
	}
	for _, x := range p.Exec {
		if err := addPath(ruleset, x, llExecute|llReadFile, handled, true); err != nil {
			return err
		}
	}
	for _, d := range p.Dev {
		if err := addPath(ruleset, d, llReadFile|llWriteFile|llTruncate, handled, false); err != nil {
			return err
		}
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("platform: confine: no_new_privs: %w", errno)
	}
	if _, _, errno := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("platform: confine: restrict: %w", errno)
	}
	syscall.Close(ruleset)
	// A user namespace lent CAP_SYS_ADMIN for the mounts: the program does not keep it.
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("platform: confine: drop ambient capabilities: %w", errno)
	}
	if p.Probe {
		os.Exit(0)
	}
	err := syscall.Exec(prog, argv, os.Environ())
	return fmt.Errorf("platform: confine: exec %s: %w", prog, err)
}

// addPath grants rights below path (or on the file path, with the rights a file can
// have). A path that does not exist is skipped unless required.
func addPath(ruleset int, path string, rights, handled uint64, required bool) error {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		if !required && errors.Is(err, syscall.ENOENT) {
			return nil
		}
		return fmt.Errorf("platform: confine: open %s: %w", path, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("platform: confine: stat %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		rights &= fileRights
	}
	rule := llPathBeneath{allowed: rights & handled, fd: int32(fd)}
	if _, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("platform: confine: rule for %s: %w", path, errno)
	}
	return nil
}
