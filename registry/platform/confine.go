package platform

import (
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolhint/toolhint/schema"
)

// confineArg0 is the argv[0] by which a process knows it was started to confine a
// command: argv is [confineArg0, policy JSON, working directory relative to the
// workspace, program path, program argv...].
const confineArg0 = "toolhint-platform-confine"

// reapArg0 is the argv[0] by which a process knows it was started to reap a command run
// without a PID namespace of its own: it starts the confining child (the same argv, with
// confineArg0) as its own child and kills whatever the program leaves behind.
const reapArg0 = "toolhint-platform-reap"

// reapGrace bounds how long the subreaper (reapArg0) kills and collects what the program
// left behind.
const reapGrace = 2 * time.Second

// confineFD is the descriptor on which the confining child reports why it could not start
// the program; it is closed on exec, so an empty read means the program started.
const confineFD = 3

// mainCalled records that Main ran in this process, so that NewCommand knows re-executing
// the process's own binary reaches Main again rather than the host's program. It is the
// one piece of package state, and it only ever goes from false to true.
var mainCalled atomic.Bool

// Main must be called first in the host's main function, before anything else starts,
// when the host offers execute_command confined by the kernel:
//
//	func main() {
//		platform.Main()
//		...
//	}
//
// Commands are confined in a child: the host's own binary, started again with a marker
// argv[0], mounts the workspace noexec in a mount namespace of its own, restricts itself
// with Landlock and then executes the program, so the restriction holds for the program
// and everything it starts. Where the command has no PID namespace of its own, another
// such child stands between the host and the confining one: a child subreaper that kills
// what the program leaves behind. In such children, Main does that and never returns. In
// any other process it returns at once. Tests do the same in TestMain.
func Main() {
	mainCalled.Store(true)
	if len(os.Args) < 5 {
		return
	}
	var err error
	switch os.Args[0] {
	case confineArg0:
		var p policy
		if err = json.Unmarshal([]byte(os.Args[1]), &p); err == nil {
			err = confineAndExec(p, os.Args[2], os.Args[3], os.Args[4:])
		}
	case reapArg0:
		err = reap(os.Args[1:])
	default:
		return
	}
	// Only reached when the program did not start.
	report := os.NewFile(confineFD, "report")
	fmt.Fprintf(report, "%v", err)
	os.Exit(127)
}

// policy is what the confining child allows: read and write below Work, read below each
// of Read, read and execute each of Exec (files: the programs and their ELF
// interpreters), read and write each of Dev (device files such as /dev/null), and TCP
// only when Net is set. With NoExec, the child runs in a mount namespace of its own and
// mounts Work (and every mount below it) noexec, nosuid and nodev there first.
type policy struct {
	Work   string   `json:"work"`
	NoExec bool     `json:"noexec,omitempty"`
	HostNS uint64   `json:"host_ns,omitempty"` // the host's mount namespace, which NoExec never touches
	Read   []string `json:"read,omitempty"`
	Exec   []string `json:"exec,omitempty"`
	Dev    []string `json:"dev,omitempty"`
	Net    bool     `json:"net,omitempty"`
	Probe  bool     `json:"probe,omitempty"` // confine, then exit 0 without executing
}

// DefaultReadPaths returns the paths commands may read (not write) when
// CommandConfig.ReadPaths is nil: the shared libraries and data below /usr, and the few
// files below /etc that programs look up (dynamic linker cache, users and groups, time
// zone, name resolution, certificates, git's system config). The directories holding
// programs (/usr/bin, /bin, /sbin) are left out on purpose: the dynamic loader may be
// executed, and it runs any ELF file it can read, so only the allowed programs are made
// readable there, each by itself. Paths that do not exist are skipped.
func DefaultReadPaths() []string {
	return []string{
		"/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/usr/share",
		"/lib", "/lib64", "/lib32", "/libx32",
		"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
		"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/resolv.conf",
		"/etc/host.conf", "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates", "/etc/pki",
		"/etc/gitconfig", "/etc/mime.types", "/etc/magic",
	}
}

// devPaths returns the device files commands may read and write.
func devPaths() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}
}

// confine prepares the policy of c's confining child and proves it in a probe run, so
// that a host learns at construction, not at the first command, that confinement cannot
// work. It returns the sentence that tells the model what confines its commands.
func (c *Command) confine() (string, error) {
	abi := landlockABI()
	if abi < 1 {
		return "", fmt.Errorf("%w: the kernel offers no Landlock to confine commands (Linux 5.13 or later with landlock in its lsm= list); set Unconfined to run them without it", ErrInvalidConfig)
	}
	if !mainCalled.Load() {
		return "", fmt.Errorf("%w: commands are confined in a child started from this program, which must call platform.Main first in main; call it, or set Unconfined", ErrInvalidConfig)
	}
	p := policy{Work: c.dir, Net: c.cfg.Network, NoExec: !c.cfg.WorkspaceExec}
	reads := c.cfg.ReadPaths
	if reads == nil {
		reads = DefaultReadPaths()
	}
	for _, r := range reads {
		if !filepath.IsAbs(r) {
			return "", fmt.Errorf("%w: read path %q is not absolute", ErrInvalidConfig, schema.Excerpt(r))
		}
		if _, err := os.Stat(r); err == nil {
			p.Read = append(p.Read, r)
		}
	}
	for _, d := range devPaths() {
		if _, err := os.Stat(d); err == nil {
			p.Dev = append(p.Dev, d)
		}
	}
	for _, prog := range c.programs {
		interp, err := interpreter(prog)
		if err != nil {
			return "", err
		}
		p.Exec = append(p.Exec, prog)
		if interp != "" {
			p.Exec = append(p.Exec, interp)
		}
	}
	if p.NoExec {
		var err error
		if p.HostNS, err = mountNS(); err != nil {
			return "", fmt.Errorf("%w: commands run in a mount namespace of their own: %v; set WorkspaceExec to run them without it", ErrInvalidConfig, err)
		}
		work := c.dir
		if d, err := filepath.EvalSymlinks(work); err == nil {
			work = d
		}
		for _, x := range p.Exec {
			if within(work, x) {
				return "", fmt.Errorf("%w: program %q is in the workspace, which commands may write and which is mounted noexec for them; install it elsewhere, or set WorkspaceExec", ErrInvalidConfig, x)
			}
		}
	}
	slices.Sort(p.Exec)
	p.Exec = slices.Compact(p.Exec)
	probe := p
	probe.Probe = true
	b, err := json.Marshal(probe)
	if err != nil {
		return "", fmt.Errorf("%w: confinement policy: %v", ErrInvalidConfig, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.policy = string(b)
	var out capped
	out.max = 4 << 10
	report, err := c.exec(ctx, "/", c.dir, ".", nil, &out, &out)
	c.policy = ""
	if errors.Is(err, errNoNamespace) {
		return "", fmt.Errorf("%w: confined commands run in a mount namespace of their own, where the workspace is mounted noexec so that no program written there can run, and %v; set WorkspaceExec to run them without it", ErrInvalidConfig, err)
	}
	if report != "" || err != nil {
		msg := report
		if msg == "" {
			msg = fmt.Sprintf("%v %s", err, strings.TrimSpace(out.buf.String()))
		}
		hint := "set Unconfined to run commands without Landlock"
		if strings.Contains(msg, noexecErr) {
			hint = "set WorkspaceExec to run commands without the noexec mount"
		}
		return "", fmt.Errorf("%w: confining a command failed (%s); %s", ErrInvalidConfig, truncText(msg), hint)
	}
	if b, err = json.Marshal(p); err != nil {
		return "", fmt.Errorf("%w: confinement policy: %v", ErrInvalidConfig, err)
	}
	c.policy = string(b)
	s := "Commands are confined by the kernel (Landlock): they may write only below the workspace directory, read a few system directories, and run only the allowed programs"
	switch {
	case c.cfg.Network:
		s += "; the network is open."
	case abi >= 4:
		s += "; TCP connections are refused."
	default:
		s += "; this kernel cannot close the network to them."
	}
	if p.NoExec {
		s += " The workspace is mounted noexec for them: a program written there cannot run."
	} else {
		s += " The workspace is not mounted noexec for them."
	}
	return s, nil
}

// noexecErr begins the confining child's errors in mounting the workspace noexec.
const noexecErr = "platform: confine: noexec workspace: "

// within tells whether path is dir or below it, path's symlinks resolved where they
// exist (dir's are the caller's to resolve, once).
func within(dir, path string) bool {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// interpreter returns the ELF interpreter (the dynamic loader) prog names, "" for a
// static program. A script is refused: its interpreter would have to be executable too,
// and interpreters run anything.
func interpreter(prog string) (string, error) {
	f, err := elf.Open(prog)
	if err != nil {
		return "", fmt.Errorf("%w: program %q is not an ELF executable (confined commands run compiled programs only; set Unconfined for scripts): %v", ErrInvalidConfig, prog, err)
	}
	defer f.Close()
	for _, ph := range f.Progs {
		if ph.Type != elf.PT_INTERP {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(ph.Open(), 4<<10))
		if err != nil {
			return "", fmt.Errorf("%w: program %q: reading its interpreter: %v", ErrInvalidConfig, prog, err)
		}
		interp := strings.TrimRight(string(b), "\x00")
		if !filepath.IsAbs(interp) {
			return "", fmt.Errorf("%w: program %q names the interpreter %q", ErrInvalidConfig, prog, schema.Excerpt(interp))
		}
		return interp, nil
	}
	return "", nil
}
