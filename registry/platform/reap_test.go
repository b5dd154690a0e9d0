//go:build linux

package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/registry/platform"
)

// shFixture is a command tool that allows sh, setsid and sleep, confined unless
// unconfined is set, and lets the commands read /proc (so that a process can tell its own
// pid as the host sees it, even in a PID namespace of its own).
func shFixture(t *testing.T, timeout time.Duration, unconfined bool) *cmdFixture {
	t.Helper()
	return newCmdFixture(t, func(c *platform.CommandConfig) {
		c.Programs = append(c.Programs, program(t, "sh"), program(t, "setsid"))
		c.AllowLaunchers = true
		c.AllowOutsidePaths = true
		c.Timeout = timeout
		c.Env = []string{"PATH=" + filepath.Dir(program(t, "sleep"))}
		c.ReadPaths = append(platform.DefaultReadPaths(), "/proc")
		c.Unconfined = unconfined
	})
}

// runModes are the pid modes of a confined command, an unconfined one without a PID
// namespace (which has the subreaper too, the host having called Main), and a confined
// one whose namespaces are made in a user namespace of its own, as where the host lacks
// CAP_SYS_ADMIN.
var runModes = []struct {
	name       string
	noNS       bool
	unconfined bool
	setup      func(*platform.Command)
}{
	{"pid namespace", false, false, func(*platform.Command) {}},
	{"no pid namespace", true, false, platform.NoPIDNamespace},
	{"unconfined without pid namespace", true, true, platform.NoPIDNamespace},
	{"user namespace", false, false, platform.UserNamespace},
}

// TestCommandChildrenDie starts children that leave the command behind: one in the
// background, one in a session of its own (setsid), and one that daemonizes (setsid from
// a subshell that exits at once, so it is orphaned while the program still runs). Each
// writes its pid, as the host sees it, to a file in the workspace. Once the call
// returned, none of them may be alive, after a normal exit and after the timeout, with
// and without a PID namespace; the command's success stays success.
func TestCommandChildrenDie(t *testing.T) {
	const child = `read p _ < /proc/self/stat; echo $p > $1; exec sleep 1000`
	escapees := []string{"background.pid", "session.pid", "daemon.pid"}
	started := `until [ -s background.pid ] && [ -s session.pid ] && [ -s daemon.pid ]; do sleep 0.01; done; echo started`
	script := "child='" + child + "'\n" +
		`sh -c "$child" sh background.pid &` + "\n" +
		`setsid sh -c "$child" sh session.pid &` + "\n" +
		`(setsid sh -c "$child" sh daemon.pid &)` + "\n" +
		started
	for _, mode := range runModes {
		for _, timedOut := range []bool{false, true} {
			name := mode.name + "/exit"
			if timedOut {
				name = mode.name + "/timeout"
			}
			t.Run(name, func(t *testing.T) {
				timeout, s := 10*time.Second, script
				want := platform.CommandResult{Stdout: "started\n"}
				if timedOut {
					timeout, s = 2*time.Second, script+"\nsleep 1000"
					want.ExitCode, want.TimedOut = -1, true
				}
				fx := shFixture(t, timeout, mode.unconfined)
				mode.setup(fx.cmd)
				res, err := fx.run(t, map[string]any{"command": "sh", "args": []string{"-c", s}})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, res); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				for _, f := range escapees {
					pid := readPid(t, filepath.Join(fx.work, f))
					if pid > 0 {
						if state := waitGone(pid, 5*time.Second); state != "" {
							t.Errorf("%s: pid %d outlived the command (%s)", f, pid, state)
						}
					}
				}
			})
		}
	}
}

// readPid reads a pid a command wrote, failing t when there is none.
func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("the escapee did not start: %v", err)
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Errorf("%s holds %q, not a pid", file, b)
		return 0
	}
	return pid
}

// waitGone polls pid with signal 0 until it no longer exists (ESRCH) or within runs
// out. It returns "" when the process is gone, otherwise its state: "a zombie nobody
// reaped" or "alive", in which case it kills it so that a failing test leaves nothing
// behind.
func waitGone(pid int, within time.Duration) string {
	deadline := time.Now().Add(within)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return ""
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if _, rest, ok := strings.Cut(string(st), ") "); ok && strings.HasPrefix(rest, "Z") {
		return "a zombie nobody reaped"
	}
	syscall.Kill(pid, syscall.SIGKILL)
	return "alive"
}

// TestCommandExitStatus: a program's end reaches the model as it happened, through the
// subreaper too: success as success, an exit code as that code, output as written, and a
// death by a signal as a signal (-1, not 128+n), not as a timeout.
func TestCommandExitStatus(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   platform.CommandResult
		// self marks a program that signals itself: as the first process of a PID
		// namespace it is immune to its own signals, so it runs without one only.
		self bool
	}{
		{"success", "echo out; echo err >&2", platform.CommandResult{Stdout: "out\n", Stderr: "err\n"}, false},
		{"exit code", "echo out; exit 3", platform.CommandResult{ExitCode: 3, Stdout: "out\n"}, false},
		{"exit code 143", "exit 143", platform.CommandResult{ExitCode: 143}, false},
		{"killed", "echo out; kill -KILL $$", platform.CommandResult{ExitCode: -1, Stdout: "out\n"}, true},
		{"terminated", "kill -TERM $$", platform.CommandResult{ExitCode: -1}, true},
		{"segfault", "kill -SEGV $$", platform.CommandResult{ExitCode: -1}, true},
		{"user signal", "kill -USR1 $$", platform.CommandResult{ExitCode: -1}, true},
	}
	for _, mode := range runModes {
		fx := shFixture(t, 10*time.Second, mode.unconfined)
		mode.setup(fx.cmd)
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				if tt.self && !mode.noNS {
					t.Skip("a PID namespace's first process ignores its own signals")
				}
				res, err := fx.run(t, map[string]any{"command": "sh", "args": []string{"-c", tt.script}})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, res); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
		entries, _ := os.ReadDir(fx.work)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "core") {
				t.Errorf("%s: a core file was left in the workspace: %s", mode.name, e.Name())
			}
		}
	}
}

// TestCommandDidNotStart: when the program cannot start (here it was removed after
// NewCommand), the call fails with the reason, through the subreaper too.
func TestCommandDidNotStart(t *testing.T) {
	for _, mode := range runModes {
		t.Run(mode.name, func(t *testing.T) {
			// The program lives beside the workspace: one inside it would be refused.
			dir, bin := filepath.Join(t.TempDir(), "work"), t.TempDir()
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(program(t, "echo"))
			if err != nil {
				t.Fatal(err)
			}
			echo := filepath.Join(bin, "echo")
			if err := os.WriteFile(echo, b, 0o755); err != nil {
				t.Fatal(err)
			}
			c, err := platform.NewCommand(platform.CommandConfig{Dir: dir, Programs: []string{echo}, Unconfined: mode.unconfined})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			mode.setup(c)
			if err := os.Remove(echo); err != nil {
				t.Fatal(err)
			}
			_, err = c.Tool().Run(context.Background(), json.RawMessage(`{"command":"echo","args":["hi"]}`))
			if err == nil || !strings.Contains(err.Error(), "did not start") || !strings.Contains(err.Error(), "echo") {
				t.Errorf("got %v, want an error saying echo did not start", err)
			}
		})
	}
}

// BenchmarkCommand measures one echo: confined in a PID namespace (where the host may
// create one), confined below the subreaper (one more process per command), and
// unconfined below the subreaper.
func BenchmarkCommand(b *testing.B) {
	dir := b.TempDir()
	for _, mode := range runModes {
		b.Run(mode.name, func(b *testing.B) {
			c, err := platform.NewCommand(platform.CommandConfig{Dir: dir, Programs: []string{program(b, "echo")}, Unconfined: mode.unconfined})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			mode.setup(c)
			in := json.RawMessage(`{"command":"echo","args":["hi"]}`)
			for b.Loop() {
				if _, err := c.Tool().Run(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
