//go:build unix

package platform_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/toolhint/toolhint/registry/platform"
)

// TestCommandEscapeClasses sends each escape class an outside probe found with a
// common host allow-list through the argument check, which must refuse every one before
// anything runs. TestCommandConfinedByKernel sends the same classes with the check off.
func TestCommandEscapeClasses(t *testing.T) {
	names := []string{"echo", "ls", "cat", "head", "find", "git", "tar", "sed", "sort", "cp", "date",
		"make", "printenv", "mkdir", "ln", "curl", "rm", "chmod", "dd", "grep", "wc", "pwd", "true"}
	fx := newCmdFixture(t, func(c *platform.CommandConfig) {
		c.Programs = nil
		for _, n := range names {
			c.Programs = append(c.Programs, program(t, n))
		}
	})
	secretPath := filepath.Join(fx.outside, "secret.txt")
	cases := []struct {
		name string
		args []string
	}{
		{"git alias", []string{"git", "-c", "alias.x=!sh -c id", "x"}},
		{"git alias attached", []string{"git", "-calias.x=!id", "x"}},
		{"git fsmonitor upper case", []string{"git", "-c", "CORE.FSMONITOR=touch pwned", "status"}},
		{"git ext transport", []string{"git", "ls-remote", "ext::sh -c touch% pwned"}},
		{"git upload-pack", []string{"git", "ls-remote", "--upload-pack=touch pwned", "."}},
		{"tar checkpoint action", []string{"tar", "--checkpoint=1", "--checkpoint-action=exec=touch pwned", "-cf", "a.tar", "hello.txt"}},
		{"tar to-command", []string{"tar", "-xf", "a.tar", "--to-command=sh"}},
		{"tar -I", []string{"tar", "-I", "sh", "-cf", "a.tar", "hello.txt"}},
		{"sed e command", []string{"sed", "1e touch pwned", "hello.txt"}},
		{"sed e flag", []string{"sed", "s/x/id/e", "hello.txt"}},
		{"make eval", []string{"make", "--eval=$(shell touch pwned)"}},
		{"make -E", []string{"make", "-E", "$(shell touch pwned)"}},
		{"scheme prefix", []string{"cat", "ab://../../outside/secret.txt"}},
		{"tar -C attached", []string{"tar", "-C" + fx.outside, "-cf", "b.tar", "secret.txt"}},
		{"date -f attached", []string{"date", "-f" + secretPath}},
		{"sort -o attached", []string{"sort", "-o../outside/x", "hello.txt"}},
		{"cp -t attached", []string{"cp", "-t" + fx.outside, "hello.txt"}},
		{"dd if", []string{"dd", "if=" + secretPath}},
		{"dd of climbing", []string{"dd", "if=hello.txt", "of=../outside/x"}},
		{"sed R", []string{"sed", "R " + secretPath, "hello.txt"}},
		{"sed w", []string{"sed", "-n", "w " + filepath.Join(fx.outside, "x"), "hello.txt"}},
		{"sed s w flag", []string{"sed", "s/h/j/w ../outside/x", "hello.txt"}},
		{"curl file", []string{"curl", "file://" + secretPath}},
		{"curl FILE upper case", []string{"curl", "FILE:" + secretPath}},
		{"find exec upper case", []string{"find", ".", "-EXEC", "id", ";"}},
		{"rm recursive upper case", []string{"rm", "-R", "sub"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fx.run(t, map[string]any{"command": tc.args[0], "args": tc.args[1:]})
			if !errors.Is(err, platform.ErrCommandRefused) {
				t.Fatalf("err = %v (result %+v), want ErrCommandRefused", err, res)
			}
		})
	}
	for _, launcher := range []string{"rbash", "taskset", "setpriv", "unshare", "chrt", "prlimit", "nsenter",
		"sg", "ed", "ex", "env", "nice", "timeout", "xargs", "setsid", "vi", "less"} {
		t.Run("launcher "+launcher, func(t *testing.T) {
			_, err := platform.NewCommand(platform.CommandConfig{Dir: fx.work, Programs: []string{program(t, launcher)}})
			if !errors.Is(err, platform.ErrInvalidConfig) {
				t.Fatalf("NewCommand with %s: %v, want ErrInvalidConfig", launcher, err)
			}
		})
	}
}
