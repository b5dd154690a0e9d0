package platform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ToolExecuteCommand is the name of the command tool.
const ToolExecuteCommand = "execute_command"

// Defaults of CommandConfig.
const (
	DefaultCommandTimeout = 30 * time.Second
	DefaultMaxOutputBytes = 64 << 10
)

// Bounds on what the model may send.
const (
	maxArgs     = 256
	maxArgBytes = 64 << 10
)

// launchers run other programs (or are shells): listing one would turn the allow-list into
// "anything", so NewCommand refuses them unless CommandConfig.AllowLaunchers is set.
var launchers = []string{
	"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "csh", "tcsh", "fish", "busybox", "toybox",
	"env", "sudo", "su", "doas", "pkexec", "runuser", "xargs", "nohup", "setsid", "chroot", "nice",
	"ionice", "timeout", "stdbuf", "unbuffer", "script", "watch", "flock", "strace", "ltrace", "gdb",
	"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua",
	"tclsh", "wish", "pwsh", "powershell", "osascript", "expect", "ssh", "awk", "gawk", "mawk", "nawk",
	// Programs that start a program they are given, or offer a "!command" escape.
	"rbash", "taskset", "setpriv", "unshare", "chrt", "prlimit", "nsenter", "sg", "newgrp", "numactl",
	"cgexec", "capsh", "bwrap", "firejail", "systemd-run", "run-parts", "start-stop-daemon", "runcon",
	"setarch", "linux32", "linux64", "time", "parallel", "at", "batch", "schedtool", "chpst", "setcap",
	"ed", "red", "ex", "vi", "vim", "nvim", "view", "rview", "emacs", "nano", "less", "more", "most",
	"man", "ld.so", "ld-linux", "ld-linux-x86-64.so", "ld-linux-aarch64.so", "ld-musl-x86_64.so",
}

// DefaultBlockedPatterns returns the argument patterns execute_command refuses when the host
// gives none: recursive deletion, file-system and disk writers, fork bombs, find's
// -exec family and the like. Each is a regular expression matched against every argument
// and against the whole command line (program and arguments joined by spaces).
func DefaultBlockedPatterns() []string {
	return []string{
		`(^|\s)rm\s(.*\s)?(-[a-zA-Z]*[rR]|--recursive)`,
		`--no-preserve-root`,
		`(^|\s)(mkfs(\.\w+)?|fdisk|sfdisk|parted|wipefs|shred)(\s|$)`,
		`(^|\s)dd\s.*\bof=`,
		`^of=/dev/`,
		`:\(\)\s*\{`,
		`^-(exec|execdir|ok|okdir)$`,
		`(^|\s)(shutdown|reboot|halt|poweroff|init\s+[06])(\s|$)`,
		`(^|\s)chmod\s+(-R\s+)?[0-7]*777`,
		`(^|\s)chown\s+-R\s`,
		`/dev/(sd|hd|nvme|vd|xvd|mmcblk)`,
		`(^|\s)(curl|wget)\s.*\|\s*(sh|bash)`,
		`^--upload-pack|^--receive-pack|^-c\s*core\.|^core\.(sshCommand|pager|editor|fsmonitor|hooksPath)=`,
	}
}

// CommandConfig configures NewCommand. It is copied by the constructor; changing it
// afterwards has no effect.
type CommandConfig struct {
	// Dir is the directory commands run in (the model may pick a directory below it).
	// Required: it must exist.
	Dir string
	// Programs are the absolute paths of the programs that may run, e.g. "/usr/bin/ls".
	// The model names one by its base name ("ls") or its full path. Required.
	Programs []string
	// AllowLaunchers lets Programs hold shells, interpreters and programs that run other
	// programs (sh, bash, env, xargs, sudo, python, awk, …), which NewCommand otherwise
	// refuses: with one of them allowed, the allow-list no longer bounds what runs.
	// Optional.
	AllowLaunchers bool
	// Blocked are regular expressions (RE2 syntax, matched without regard to case)
	// matched against every argument and against the whole command line; a match refuses
	// the call. Optional: nil uses DefaultBlockedPatterns and the checks of what known
	// programs read in their arguments (git's command-running keys, tar's commands, sed's
	// e command, make's --eval, curl's file: URLs); an empty non-nil slice blocks nothing
	// and turns those checks off.
	Blocked []string
	// AllowOutsidePaths lets arguments name absolute paths or climb with "..". Optional:
	// by default such arguments, and relative ones that resolve out of the working
	// directory through a symlink, are refused.
	AllowOutsidePaths bool
	// Env is the whole environment of every command ("KEY=value"); the host process's own
	// environment is never passed on. Optional. Defaults to PATH=/usr/bin:/bin,
	// HOME set to Dir, LANG=C.UTF-8.
	Env []string
	// Timeout bounds one run; the command and its children are killed when it expires.
	// Optional. Defaults to DefaultCommandTimeout.
	Timeout time.Duration
	// MaxOutputBytes caps what is kept of stdout and of stderr each; the rest is discarded
	// and the result flagged truncated. Optional. Defaults to DefaultMaxOutputBytes.
	MaxOutputBytes int
	// Unconfined runs commands without the kernel's confinement: no Landlock, so an
	// allowed program (git with an alias, tar with a checkpoint action, …) can reach
	// whatever the host process can. Optional: by default NewCommand fails where Landlock
	// is missing (a kernel before 5.13, or one without it in its lsm= list, or another
	// operating system) or where the host did not call Main first in main. The tool's
	// description tells the model which it got.
	Unconfined bool
	// Network lets confined commands open and accept TCP connections. Optional: by default
	// Landlock refuses every TCP bind and connect where the kernel has network rules
	// (Landlock ABI 4, Linux 6.7); on older kernels the network stays open and the tool's
	// description says so. UDP is never confined by Landlock.
	Network bool
	// ReadPaths are the files and directories confined commands may read besides the
	// workspace and the programs themselves. Optional: nil uses DefaultReadPaths; an
	// empty non-nil slice allows nothing more. The dynamic loader maps any file it can
	// read as code, so list no directory the model can write through another tool.
	ReadPaths []string
	// WorkspaceExec runs confined commands without a mount namespace of their own, in
	// which the workspace is mounted noexec. Landlock refuses to execute a file in the
	// workspace, but it governs execve only: without the noexec mount, the dynamic loader
	// (which every allowed program needs, and which make or git may start) can still map
	// a program the model wrote into the workspace and run it. Optional: by default
	// NewCommand fails where the host can create no mount namespace (one needs
	// CAP_SYS_ADMIN or unprivileged user namespaces). The tool's description tells the
	// model which it got. Unconfined commands never get the noexec mount.
	WorkspaceExec bool
}

// Command is the execute_command tool. It keeps its directory open (an os.Root) until
// Close. It is safe for concurrent use.
type Command struct {
	cfg      CommandConfig
	dir      string // absolute
	root     *os.Root
	programs map[string]string // name the model may use -> absolute path
	names    []string          // base names, sorted, for the description
	blocked  []*regexp.Regexp
	spec     registry.ToolSpec
	// policy is the confining child's policy as JSON; "" runs commands unconfined.
	policy string
	// modes are the sets of namespaces a command may start in, best first (nsModes);
	// mode is the index of the one to try next. It moves on once starting a command in
	// it failed (the host may not create those namespaces): later commands start in the
	// next. Past the end, confined commands cannot run.
	modes []int
	mode  atomic.Int32
}

// Namespaces a command may start in (each a bit of a mode).
const (
	nsPID   = 1 << iota // a PID namespace: else the program runs below a subreaper
	nsMount             // a mount namespace, in which the workspace is mounted noexec
	nsUser              // a user namespace mapping the host's uid and gid to themselves
)

// errNoNamespace is the error of a command that cannot start in any of its modes: a
// confined command that needs a mount namespace where the host may not create one.
var errNoNamespace = errors.New("this host may not create a mount namespace (CAP_SYS_ADMIN, or user namespaces for everyone)")

// nsModes returns the namespace modes to try, best first: with mount (a confined command
// whose workspace is mounted noexec), a mount namespace, with a PID namespace or without,
// made by the host or in a user namespace of its own; otherwise a PID namespace or none.
func nsModes(mount bool) []int {
	if mount {
		return []int{nsPID | nsMount, nsUser | nsPID | nsMount, nsMount, nsUser | nsMount}
	}
	return []int{nsPID, 0}
}

// skipModes moves c's next mode past those that have any of the namespaces in ns, or
// with only, past those that lack them.
func (c *Command) skipModes(ns int, only bool) {
	for i := int(c.mode.Load()); i < len(c.modes); i++ {
		if (c.modes[i]&ns != 0) == only {
			c.mode.Store(int32(i))
			return
		}
	}
	c.mode.Store(int32(len(c.modes)))
}

// NewCommand checks cfg and returns the command tool. It fails with ErrInvalidConfig when
// Dir is not a directory, a program is not an absolute path to an executable file, a
// launcher is listed without AllowLaunchers, or a blocked pattern does not compile; and,
// for confined commands, when the kernel lacks Landlock, the host did not call Main, or
// (without WorkspaceExec) the host can create no mount namespace or a program lies in
// the workspace. The caller must call Close.
func NewCommand(cfg CommandConfig) (*Command, error) {
	return newCommand(cfg, false)
}

// newCommand is NewCommand; with noNS, commands start in no namespace, as on a host that
// may create none.
func newCommand(cfg CommandConfig, noNS bool) (*Command, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: commands need a directory", ErrInvalidConfig)
	}
	if len(cfg.Programs) == 0 {
		return nil, fmt.Errorf("%w: commands need at least one allowed program", ErrInvalidConfig)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("%w: command directory: %v", ErrInvalidConfig, err)
	}
	c := &Command{cfg: cfg, dir: dir, programs: map[string]string{}}
	for _, p := range cfg.Programs {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%w: program %q is not an absolute path", ErrInvalidConfig, p)
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return nil, fmt.Errorf("%w: program %q is not an executable file", ErrInvalidConfig, p)
		}
		base := filepath.Base(p)
		if !cfg.AllowLaunchers && isLauncher(base) {
			return nil, fmt.Errorf("%w: program %q runs other programs; set AllowLaunchers to allow it", ErrInvalidConfig, p)
		}
		if prev, dup := c.programs[base]; dup && prev != p {
			return nil, fmt.Errorf("%w: programs %q and %q share the name %q", ErrInvalidConfig, prev, p, base)
		}
		c.programs[base], c.programs[p] = p, p
		c.names = append(c.names, base)
	}
	slices.Sort(c.names)
	c.names = slices.Compact(c.names)
	patterns := cfg.Blocked
	if patterns == nil {
		patterns = DefaultBlockedPatterns()
	}
	for _, p := range patterns {
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			return nil, fmt.Errorf("%w: blocked pattern %q: %v", ErrInvalidConfig, p, err)
		}
		c.blocked = append(c.blocked, re)
	}
	if cfg.Env == nil {
		cfg.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8"}
	}
	c.cfg.Env = slices.Clone(cfg.Env)
	if c.cfg.Timeout <= 0 {
		c.cfg.Timeout = DefaultCommandTimeout
	}
	if c.cfg.MaxOutputBytes <= 0 {
		c.cfg.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if c.root, err = os.OpenRoot(dir); err != nil {
		return nil, fmt.Errorf("%w: command directory: %v", ErrInvalidConfig, err)
	}
	c.modes = nsModes(!cfg.Unconfined && !cfg.WorkspaceExec)
	if noNS {
		c.skipModes(nsPID|nsMount|nsUser, false)
	}
	confinement := "Commands are NOT confined by the kernel: keep to the workspace directory."
	if !cfg.Unconfined {
		if confinement, err = c.confine(); err != nil {
			c.root.Close()
			return nil, err
		}
	}
	c.spec, err = registry.Typed(registry.ToolSpec{
		Name:     ToolExecuteCommand,
		Category: registry.CategoryShell,
		Security: registry.SecurityHigh,
		// The executor's own timeout must not cut the run before ours reports it.
		Timeout: c.cfg.Timeout + 5*time.Second,
		Description: "Run a program with arguments in the workspace directory (no shell: pipes, redirections and $(...) are not interpreted). " +
			"Allowed programs: " + strings.Join(c.names, ", ") + ". " + confinement + " Returns the exit code, stdout and stderr.",
	}, c.run)
	if err != nil {
		c.root.Close()
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	return c, nil
}

func isLauncher(base string) bool {
	b := strings.ToLower(base)
	for _, l := range launchers {
		// python3.12, perl5.36, node18 and the like are the same programs.
		if b == l || (strings.HasPrefix(b, l) && strings.Trim(b[len(l):], "0123456789.-") == "") {
			return true
		}
	}
	return false
}

// Tool returns execute_command, in registry.CategoryShell with SecurityHigh: the executor
// runs it only when the host's confirmation hook allows. A host that trusts its allow-list
// may lower Security on its copy before registering it.
func (c *Command) Tool() registry.ToolSpec { return c.spec }

// Close closes the command directory; the tool fails afterwards. Close is idempotent.
func (c *Command) Close() error {
	if err := c.root.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("platform: close command directory: %w", err)
	}
	return nil
}

type commandIn struct {
	Command string   `json:"command" jsonschema_description:"The program to run: one of the allowed programs."`
	Args    []string `json:"args,omitempty" jsonschema_description:"Its arguments, one per item. Nothing is interpreted by a shell."`
	Dir     string   `json:"dir,omitempty" jsonschema_description:"Working directory relative to the workspace directory (default: the workspace itself)."`
}

// CommandResult is what execute_command returns. A program that ran and failed is a
// result with its exit code, not an error.
type CommandResult struct {
	ExitCode  int    `json:"exit_code"` // -1 when killed at the timeout
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated,omitempty"`
	TimedOut  bool   `json:"timed_out,omitempty"`
}

func refuse(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCommandRefused, fmt.Sprintf(format, a...))
}

// check applies the policy to one call and returns the program's path and the working
// directory, relative to c.dir.
func (c *Command) check(in commandIn) (string, string, error) {
	prog, ok := c.programs[in.Command]
	if !ok {
		return "", "", refuse("%q is not an allowed program; allowed: %s", schema.Excerpt(in.Command), strings.Join(c.names, ", "))
	}
	if len(in.Args) > maxArgs {
		return "", "", refuse("more than %d arguments", maxArgs)
	}
	total := 0
	for _, a := range in.Args {
		total += len(a)
		if strings.IndexByte(a, 0) >= 0 || !utf8.ValidString(a) {
			return "", "", refuse("an argument holds a NUL byte or invalid UTF-8")
		}
	}
	if total > maxArgBytes {
		return "", "", refuse("the arguments are longer than %d bytes", maxArgBytes)
	}
	line := strings.Join(append([]string{filepath.Base(prog)}, in.Args...), " ")
	for _, re := range c.blocked {
		if re.MatchString(line) {
			return "", "", refuse("the command line matches the blocked pattern %q", re.String())
		}
		for _, a := range in.Args {
			if re.MatchString(a) {
				return "", "", refuse("the argument %q matches the blocked pattern %q", schema.Excerpt(a), re.String())
			}
		}
	}
	if c.cfg.Blocked == nil {
		if err := syntaxCheck(filepath.Base(prog), in.Args); err != nil {
			return "", "", err
		}
	}
	dir, err := localPath(in.Dir, true)
	if err != nil {
		return "", "", refuse("working directory: %v", err)
	}
	fi, err := c.root.Stat(dir)
	if err != nil {
		return "", "", refuse("working directory: %v", fileErr("dir", dir, err))
	}
	if !fi.IsDir() {
		return "", "", refuse("working directory %q is not a directory", schema.Excerpt(dir))
	}
	if !c.cfg.AllowOutsidePaths {
		for _, a := range in.Args {
			if err := c.checkPathArg(dir, a); err != nil {
				return "", "", err
			}
		}
	}
	return prog, dir, nil
}

// checkPathArg refuses an argument that names a path outside the directory: the
// argument itself, the value of --flag=value or key=value (dd's if=), the value attached
// to a short option (-C/dir, -o../x), or the part after an unknown scheme's "://" (cat
// reads "ab://../x" as a path); a file: URL; or an existing path that resolves out of
// the directory through a symlink.
func (c *Command) checkPathArg(dir, arg string) error {
	v := arg
	if strings.HasPrefix(v, "-") {
		if !strings.HasPrefix(v, "--") {
			for k := 2; k < len(v); k++ {
				if rest := v[k:]; strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "~") || rest == ".." || strings.HasPrefix(rest, "../") {
					return refuse("the argument %q names a path outside the workspace directory", schema.Excerpt(arg))
				}
			}
		}
		_, after, ok := strings.Cut(v, "=")
		if !ok {
			return nil
		}
		v = after
	} else if _, after, ok := strings.Cut(v, "="); ok && outsidePath(after) {
		return refuse("the argument %q names a path outside the workspace directory", schema.Excerpt(arg))
	}
	if scheme, _, ok := strings.Cut(v, "://"); ok {
		if strings.EqualFold(scheme, "file") {
			return refuse("the argument %q is a file: URL; name files by their path in the workspace", schema.Excerpt(arg))
		}
		if networkScheme(scheme) {
			return nil
		}
	}
	if v == "" {
		return nil
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") {
		return refuse("the argument %q names a path outside the workspace directory", schema.Excerpt(arg))
	}
	for _, part := range strings.Split(v, "/") {
		if part == ".." {
			return refuse("the argument %q climbs out with \"..\"", schema.Excerpt(arg))
		}
	}
	_, err := c.root.Stat(path.Join(dir, v))
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ENAMETOOLONG):
		return nil // inside, or not a path at all: a plain word
	}
	return refuse("the argument %q leads out of the workspace directory", schema.Excerpt(arg))
}

func (c *Command) run(ctx context.Context, in commandIn) (CommandResult, error) {
	prog, dir, err := c.check(in)
	if err != nil {
		return CommandResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return CommandResult{}, fmt.Errorf("platform: %s %s: %w", ToolExecuteCommand, in.Command, err)
	}
	rctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	wd, done, err := workDir(c.root, c.dir, dir)
	if err != nil {
		return CommandResult{}, err
	}
	defer done()
	stdout := &capped{max: c.cfg.MaxOutputBytes}
	stderr := &capped{max: c.cfg.MaxOutputBytes}
	report, err := c.exec(rctx, prog, wd, dir, in.Args, stdout, stderr)
	res := CommandResult{
		Stdout:    strings.ToValidUTF8(stdout.buf.String(), "\uFFFD"),
		Stderr:    strings.ToValidUTF8(stderr.buf.String(), "\uFFFD"),
		Truncated: stdout.cut || stderr.cut,
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return CommandResult{}, fmt.Errorf("platform: %s %s: %w", ToolExecuteCommand, in.Command, ctx.Err())
	case rctx.Err() != nil:
		res.ExitCode, res.TimedOut = -1, true
	case report != "":
		return CommandResult{}, fmt.Errorf("platform: %s %s did not start: %s", ToolExecuteCommand, in.Command, truncText(report))
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	default:
		return CommandResult{}, fmt.Errorf("platform: %s %s: %w", ToolExecuteCommand, in.Command, err)
	}
	return res, nil
}

// exec runs prog with args in the directory wd (rel below the workspace), confined when
// the tool is, writing its output to stdout and stderr, and returns what the confining
// child reported when the program could not start. The program runs in a session of its
// own and, where the host may make one, a PID namespace of its own, whose every process
// the kernel kills when the program ends; the session is killed at the deadline. Without
// a PID namespace, a command runs below a child subreaper (reapArg0) instead where the
// host called Main, which kills what the program left behind, even what left the session,
// when the program ends or on the SIGTERM sent at the deadline; what is left of the
// session is killed after it. A confined command whose workspace is mounted noexec also
// runs in a mount namespace of its own (and a user namespace where the host may not make
// one otherwise); exec fails with errNoNamespace where none can be made.
func (c *Command) exec(ctx context.Context, prog, wd, rel string, args []string, stdout, stderr io.Writer) (string, error) {
	argv := append([]string{filepath.Base(prog)}, args...) // what the program calls itself
	outR, outW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return "", err
	}
	defer errR.Close()
	repR, repW, err := os.Pipe()
	if err != nil {
		outW.Close()
		errW.Close()
		return "", err
	}
	defer repR.Close()
	var cmd *exec.Cmd
	for {
		i := c.mode.Load()
		if int(i) >= len(c.modes) {
			err = errNoNamespace
			break
		}
		ns := c.modes[i]
		// Without Main there is no subreaper: unconfined commands then run directly.
		reaper := ns&nsPID == 0 && subreapers && mainCalled.Load()
		name, args := prog, argv
		switch {
		case reaper:
			name, args = "/proc/self/exe", append([]string{reapArg0, c.policy, rel, prog}, argv...)
		case c.policy != "":
			name, args = "/proc/self/exe", append([]string{confineArg0, c.policy, rel, prog}, argv...)
		}
		cmd = exec.CommandContext(ctx, name)
		cmd.Args = args
		cmd.Dir = wd
		cmd.Env = slices.Clone(c.cfg.Env)
		if cmd.Env == nil {
			cmd.Env = []string{} // nil would pass the host's environment on
		}
		// Files, not writers: exec then starts no copying of its own, and Wait returns
		// when the program exits even if something it started still holds the pipes.
		cmd.Stdout, cmd.Stderr = outW, errW
		if c.policy != "" || reaper {
			cmd.ExtraFiles = []*os.File{repW} // confineFD
		}
		cmd.SysProcAttr = procAttr(ns)
		cmd.Cancel = func() error {
			killTree(cmd.Process.Pid)
			return nil
		}
		if reaper {
			// The subreaper kills the program and what it left, then exits; SIGKILL (to
			// it, then to the session) only if it has not within the grace.
			cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
			cmd.WaitDelay = reapGrace + time.Second
		}
		err = cmd.Start()
		if err != nil && ns != 0 && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC)) {
			c.mode.CompareAndSwap(i, i+1) // the host may not create these namespaces
			continue
		}
		break
	}
	outW.Close()
	errW.Close()
	repW.Close()
	if err != nil {
		return "", err
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(stdout, outR) }()
	go func() { defer wg.Done(); io.Copy(stderr, errR) }()
	err = cmd.Wait()
	killTree(cmd.Process.Pid)
	// What is left holding the pipes escaped the session and survives only without a PID
	// namespace and a subreaper, or when the subreaper was killed or gave up; its output
	// is not waited for beyond a short grace.
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(200 * time.Millisecond):
		outR.SetReadDeadline(time.Now())
		errR.SetReadDeadline(time.Now())
		<-drained
	}
	var rep bytes.Buffer
	io.Copy(&rep, io.LimitReader(repR, 4<<10))
	return rep.String(), err
}

// capped keeps the first max bytes written to it and discards the rest.
type capped struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (w *capped) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		if len(p) > room {
			w.buf.Write(p[:room])
			w.cut = true
		} else {
			w.buf.Write(p)
		}
	} else if len(p) > 0 {
		w.cut = true
	}
	return len(p), nil
}
