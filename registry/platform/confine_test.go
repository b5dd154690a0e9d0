//go:build linux

package platform_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolhint/toolhint/registry/platform"
)

// confinedFixture is a command tool whose argument checks are all switched off (no
// blocked patterns, outside paths allowed, launchers listed), so that only the kernel
// stands between the commands and the outside directory.
func confinedFixture(t *testing.T, names ...string) *cmdFixture {
	t.Helper()
	fx := newCmdFixture(t, func(c *platform.CommandConfig) {
		c.Programs = nil
		for _, n := range names {
			c.Programs = append(c.Programs, program(t, n))
		}
		c.Blocked = []string{}
		c.AllowOutsidePaths = true
		c.AllowLaunchers = true
		c.Env = append(c.Env, "LANG=C")
	})
	if !strings.Contains(fx.cmd.Tool().Description, "confined by the kernel") {
		t.Fatalf("not confined: %s", fx.cmd.Tool().Description)
	}
	return fx
}

func TestCommandConfinedByKernel(t *testing.T) {
	progs := []string{"cat", "cp", "date", "dd", "ed", "find", "git", "ln", "make", "sed", "sort", "tar",
		"curl", "taskset", "setpriv", "unshare", "chrt", "prlimit", "nsenter", "rbash", "ex"}
	fx := confinedFixture(t, progs...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	out := fx.outside
	secretPath := filepath.Join(out, "secret.txt")
	pwned := filepath.Join(out, "pwned")
	touch := "touch " + pwned
	cases := []struct {
		name string
		args []string
	}{
		{"git alias runs a shell", []string{"git", "-c", "alias.x=!" + touch, "x"}},
		{"git alias upper case", []string{"git", "-c", "ALIAS.x=!" + touch, "x"}},
		{"git ext transport", []string{"git", "-c", "protocol.ext.allow=always", "ls-remote", "ext::sh -c touch% " + pwned}},
		{"git fsmonitor", []string{"git", "-c", "CORE.FSMONITOR=" + touch, "status"}},
		{"tar checkpoint action", []string{"tar", "--checkpoint=1", "--checkpoint-action=exec=" + touch, "-cf", "a.tar", "hello.txt"}},
		{"tar -C attached", []string{"tar", "-C" + out, "-cf", "b.tar", "secret.txt"}},
		{"sed e command", []string{"sed", "1e " + touch, "hello.txt"}},
		{"sed R reads outside", []string{"sed", "R " + secretPath, "hello.txt"}},
		{"sed w writes outside", []string{"sed", "-n", "w " + pwned, "hello.txt"}},
		{"make eval shell", []string{"make", "-f", "/dev/null", "--eval=$(shell " + touch + ")", "--eval=x:;@:", "x"}},
		{"find exec", []string{"find", "hello.txt", "-exec", "touch", pwned, ";"}},
		{"cat absolute", []string{"cat", secretPath}},
		{"cat through a symlink", []string{"cat", "link_out/secret.txt"}},
		{"cat scheme prefix", []string{"cat", "ab://../../outside/secret.txt"}},
		{"dd if", []string{"dd", "if=" + secretPath}},
		{"dd of", []string{"dd", "if=hello.txt", "of=" + pwned}},
		{"curl file", []string{"curl", "-s", "file://" + secretPath}},
		{"curl loopback", []string{"curl", "-s", "http://" + ln.Addr().String() + "/"}},
		{"cp outside", []string{"cp", "hello.txt", pwned}},
		{"cp -t attached", []string{"cp", "-t" + out, "hello.txt"}},
		{"sort -o attached", []string{"sort", "-o" + pwned, "hello.txt"}},
		{"date -f attached", []string{"date", "-f" + secretPath}},
		{"hard link in", []string{"ln", secretPath, "hard"}},
		{"ed shell", []string{"ed", "-s", "!" + touch}},
		{"ex shell", []string{"ex", "-s", "-c", "!" + touch, "-c", "q"}},
		{"taskset", []string{"taskset", "1", "touch", pwned}},
		{"setpriv", []string{"setpriv", "touch", pwned}},
		{"unshare", []string{"unshare", "-r", "touch", pwned}},
		{"chrt", []string{"chrt", "-o", "0", "touch", pwned}},
		{"prlimit", []string{"prlimit", "touch", pwned}},
		{"nsenter", []string{"nsenter", "touch", pwned}},
		{"rbash", []string{"rbash", "-c", "cat " + secretPath}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fx.run(t, map[string]any{"command": tc.args[0], "args": tc.args[1:]})
			if err != nil {
				// rbash's own startup counts too: refused before its shell ran anything.
				t.Logf("refused to start: %v", err)
				return
			}
			if strings.Contains(res.Stdout+res.Stderr, secret) {
				t.Errorf("read the outside secret: %+v", res)
			}
			if _, err := os.Stat(pwned); err == nil {
				os.Remove(pwned)
				t.Errorf("wrote outside: %+v", res)
			}
			filepath.WalkDir(fx.work, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), secret) {
						t.Errorf("the outside secret reached %s: %+v", p, res)
					}
				}
				return nil
			})
			if fi, err := os.Stat(filepath.Join(out, "hello.txt")); err == nil {
				t.Errorf("copied outside: %v", fi.Name())
			}
		})
	}
	if n := accepted.Load(); n > 0 {
		t.Errorf("%d TCP connections reached the host's loopback", n)
	}
	if b, err := os.ReadFile(fx.marker); err == nil {
		t.Errorf("a program outside the allow-list ran:\n%s", b)
	}
}

// TestCommandSymlinkRace swaps a directory for a symlink out while cat reads below it:
// the argument check passes for the directory, and the kernel refuses the outside file.
func TestCommandSymlinkRace(t *testing.T) {
	fx := newCmdFixture(t, nil)
	race := filepath.Join(fx.work, "race")
	inside := filepath.Join(fx.work, "race_dir")
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inside, "secret.txt"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(fx.work, "race_tmp")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := "race_dir"
			if i%2 == 1 {
				target = fx.outside
			}
			os.Remove(tmp)
			os.Symlink(target, tmp)
			os.Rename(tmp, race)
		}
	}()
	outsideReads, insideReads, kernelRefused := 0, 0, 0
	for range 300 {
		res, err := fx.run(t, map[string]any{"command": "cat", "args": []string{"race/secret.txt"}})
		switch {
		case err != nil: // refused by the argument check while race pointed out
		case strings.Contains(res.Stdout, secret):
			outsideReads++
		case res.Stdout == "inside\n":
			insideReads++
		case strings.Contains(res.Stderr, "Permission denied"):
			kernelRefused++
		}
	}
	close(stop)
	wg.Wait()
	if outsideReads > 0 {
		t.Errorf("%d reads of the outside secret through the swapped directory", outsideReads)
	}
	if insideReads+kernelRefused == 0 {
		t.Error("no run got past the argument check: the race was not exercised")
	}
	t.Logf("300 runs: %d read inside, %d refused by the kernel after the check passed, 0 outside", insideReads, kernelRefused)
}
