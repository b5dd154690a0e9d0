//go:build linux

package platform_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhint/toolhint/registry/platform"
)

// elfInterp returns the dynamic loader prog names, skipping t for a static program.
func elfInterp(t *testing.T, prog string) string {
	t.Helper()
	loader, err := platform.Interpreter(prog)
	if err != nil {
		t.Fatal(err)
	}
	if loader == "" {
		t.Skipf("%s is static: no loader to test", prog)
	}
	return loader
}

// TestCommandWorkspaceNoexec writes a real program (a copy of touch) into the workspace
// as "payload" and tries to run it with the argument checks off: through the dynamic
// loader, which every allowed program needs and so may execute; directly, from find's
// -exec; and from make recipes, which make executes without a shell. The kernel must
// refuse each (the payload would create the file payload-ran), in every namespace mode,
// while allowed programs still run and write in the workspace. With WorkspaceExec, the
// loader does run the payload: the test would see it.
func TestCommandWorkspaceNoexec(t *testing.T) {
	touch := program(t, "touch")
	loader := elfInterp(t, touch)
	names := []string{"cat", "cp", "find"}
	if _, err := os.Stat("/usr/bin/make"); err == nil {
		names = append(names, "make")
	}
	fixture := func(t *testing.T, workspaceExec bool) *cmdFixture {
		fx := newCmdFixture(t, func(c *platform.CommandConfig) {
			c.Programs = []string{loader}
			for _, n := range names {
				c.Programs = append(c.Programs, program(t, n))
			}
			c.Blocked = []string{}
			c.AllowOutsidePaths = true
			c.AllowLaunchers = true
			c.WorkspaceExec = workspaceExec
		})
		b, err := os.ReadFile(touch)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fx.work, "payload"), b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fx.work, "sub", "payload"), b, 0o755); err != nil {
			t.Fatal(err)
		}
		mk := "loader:\n\t" + loader + " ./payload payload-ran\ndirect:\n\t./payload payload-ran\n"
		if err := os.WriteFile(filepath.Join(fx.work, "Makefile"), []byte(mk), 0o644); err != nil {
			t.Fatal(err)
		}
		return fx
	}
	ran := func(fx *cmdFixture) bool {
		_, err1 := os.Stat(filepath.Join(fx.work, "payload-ran"))
		_, err2 := os.Stat(filepath.Join(fx.work, "sub", "payload-ran"))
		os.Remove(filepath.Join(fx.work, "payload-ran"))
		os.Remove(filepath.Join(fx.work, "sub", "payload-ran"))
		return err1 == nil || err2 == nil
	}
	ld := filepath.Base(loader)
	cases := []struct {
		name string
		in   map[string]any
		make bool
	}{
		{"loader", map[string]any{"command": ld, "args": []string{"./payload", "payload-ran"}}, false},
		{"loader by full path", map[string]any{"command": loader, "args": []string{filepath.Join("sub", "payload"), filepath.Join("sub", "payload-ran")}}, false},
		{"loader in a subdirectory", map[string]any{"command": ld, "args": []string{"./payload", "payload-ran"}, "dir": "sub"}, false},
		{"find -exec", map[string]any{"command": "find", "args": []string{"hello.txt", "-exec", "./payload", "payload-ran", ";"}}, false},
		{"make recipe runs the loader", map[string]any{"command": "make", "args": []string{"loader"}}, true},
		{"make recipe runs the payload", map[string]any{"command": "make", "args": []string{"direct"}}, true},
	}
	hasMake := names[len(names)-1] == "make"
	for _, mode := range runModes {
		if mode.unconfined {
			continue // unconfined commands never get the noexec mount
		}
		t.Run(mode.name, func(t *testing.T) {
			fx := fixture(t, false)
			mode.setup(fx.cmd)
			if d := fx.cmd.Tool().Description; !strings.Contains(d, "mounted noexec for them: a program written there cannot run") {
				t.Errorf("the description does not tell the workspace is noexec: %s", d)
			}
			for _, tc := range cases {
				if tc.make && !hasMake {
					continue
				}
				res, err := fx.run(t, tc.in)
				if ran(fx) {
					t.Errorf("%s: the payload ran: %+v %v", tc.name, res, err)
				}
				// find reports a failed -exec as a test that was false, with status 0.
				if err == nil && res.ExitCode == 0 && tc.in["command"] != "find" {
					t.Errorf("%s: succeeded: %+v", tc.name, res)
				}
				t.Logf("%s: %q %v", tc.name, res.Stderr, err)
			}
			// The workspace is the one place a command may write: no other directory
			// could hold a payload the loader maps.
			for _, d := range []string{"/dev/shm", "/tmp", "/var/tmp", "/run", "/dev"} {
				dst := filepath.Join(d, "toolhint-noexec-payload")
				res, err := fx.run(t, map[string]any{"command": "cp", "args": []string{"payload", dst}})
				if _, serr := os.Stat(dst); serr == nil {
					os.Remove(dst)
					t.Errorf("cp wrote %s: %+v %v", dst, res, err)
				}
			}
			// What is allowed still works: reading, and writing in the workspace.
			res, err := fx.run(t, map[string]any{"command": "cp", "args": []string{"hello.txt", "sub/copy.txt"}})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("cp: %+v %v", res, err)
			}
			res, err = fx.run(t, map[string]any{"command": "cat", "args": []string{"copy.txt"}, "dir": "sub"})
			if err != nil || res.Stdout != "hello\n" {
				t.Errorf("cat of the copy: %+v %v", res, err)
			}
		})
	}
	t.Run("WorkspaceExec", func(t *testing.T) {
		fx := fixture(t, true)
		if d := fx.cmd.Tool().Description; !strings.Contains(d, "not mounted noexec") {
			t.Errorf("the description does not tell the workspace is not noexec: %s", d)
		}
		res, err := fx.run(t, cases[0].in)
		if !ran(fx) {
			t.Errorf("without the noexec mount the loader did not run the payload (%+v %v): the test would not see it", res, err)
		}
	})
}

// TestCommandNoMountNamespace: where the host may create no namespace, NewCommand fails
// for confined commands and says how to opt out; WorkspaceExec opts out, and says so in
// the description; a program inside the workspace is refused unless opted out.
func TestCommandNoMountNamespace(t *testing.T) {
	work := t.TempDir()
	cfg := platform.CommandConfig{Dir: work, Programs: []string{program(t, "echo")}}
	_, err := platform.NewCommandWithoutNamespaces(cfg)
	if !errors.Is(err, platform.ErrInvalidConfig) || !strings.Contains(err.Error(), "WorkspaceExec") || !strings.Contains(err.Error(), "mount namespace") {
		t.Fatalf("NewCommand without namespaces: %v, want ErrInvalidConfig naming WorkspaceExec", err)
	}
	cfg.WorkspaceExec = true
	c, err := platform.NewCommandWithoutNamespaces(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if d := c.Tool().Description; !strings.Contains(d, "confined by the kernel") || !strings.Contains(d, "not mounted noexec") {
		t.Errorf("description: %s", d)
	}
	fx := &cmdFixture{cmd: c}
	if res, err := fx.run(t, map[string]any{"command": "echo", "args": []string{"hi"}}); err != nil || res.Stdout != "hi\n" {
		t.Errorf("echo: %+v %v", res, err)
	}

	b, err := os.ReadFile(program(t, "echo"))
	if err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(work, "bin", "echo")
	os.Mkdir(filepath.Dir(inside), 0o755)
	if err := os.WriteFile(inside, b, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = platform.NewCommand(platform.CommandConfig{Dir: work, Programs: []string{inside}})
	if !errors.Is(err, platform.ErrInvalidConfig) || !strings.Contains(err.Error(), "is in the workspace") {
		t.Errorf("a program in the workspace: %v, want ErrInvalidConfig", err)
	}
	c2, err := platform.NewCommand(platform.CommandConfig{Dir: work, Programs: []string{inside}, WorkspaceExec: true})
	if err != nil {
		t.Fatalf("a program in the workspace with WorkspaceExec: %v", err)
	}
	c2.Close()
}

// TestCommandMountTable: the mounts a command makes stay in its own namespace. The
// workspace sits on a tmpfs shared with a peer group, so that a bind mount made without
// private propagation first would reach the host's mount table; the table is compared
// while a command runs and after it, and the command itself sees its workspace noexec.
func TestCommandMountTable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting the shared tmpfs needs root")
	}
	shared := t.TempDir()
	if err := syscall.Mount("tmpfs", shared, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(shared, syscall.MNT_DETACH) })
	if err := syscall.Mount("none", shared, "", syscall.MS_SHARED, ""); err != nil {
		t.Fatal(err)
	}
	// A space, which mountinfo escapes, and a mount inside the workspace, which must be
	// noexec for the command too.
	work := filepath.Join(shared, "work space")
	inner := filepath.Join(work, "inner")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", inner, "tmpfs", 0, "size=16m"); err != nil {
		t.Fatal(err)
	}
	touch := program(t, "touch")
	loader := elfInterp(t, touch)
	b, err := os.ReadFile(touch)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inner, "payload"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := platform.NewCommand(platform.CommandConfig{Dir: work, Timeout: 10 * time.Second, AllowOutsidePaths: true,
		Programs:       []string{program(t, "cat"), program(t, "sleep"), loader},
		AllowLaunchers: true,
		ReadPaths:      append(platform.DefaultReadPaths(), "/proc")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fx := &cmdFixture{cmd: c}
	table := func() string {
		b, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := table()
	if !strings.Contains(before, " "+shared+" ") || !strings.Contains(before, "shared:") {
		t.Fatalf("the tmpfs is not a shared mount:\n%s", before)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fx.run(t, map[string]any{"command": "sleep", "args": []string{"1"}})
	}()
	deadline := time.Now().Add(800 * time.Millisecond)
	for time.Now().Before(deadline) {
		if now := table(); now != before {
			t.Errorf("the host's mount table changed while a command ran:\nbefore:\n%s\nduring:\n%s", before, now)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	<-done
	res, err := fx.run(t, map[string]any{"command": "cat", "args": []string{"/proc/self/mountinfo"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("cat mountinfo: %+v %v", res, err)
	}
	for _, dir := range []string{work, inner} {
		noexec := false
		for _, line := range strings.Split(res.Stdout, "\n") {
			if f := strings.Fields(line); len(f) > 5 && f[4] == strings.ReplaceAll(dir, " ", `\040`) {
				noexec = strings.Contains(","+f[5]+",", ",noexec,") && strings.Contains(","+f[5]+",", ",nosuid,")
			}
		}
		if !noexec {
			t.Errorf("the command does not see %s noexec,nosuid:\n%s", dir, res.Stdout)
		}
	}
	res, err = fx.run(t, map[string]any{"command": loader, "args": []string{"inner/payload", "inner/payload-ran"}})
	if _, serr := os.Stat(filepath.Join(inner, "payload-ran")); serr == nil {
		t.Errorf("the loader ran the payload on the inner mount: %+v %v", res, err)
	}
	if after := table(); after != before {
		t.Errorf("the host's mount table changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The host's own view of the workspace is untouched: it may still execute there.
	if out, err := exec.Command(program(t, "cat"), "/proc/self/mountinfo").Output(); err != nil || strings.Contains(string(out), " "+strings.ReplaceAll(work, " ", `\040`)+" ") {
		t.Errorf("the host sees a mount at the workspace (%v)", err)
	}
}

// TestCommandNoAmbientCapabilities: a user namespace lends the confining child
// CAP_SYS_ADMIN as an ambient capability for its mounts; the program must not keep it
// (as root the ambient set would survive the exec). A program run by another user than
// root has no capabilities at all.
func TestCommandNoAmbientCapabilities(t *testing.T) {
	for _, mode := range runModes {
		if mode.unconfined {
			continue
		}
		t.Run(mode.name, func(t *testing.T) {
			fx := newCmdFixture(t, func(c *platform.CommandConfig) {
				c.AllowOutsidePaths = true
				c.ReadPaths = append(platform.DefaultReadPaths(), "/proc")
			})
			mode.setup(fx.cmd)
			res, err := fx.run(t, map[string]any{"command": "cat", "args": []string{"/proc/self/status"}})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("cat status: %+v %v", res, err)
			}
			want := []string{"CapAmb:\t0000000000000000"}
			if os.Geteuid() != 0 {
				want = append(want, "CapEff:\t0000000000000000", "CapPrm:\t0000000000000000")
			}
			for _, w := range want {
				if !strings.Contains(res.Stdout, w+"\n") {
					t.Errorf("the program's status lacks %q:\n%s", w, res.Stdout)
				}
			}
		})
	}
}
