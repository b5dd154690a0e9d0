//go:build linux

package platform

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Flags statfs reports of a mount (ST_*): the ones a remount must keep.
const (
	stRdonly     = 0x1
	stNosuid     = 0x2
	stNodev      = 0x4
	stNoexec     = 0x8
	stNoatime    = 0x400
	stNodiratime = 0x800
	stRelatime   = 0x1000
)

// mountNS returns the inode of the calling process's mount namespace.
func mountNS() (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/mnt", &st); err != nil {
		return 0, fmt.Errorf("mount namespace: %w", err)
	}
	return st.Ino, nil
}

// noexecWorkspace runs in the confining child, in a mount namespace of its own that the
// host made at clone (hostNS names the host's, which it refuses to touch). It makes every
// mount in its namespace private, so that nothing it mounts propagates to the host's;
// bind-mounts work onto itself, with the mounts below it; remounts each of those noexec,
// nosuid and nodev (keeping the flags the host's mount has: read-only, atime); and moves
// the working directory, which the host opened in its own namespace, to the same
// directory (rel below work) seen through the new mounts. The kernel then refuses to
// execute, or to map as code, any file in the workspace: the dynamic loader cannot run a
// program written there. On any failure the child ends before the program starts, and
// its namespace, with what it mounted, ends with it.
func noexecWorkspace(work, rel string, hostNS uint64) error {
	fail := func(format string, a ...any) error { return fmt.Errorf(noexecErr+format, a...) }
	ns, err := mountNS()
	if err != nil {
		return fail("%v", err)
	}
	if ns == hostNS {
		return fail("the command is not in a mount namespace of its own")
	}
	if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fail("make the mounts private: %w", err)
	}
	real, err := filepath.EvalSymlinks(work)
	if err != nil {
		return fail("%w", err)
	}
	if err := syscall.Mount(real, real, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fail("bind %s: %w", real, err)
	}
	points, err := mountsBelow(real)
	if err != nil {
		return fail("%w", err)
	}
	for _, m := range points {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(m, &fs); err != nil {
			return fail("statfs %s: %w", m, err)
		}
		flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_NOEXEC | syscall.MS_NOSUID | syscall.MS_NODEV)
		// In a user namespace the host's flags are locked: a remount must keep them.
		for _, f := range [][2]uintptr{{stRdonly, syscall.MS_RDONLY}, {stNoatime, syscall.MS_NOATIME},
			{stNodiratime, syscall.MS_NODIRATIME}, {stRelatime, syscall.MS_RELATIME}} {
			if uintptr(fs.Flags)&f[0] != 0 {
				flags |= f[1]
			}
		}
		if fs.Flags&(stNoatime|stRelatime) == 0 {
			flags |= syscall.MS_STRICTATIME
		}
		if err := syscall.Mount("none", m, "", flags, ""); err != nil {
			return fail("remount %s noexec: %w", m, err)
		}
		if err := syscall.Statfs(m, &fs); err != nil || fs.Flags&(stNoexec|stNosuid|stNodev) != stNoexec|stNosuid|stNodev {
			return fail("%s is not noexec after its remount (%v)", m, err)
		}
	}
	// The working directory: the same directory as the host opened, and noexec.
	fd, err := syscall.Open(filepath.Join(real, rel), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fail("working directory: %w", err)
	}
	defer syscall.Close(fd)
	var was, now syscall.Stat_t
	var fs syscall.Statfs_t
	if err := syscall.Stat(".", &was); err != nil {
		return fail("working directory: %w", err)
	}
	if err := syscall.Fstat(fd, &now); err != nil {
		return fail("working directory: %w", err)
	}
	if was.Dev != now.Dev || was.Ino != now.Ino {
		return fail("the working directory %s changed while the command started", rel)
	}
	if err := syscall.Fstatfs(fd, &fs); err != nil || fs.Flags&stNoexec == 0 {
		return fail("the working directory %s is not on a noexec mount (%v)", rel, err)
	}
	if err := syscall.Fchdir(fd); err != nil {
		return fail("working directory: %w", err)
	}
	return nil
}

// mountsBelow returns the mount points at dir and below it in the calling process's
// mount namespace, parents before children, each once.
func mountsBelow(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var points []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root mount-point options ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		m := unescapeMount(fields[4])
		if (m == dir || strings.HasPrefix(m, dir+"/") || dir == "/") && !seen[m] {
			seen[m] = true
			points = append(points, m)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mountinfo: %w", err)
	}
	if !seen[dir] {
		return nil, fmt.Errorf("mountinfo lists no mount at %s", dir)
	}
	// Shorter paths first: a parent is remounted before what is mounted below it.
	slices.SortStableFunc(points, func(a, b string) int { return len(a) - len(b) })
	return points, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, …).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
