//go:build unix

package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/registry/platform"
)

// program returns the absolute path of a system program, skipping t when it is missing.
func program(t testing.TB, name string) string {
	t.Helper()
	for _, d := range []string{"/usr/bin", "/bin"} {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	t.Skipf("%s is not installed", name)
	return ""
}

// cmdFixture is a command tool over a work directory, with an outside directory beside it
// and a spy directory on the commands' PATH whose programs (sh, bash, touch, rm, id, curl)
// leave a marker when anything runs them.
type cmdFixture struct {
	dir, work, outside, spies, marker string
	cmd                               *platform.Command
}

func newCmdFixture(t *testing.T, mod func(*platform.CommandConfig)) *cmdFixture {
	t.Helper()
	dir := t.TempDir()
	fx := &cmdFixture{dir: dir, work: filepath.Join(dir, "work"), outside: filepath.Join(dir, "outside"),
		spies: filepath.Join(dir, "spies"), marker: filepath.Join(dir, "SPY_RAN")}
	for _, d := range []string{filepath.Join(fx.work, "sub"), fx.outside, fx.spies} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(fx.outside, "secret.txt"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fx.work, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside", filepath.Join(fx.work, "link_out")); err != nil {
		t.Fatal(err)
	}
	sh := program(t, "sh")
	for _, name := range []string{"sh", "bash", "touch", "rm", "id", "curl", "python3", "cat2"} {
		script := "#!" + sh + "\necho \"$0 $*\" >> " + fx.marker + "\n"
		if err := os.WriteFile(filepath.Join(fx.spies, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := platform.CommandConfig{
		Dir: fx.work,
		Programs: []string{program(t, "echo"), program(t, "ls"), program(t, "cat"), program(t, "pwd"),
			program(t, "false"), program(t, "find"), program(t, "sleep"), program(t, "printenv")},
		Env:     []string{"PATH=" + fx.spies, "HOME=" + fx.work},
		Timeout: 5 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := platform.NewCommand(cfg)
	if err != nil {
		t.Fatalf("NewCommand: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	fx.cmd = c
	return fx
}

func (fx *cmdFixture) run(t *testing.T, args map[string]any) (platform.CommandResult, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	out, err := fx.cmd.Tool().Run(context.Background(), b)
	if err != nil {
		return platform.CommandResult{}, err
	}
	var res platform.CommandResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	return res, nil
}

func TestCommandHostile(t *testing.T) {
	fx := newCmdFixture(t, func(c *platform.CommandConfig) {
		c.Programs = append(c.Programs, program(t, "rm"))
	})
	long := strings.Repeat("a", 70_000)
	many := make([]string, 300)
	for i := range many {
		many[i] = "x"
	}
	// echo is allowed: when a hostile string reaches it as an argument, echo must print it
	// literally (no shell ever read it). Every other case must be refused before running.
	cases := []struct {
		name    string
		args    map[string]any
		literal string // "" means: refused with ErrCommandRefused
	}{
		{"shell by name", map[string]any{"command": "sh", "args": []string{"-c", "touch pwned"}}, ""},
		{"shell by path", map[string]any{"command": "/bin/sh", "args": []string{"-c", "id"}}, ""},
		{"bash", map[string]any{"command": "bash", "args": []string{"-c", "id"}}, ""},
		{"spy by absolute path", map[string]any{"command": filepath.Join(fx.spies, "sh")}, ""},
		{"semicolon in the name", map[string]any{"command": "echo; touch pwned"}, ""},
		{"and-and in the name", map[string]any{"command": "echo && touch pwned"}, ""},
		{"pipe in the name", map[string]any{"command": "echo | sh"}, ""},
		{"command substitution as the name", map[string]any{"command": "$(touch pwned)"}, ""},
		{"backticks as the name", map[string]any{"command": "`touch pwned`"}, ""},
		{"relative path climbing", map[string]any{"command": "../../bin/sh"}, ""},
		{"dot slash", map[string]any{"command": "./echo"}, ""},
		{"dot-dot in an allowed path", map[string]any{"command": "/usr/bin/../bin/sh"}, ""},
		{"upper case", map[string]any{"command": "ECHO"}, ""},
		{"leading space", map[string]any{"command": " echo"}, ""},
		{"NUL in the name", map[string]any{"command": "echo\x00sh"}, ""},
		{"empty name", map[string]any{"command": ""}, ""},
		{"not allowed: touch", map[string]any{"command": "touch", "args": []string{"pwned"}}, ""},
		{"not allowed: env", map[string]any{"command": "env", "args": []string{"sh"}}, ""},
		{"not allowed: python", map[string]any{"command": "python3", "args": []string{"-c", "open('pwned','w')"}}, ""},
		{"not allowed: dd", map[string]any{"command": "dd", "args": []string{"if=/dev/zero", "of=/dev/sda"}}, ""},
		{"blocked: rm -rf", map[string]any{"command": "rm", "args": []string{"-rf", "sub"}}, ""},
		{"blocked: rm -r -f", map[string]any{"command": "rm", "args": []string{"-r", "-f", "sub"}}, ""},
		{"blocked: rm -fr", map[string]any{"command": "rm", "args": []string{"-fr", "sub"}}, ""},
		{"blocked: rm --recursive", map[string]any{"command": "rm", "args": []string{"--recursive", "sub"}}, ""},
		{"blocked: rm --no-preserve-root", map[string]any{"command": "rm", "args": []string{"--no-preserve-root", "hello.txt"}}, ""},
		{"blocked: find -exec", map[string]any{"command": "find", "args": []string{".", "-exec", "sh", "-c", "touch pwned", ";"}}, ""},
		{"blocked: find -execdir", map[string]any{"command": "find", "args": []string{".", "-execdir", "touch", "pwned", ";"}}, ""},
		{"blocked: fork bomb text", map[string]any{"command": "echo", "args": []string{":(){ :|:& };:"}}, ""},
		{"outside: absolute argument", map[string]any{"command": "cat", "args": []string{"/etc/passwd"}}, ""},
		{"outside: dot-dot argument", map[string]any{"command": "cat", "args": []string{"../outside/secret.txt"}}, ""},
		{"outside: through a symlink", map[string]any{"command": "cat", "args": []string{"link_out/secret.txt"}}, ""},
		{"outside: flag value", map[string]any{"command": "ls", "args": []string{"--hide=/etc"}}, ""},
		{"outside: tilde", map[string]any{"command": "ls", "args": []string{"~root"}}, ""},
		{"outside: working dir climbing", map[string]any{"command": "ls", "dir": "../outside"}, ""},
		{"outside: absolute working dir", map[string]any{"command": "ls", "dir": "/etc"}, ""},
		{"outside: working dir through a symlink", map[string]any{"command": "ls", "dir": "link_out"}, ""},
		{"too long", map[string]any{"command": "echo", "args": []string{long}}, ""},
		{"too many arguments", map[string]any{"command": "echo", "args": many}, ""},
		{"NUL in an argument", map[string]any{"command": "echo", "args": []string{"a\x00b"}}, ""},
		{"semicolon argument", map[string]any{"command": "echo", "args": []string{"; touch pwned"}}, "; touch pwned\n"},
		{"command substitution argument", map[string]any{"command": "echo", "args": []string{"$(touch pwned)"}}, "$(touch pwned)\n"},
		{"backticks argument", map[string]any{"command": "echo", "args": []string{"`touch pwned`"}}, "`touch pwned`\n"},
		{"and-and arguments", map[string]any{"command": "echo", "args": []string{"a", "&&", "touch", "pwned"}}, "a && touch pwned\n"},
		{"pipe argument", map[string]any{"command": "echo", "args": []string{"| sh"}}, "| sh\n"},
		{"redirection argument", map[string]any{"command": "echo", "args": []string{"pwned", ">", "pwned"}}, "pwned > pwned\n"},
		{"variable argument", map[string]any{"command": "echo", "args": []string{"$HOME", "${PATH}"}}, "$HOME ${PATH}\n"},
		{"newline argument", map[string]any{"command": "echo", "args": []string{"a\ntouch pwned"}}, "a\ntouch pwned\n"},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d hostile commands; the bar is 30", len(cases))
	}
	refused := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fx.run(t, tc.args)
			if tc.literal == "" {
				if !errors.Is(err, platform.ErrCommandRefused) {
					t.Fatalf("err = %v (result %+v), want ErrCommandRefused", err, res)
				}
				refused++
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want echo to run", err)
			}
			if diff := cmp.Diff(platform.CommandResult{Stdout: tc.literal}, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
	var pwned []string
	filepath.WalkDir(fx.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), "pwned") {
			pwned = append(pwned, p)
		}
		return nil
	})
	if len(pwned) > 0 {
		t.Errorf("hostile commands created files: %v", pwned)
	}
	if b, err := os.ReadFile(fx.marker); err == nil {
		t.Errorf("a program outside the allow-list ran:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(fx.work, "sub")); err != nil {
		t.Errorf("sub was removed: %v", err)
	}
	t.Logf("%d hostile commands: %d refused, %d ran an allowed program literally, 0 outside the allow-list", len(cases), refused, len(cases)-refused)
}

// pidModes are the two ways a command runs: in a PID namespace of its own where the host
// may create one, and without one (forced), where a child subreaper kills what the
// program leaves behind.
var pidModes = []struct {
	name  string
	setup func(*platform.Command)
}{
	{"pid namespace", func(*platform.Command) {}},
	{"no pid namespace", platform.NoPIDNamespace},
}

func TestCommandRuns(t *testing.T) {
	t.Setenv("TOOLHINT_HOST_SECRET", "must-not-leak")
	for _, mode := range pidModes {
		t.Run(mode.name, func(t *testing.T) {
			fx := newCmdFixture(t, nil)
			mode.setup(fx.cmd)
			testCommandRuns(t, fx)
		})
	}
}

func testCommandRuns(t *testing.T, fx *cmdFixture) {
	realWork, err := filepath.EvalSymlinks(fx.work)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		want platform.CommandResult
	}{
		{"echo", map[string]any{"command": "echo", "args": []string{"hi", "there"}}, platform.CommandResult{Stdout: "hi there\n"}},
		{"full path", map[string]any{"command": program(t, "echo"), "args": []string{"x"}}, platform.CommandResult{Stdout: "x\n"}},
		{"exit code", map[string]any{"command": "false"}, platform.CommandResult{ExitCode: 1}},
		{"stderr and exit code", map[string]any{"command": "ls", "args": []string{"missing"}},
			platform.CommandResult{ExitCode: 2, Stderr: "ls: cannot access 'missing': No such file or directory\n"}},
		{"relative file", map[string]any{"command": "cat", "args": []string{"hello.txt"}}, platform.CommandResult{Stdout: "hello\n"}},
		{"working dir", map[string]any{"command": "pwd", "dir": "sub"}, platform.CommandResult{Stdout: filepath.Join(realWork, "sub") + "\n"}},
		{"scrubbed environment", map[string]any{"command": "printenv"}, platform.CommandResult{Stdout: "PATH=" + fx.spies + "\nHOME=" + fx.work + "\n"}},
		{"URL argument", map[string]any{"command": "echo", "args": []string{"https://example.com/a/b"}}, platform.CommandResult{Stdout: "https://example.com/a/b\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fx.run(t, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCommandLimits asserts on what happened (a timeout reported, output cut at the
// limit), never on how fast a loaded machine got there.
func TestCommandLimits(t *testing.T) {
	fx := newCmdFixture(t, func(c *platform.CommandConfig) {
		c.Timeout = 150 * time.Millisecond
		c.MaxOutputBytes = 1000
	})
	for _, mode := range pidModes {
		mode.setup(fx.cmd)
		res, err := fx.run(t, map[string]any{"command": "sleep", "args": []string{"30"}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(platform.CommandResult{ExitCode: -1, TimedOut: true}, res); diff != "" {
			t.Errorf("%s: sleep 30 (-want +got):\n%s", mode.name, diff)
		}
	}
	if err := os.WriteFile(filepath.Join(fx.work, "big.txt"), []byte(strings.Repeat("y\n", 5000)), 0o644); err != nil {
		t.Fatal(err)
	}
	fx.cmd.Close()
	fx = newCmdFixture(t, func(c *platform.CommandConfig) { c.MaxOutputBytes = 1000 })
	if err := os.WriteFile(filepath.Join(fx.work, "big.txt"), []byte(strings.Repeat("y\n", 5000)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := fx.run(t, map[string]any{"command": "cat", "args": []string{"big.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(platform.CommandResult{Stdout: strings.Repeat("y\n", 500), Truncated: true}, res); diff != "" {
		t.Errorf("cat big.txt (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := fx.cmd.Tool().Run(ctx, json.RawMessage(`{"command":"echo"}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func TestNewCommandConfig(t *testing.T) {
	dir := t.TempDir()
	echo := program(t, "echo")
	tests := []struct {
		name string
		cfg  platform.CommandConfig
		ok   bool
	}{
		{"valid", platform.CommandConfig{Dir: dir, Programs: []string{echo}}, true},
		{"no dir", platform.CommandConfig{Programs: []string{echo}}, false},
		{"missing dir", platform.CommandConfig{Dir: filepath.Join(dir, "nope"), Programs: []string{echo}}, false},
		{"no programs", platform.CommandConfig{Dir: dir}, false},
		{"relative program", platform.CommandConfig{Dir: dir, Programs: []string{"echo"}}, false},
		{"missing program", platform.CommandConfig{Dir: dir, Programs: []string{"/nonexistent/echo"}}, false},
		{"shell", platform.CommandConfig{Dir: dir, Programs: []string{program(t, "sh")}}, false},
		{"bash", platform.CommandConfig{Dir: dir, Programs: []string{program(t, "bash")}}, false},
		{"env", platform.CommandConfig{Dir: dir, Programs: []string{program(t, "env")}}, false},
		{"python3", platform.CommandConfig{Dir: dir, Programs: []string{program(t, "python3")}}, false},
		{"shell when insisted", platform.CommandConfig{Dir: dir, Programs: []string{program(t, "sh")}, AllowLaunchers: true}, true},
		{"bad pattern", platform.CommandConfig{Dir: dir, Programs: []string{echo}, Blocked: []string{"("}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := platform.NewCommand(tt.cfg)
			if tt.ok {
				if err != nil {
					t.Fatalf("NewCommand: %v", err)
				}
				c.Close()
				return
			}
			if !errors.Is(err, platform.ErrInvalidConfig) {
				t.Fatalf("NewCommand: %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestCommandSpec(t *testing.T) {
	fx := newCmdFixture(t, nil)
	spec := fx.cmd.Tool()
	if !spec.NeedsConfirmation() {
		t.Error("execute_command does not need confirmation")
	}
	if !strings.Contains(spec.Description, "echo, false, find, ls") {
		t.Errorf("description does not list the programs: %s", spec.Description)
	}
}

// TestCommandEnvironment: with the default environment a command sees PATH, HOME (the
// workspace directory) and LANG only: nothing of the host process's own environment (its
// PWD, OLDPWD, secrets), and no PWD added for the working directory.
func TestCommandEnvironment(t *testing.T) {
	t.Setenv("PWD", "/host/pwd")
	t.Setenv("OLDPWD", "/host/oldpwd")
	t.Setenv("TOOLHINT_HOST_SECRET", secret)
	fx := newCmdFixture(t, func(c *platform.CommandConfig) { c.Env = nil })
	all := "PATH=/usr/bin:/bin\nHOME=" + fx.work + "\nLANG=C.UTF-8\n"
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"everything", map[string]any{"command": "printenv"}, all},
		{"everything, in a subdirectory", map[string]any{"command": "printenv", "dir": "sub"}, all},
		{"HOME", map[string]any{"command": "printenv", "args": []string{"HOME"}}, fx.work + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := fx.run(t, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Stdout); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, name := range []string{"PWD", "OLDPWD", "TOOLHINT_HOST_SECRET"} {
		t.Run("no "+name, func(t *testing.T) {
			res, err := fx.run(t, map[string]any{"command": "printenv", "args": []string{name}})
			if err == nil && res.ExitCode == 0 || strings.Contains(res.Stdout, "host") || strings.Contains(res.Stdout, secret) {
				t.Errorf("%s is set: %+v, %v", name, res, err)
			}
		})
	}
}
