package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/registry/platform"
)

const secret = "TOP-SECRET-OUTSIDE"

// fileFixture is a temporary directory with a root the tools work in and, beside it, an
// outside directory they must never read or change.
type fileFixture struct {
	dir, root, outside string
	files              *platform.Files
	tools              map[string]registry.ToolSpec
}

func newFileFixture(t *testing.T, cfg platform.FilesConfig) *fileFixture {
	t.Helper()
	dir := t.TempDir()
	fx := &fileFixture{dir: dir, root: filepath.Join(dir, "root"), outside: filepath.Join(dir, "outside")}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(fx.outside, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(fx.outside, "secret.txt"), []byte(secret), 0o644))
	must(os.WriteFile(filepath.Join(fx.outside, "victim.txt"), []byte(secret+" victim"), 0o644))
	must(os.MkdirAll(filepath.Join(fx.root, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(fx.root, "ok.txt"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(fx.root, "sub", "inner.txt"), []byte("inner"), 0o644))
	links := map[string]string{
		"link_out":        "../outside",
		"link_abs":        fx.outside,
		"link_secret":     "../outside/secret.txt",
		"link_victim":     "../outside/victim.txt",
		"link_etc":        "/etc/passwd",
		"link_root":       "/",
		"link_in":         "ok.txt",
		"sub/link_up":     "../../outside",
		"sub/link_parent": "..",
		"loop":            "loop",
		"dev_null":        "/dev/null",
		"link_dotdot":     "sub/link_up",
	}
	for name, target := range links {
		must(os.Symlink(target, filepath.Join(fx.root, name)))
	}
	if runtime.GOOS != "windows" {
		must(syscall.Mkfifo(filepath.Join(fx.root, "fifo"), 0o644))
		l, err := net.Listen("unix", filepath.Join(fx.root, "sock"))
		must(err)
		t.Cleanup(func() { l.Close() })
	}
	if cfg.Root == "" {
		cfg.Root = fx.root
	}
	f, err := platform.NewFiles(cfg)
	must(err)
	t.Cleanup(func() { f.Close() })
	fx.files = f
	fx.tools = map[string]registry.ToolSpec{}
	for _, s := range f.Tools() {
		fx.tools[s.Name] = s
	}
	return fx
}

func (fx *fileFixture) call(t *testing.T, tool string, args any) (json.RawMessage, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	spec, ok := fx.tools[tool]
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	return spec.Run(context.Background(), b)
}

// snapshot records every name, mode and content under dir (symlinks not followed).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := info.Mode().String()
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", dir, err)
	}
	return out
}

// hostilePaths are paths a model might send to get out of the root. refused marks those
// every tool must refuse with ErrPathRefused; the others are odd but local names (they may
// fail, or act inside the root, and must never reach outside).
//
// The last component of a few refused paths is itself a symlink leading out: reading,
// listing or replacing through it is refused, creating a file there fails because the name
// exists, and deleting it unlinks the symlink inside the root (never its target).
func hostilePaths(fx *fileFixture) []hostilePath {
	return []hostilePath{
		{"../outside/secret.txt", true},
		{"..", true},
		{"../", true},
		{"../../", true},
		{"../../../../../../../../etc/passwd", true},
		{"/etc/passwd", true},
		{"/", true},
		{"//etc/passwd", true},
		{fx.outside + "/secret.txt", true},
		{fx.root + "/../outside/secret.txt", true},
		{"sub/../../outside/secret.txt", true},
		{"./../outside/secret.txt", true},
		{"sub/../..", true},
		{"a/b/../../../outside", true},
		{"sub/./../../outside", true},
		{"sub//..//..//outside/secret.txt", true},
		{".//..//outside", true},
		{`..\outside\secret.txt`, true},
		{`sub\..\..\outside`, true},
		{`\etc\passwd`, true},
		{`C:\Windows\win.ini`, true},
		{"c:/windows/win.ini", true},
		{"~/../../etc/passwd", true},
		{"ok.txt\x00../../outside/secret.txt", true},
		{"\x00", true},
		{strings.Repeat("a/", 2100) + "x", true},
		{"link_out/secret.txt", true},
		{"link_out/victim.txt", true},
		{"link_out/dir", true},
		{"link_out/new.txt", true},
		{"link_abs/secret.txt", true},
		{"link_abs/new.txt", true},
		{"link_secret", true},
		{"link_victim", true},
		{"link_etc", true},
		{"link_root/etc/passwd", true},
		{"sub/link_up/secret.txt", true},
		{"sub/link_up/new", true},
		{"sub/link_parent/link_out/secret.txt", true},
		{"sub/link_parent/../outside/secret.txt", true},
		{"link_dotdot/secret.txt", true},
		{"link_out/../link_out/secret.txt", true},
		{"dev_null", true},
		{"loop", true},
		{"....//outside/secret.txt", false},
		{"%2e%2e/outside/secret.txt", false},
		{"%2e%2e%2foutside%2fsecret.txt", false},
		{"..%2foutside", false},
		{"..%c0%afoutside", false},
		{"\u2025/outside/secret.txt", false},
		{"\uff0e\uff0e/outside/secret.txt", false},
		{"~root/.ssh/id_rsa", false},
		{"$HOME/.ssh/id_rsa", false},
		{" ../outside/secret.txt", false},
	}
}

type hostilePath struct {
	path    string
	refused bool
}

// finalLinks are the fixture's symlinks named as the last component of a hostile path.
var finalLinks = map[string]bool{"link_secret": true, "link_victim": true, "link_etc": true, "dev_null": true, "loop": true}

// wantRefused reports whether err is what a hostile call should get: ErrPathRefused, or
// for a final-component symlink, ErrExists from a create, or success from a delete.
func wantRefused(p, tool string, args map[string]any, err error) bool {
	if errors.Is(err, platform.ErrPathRefused) {
		return true
	}
	if !finalLinks[p] {
		return false
	}
	switch {
	case tool == platform.ToolDeleteFile:
		return err == nil
	case tool == platform.ToolWriteFile && args["append"] == nil && args["overwrite"] == nil:
		return errors.Is(err, platform.ErrExists)
	}
	return false
}

func TestFilesHostilePaths(t *testing.T) {
	// The absolute paths among the cases point into probe's directories.
	probe := newFileFixture(t, platform.FilesConfig{})
	probeBefore := snapshot(t, probe.outside)
	cases := hostilePaths(probe)
	if len(cases) < 40 {
		t.Fatalf("only %d hostile paths; the bar is 40", len(cases))
	}
	calls := func(p string) []struct {
		tool string
		args map[string]any
	} {
		return []struct {
			tool string
			args map[string]any
		}{
			{platform.ToolReadFile, map[string]any{"path": p}},
			{platform.ToolListDirectory, map[string]any{"path": p}},
			{platform.ToolWriteFile, map[string]any{"path": p, "content": "pwned"}},
			{platform.ToolWriteFile, map[string]any{"path": p, "content": "pwned", "append": true}},
			{platform.ToolWriteFile, map[string]any{"path": p, "content": "pwned", "overwrite": true}},
			{platform.ToolCreateDirectory, map[string]any{"path": p}},
			{platform.ToolDeleteFile, map[string]any{"path": p}},
		}
	}
	var probes int
	for _, tc := range cases {
		t.Run(strings.ToValidUTF8(truncName(tc.path), "?"), func(t *testing.T) {
			fx := newFileFixture(t, platform.FilesConfig{AllowOverwrite: true})
			before := snapshot(t, fx.outside)
			for _, c := range calls(tc.path) {
				probes++
				out, err := fx.call(t, c.tool, c.args)
				if tc.refused && !wantRefused(tc.path, c.tool, c.args, err) {
					t.Errorf("%s %v: err = %v, want ErrPathRefused (out %s)", c.tool, c.args, err, out)
				}
				for _, leak := range []string{secret, "root:x:0:0"} {
					if strings.Contains(string(out), leak) || (err != nil && strings.Contains(err.Error(), leak)) {
						t.Errorf("%s %q leaked %q: %s %v", c.tool, tc.path, leak, out, err)
					}
				}
				if err != nil && strings.Contains(err.Error(), fx.dir) && !strings.Contains(tc.path, fx.dir) {
					t.Errorf("%s %q: error reveals the root's location: %v", c.tool, tc.path, err)
				}
				if diff := cmp.Diff(before, snapshot(t, fx.outside)); diff != "" {
					t.Fatalf("%s %q changed the outside directory (-before +after):\n%s", c.tool, tc.path, diff)
				}
			}
		})
	}
	if diff := cmp.Diff(probeBefore, snapshot(t, probe.outside)); diff != "" {
		t.Fatalf("the probe's outside directory changed (-before +after):\n%s", diff)
	}
	t.Logf("%d hostile paths, %d tool calls, 0 escapes", len(cases), probes)
}

func truncName(s string) string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// TestFilesSymlinkRace swaps a directory inside the root for a symlink to the outside while
// the tools work through it: os.Root resolves every component relative to the root, so no
// call ever reads, lists, writes, creates or deletes outside.
func TestFilesSymlinkRace(t *testing.T) {
	fx := newFileFixture(t, platform.FilesConfig{AllowOverwrite: true})
	if err := os.WriteFile(filepath.Join(fx.outside, "outside-only.txt"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, fx.outside)
	race := filepath.Join(fx.root, "race")
	stop := make(chan struct{})
	var flips atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.RemoveAll(race)
			if os.Symlink(fx.outside, race) == nil {
				flips.Add(1)
			}
			os.Remove(race)
			if os.Mkdir(race, 0o755) == nil {
				os.WriteFile(filepath.Join(race, "secret.txt"), []byte("inside"), 0o644)
				os.WriteFile(filepath.Join(race, "victim.txt"), []byte("inside"), 0o644)
			}
		}
	}()
	const rounds = 400
	for i := 0; i < rounds; i++ {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{platform.ToolReadFile, map[string]any{"path": "race/secret.txt"}},
			{platform.ToolListDirectory, map[string]any{"path": "race"}},
			{platform.ToolWriteFile, map[string]any{"path": "race/new.txt", "content": "pwned"}},
			{platform.ToolWriteFile, map[string]any{"path": "race/secret.txt", "content": "pwned", "overwrite": true}},
			{platform.ToolCreateDirectory, map[string]any{"path": "race/newdir/deeper"}},
			{platform.ToolDeleteFile, map[string]any{"path": "race/victim.txt"}},
		} {
			out, err := fx.call(t, c.tool, c.args)
			if strings.Contains(string(out), secret) || strings.Contains(string(out), "outside-only") {
				t.Fatalf("%s %v read outside the root: %s", c.tool, c.args, out)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Fatalf("%s leaked: %v", c.tool, err)
			}
		}
	}
	close(stop)
	wg.Wait()
	if diff := cmp.Diff(before, snapshot(t, fx.outside)); diff != "" {
		t.Fatalf("the outside directory changed (-before +after):\n%s", diff)
	}
	if flips.Load() == 0 {
		t.Fatal("the racing goroutine never created the symlink; the test proved nothing")
	}
	t.Logf("%d rounds against %d symlink flips: 0 escapes", rounds, flips.Load())
}

func TestFilesSpecialFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or unix sockets")
	}
	fx := newFileFixture(t, platform.FilesConfig{AllowOverwrite: true})
	names := []string{"fifo", "sock"}
	if err := syscall.Mknod(filepath.Join(fx.root, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		names = append(names, "null")
	} else {
		t.Logf("device node not created (%v): devices checked through the dev_null symlink only", err)
	}
	for _, name := range names {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{platform.ToolReadFile, map[string]any{"path": name}},
			{platform.ToolWriteFile, map[string]any{"path": name, "content": "x", "append": true}},
			{platform.ToolWriteFile, map[string]any{"path": name, "content": "x", "overwrite": true}},
			{platform.ToolListDirectory, map[string]any{"path": name}},
		} {
			_, err := fx.call(t, c.tool, c.args)
			if !errors.Is(err, platform.ErrNotRegular) {
				t.Errorf("%s %s: err = %v, want ErrNotRegular", c.tool, name, err)
			}
		}
	}
}

func TestFilesOperations(t *testing.T) {
	fx := newFileFixture(t, platform.FilesConfig{MaxReadBytes: 8, MaxWriteBytes: 16, MaxListEntries: 3})
	steps := []struct {
		name    string
		tool    string
		args    map[string]any
		want    string
		wantErr error
	}{
		{"read", platform.ToolReadFile, map[string]any{"path": "ok.txt"}, `{"path":"ok.txt","size":5,"content":"hello","encoding":"utf-8"}`, nil},
		{"read through an inside symlink", platform.ToolReadFile, map[string]any{"path": "link_in"}, `{"path":"link_in","size":5,"content":"hello","encoding":"utf-8"}`, nil},
		{"read a missing file", platform.ToolReadFile, map[string]any{"path": "nope.txt"}, "", platform.ErrNotFound},
		{"read a directory", platform.ToolReadFile, map[string]any{"path": "sub"}, "", platform.ErrNotRegular},
		{"create", platform.ToolWriteFile, map[string]any{"path": "sub/new.txt", "content": "0123456789"}, `{"path":"sub/new.txt","bytes_written":10,"size":10,"created":true}`, nil},
		{"read is cut at the limit", platform.ToolReadFile, map[string]any{"path": "sub/new.txt"}, `{"path":"sub/new.txt","size":10,"content":"01234567","encoding":"utf-8","truncated":true}`, nil},
		{"read max_bytes", platform.ToolReadFile, map[string]any{"path": "sub/new.txt", "max_bytes": 3}, `{"path":"sub/new.txt","size":10,"content":"012","encoding":"utf-8","truncated":true}`, nil},
		{"create refuses an existing file", platform.ToolWriteFile, map[string]any{"path": "sub/new.txt", "content": "x"}, "", platform.ErrExists},
		{"overwrite needs AllowOverwrite", platform.ToolWriteFile, map[string]any{"path": "sub/new.txt", "content": "x", "overwrite": true}, "", platform.ErrExists},
		{"append", platform.ToolWriteFile, map[string]any{"path": "sub/new.txt", "content": "ab", "append": true}, `{"path":"sub/new.txt","bytes_written":2,"size":12,"created":false}`, nil},
		{"append past the cap", platform.ToolWriteFile, map[string]any{"path": "sub/new.txt", "content": "abcde", "append": true}, "", platform.ErrTooLarge},
		{"write over the cap", platform.ToolWriteFile, map[string]any{"path": "big.txt", "content": strings.Repeat("x", 17)}, "", platform.ErrTooLarge},
		{"write in a missing directory", platform.ToolWriteFile, map[string]any{"path": "nodir/x.txt", "content": "x"}, "", platform.ErrNotFound},
		{"binary base64", platform.ToolWriteFile, map[string]any{"path": "bin", "content": "/wA=", "encoding": "base64"}, `{"path":"bin","bytes_written":2,"size":2,"created":true}`, nil},
		{"binary read back", platform.ToolReadFile, map[string]any{"path": "bin"}, `{"path":"bin","size":2,"content":"/wA=","encoding":"base64"}`, nil},
		{"mkdir with parents", platform.ToolCreateDirectory, map[string]any{"path": "a/b/c"}, `{"path":"a/b/c","created":true}`, nil},
		{"mkdir again", platform.ToolCreateDirectory, map[string]any{"path": "a/b/c"}, `{"path":"a/b/c","created":false}`, nil},
		{"mkdir over a file", platform.ToolCreateDirectory, map[string]any{"path": "ok.txt/x"}, "", platform.ErrExists},
		{"list is sorted and capped", platform.ToolListDirectory, map[string]any{"path": ""}, `{"path":".","entries":[{"name":"a","type":"directory"},{"name":"bin","type":"file","size":2},{"name":"dev_null","type":"symlink"}],"truncated":true}`, nil},
		{"list sub", platform.ToolListDirectory, map[string]any{"path": "sub"}, `{"path":"sub","entries":[{"name":"inner.txt","type":"file","size":5},{"name":"link_parent","type":"symlink"},{"name":"link_up","type":"symlink"}],"truncated":true}`, nil},
		{"delete a non-empty directory", platform.ToolDeleteFile, map[string]any{"path": "a/b"}, "", nil},
		{"delete a file", platform.ToolDeleteFile, map[string]any{"path": "sub/new.txt"}, `{"path":"sub/new.txt","deleted":true}`, nil},
		{"delete it again", platform.ToolDeleteFile, map[string]any{"path": "sub/new.txt"}, "", platform.ErrNotFound},
		{"delete an outside symlink removes the link only", platform.ToolDeleteFile, map[string]any{"path": "link_secret"}, `{"path":"link_secret","deleted":true}`, nil},
		{"delete the root", platform.ToolDeleteFile, map[string]any{"path": "."}, "", platform.ErrPathRefused},
	}
	for _, s := range steps {
		out, err := fx.call(t, s.tool, s.args)
		switch {
		case s.name == "delete a non-empty directory":
			if err == nil || !strings.Contains(err.Error(), "not empty") {
				t.Errorf("%s: err = %v, want a not-empty error", s.name, err)
			}
		case s.wantErr != nil:
			if !errors.Is(err, s.wantErr) {
				t.Errorf("%s: err = %v, want %v", s.name, err, s.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", s.name, err)
		default:
			if diff := cmp.Diff(s.want, string(out)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", s.name, diff)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(fx.outside, "secret.txt")); err != nil || string(b) != secret {
		t.Errorf("outside secret after deleting the symlink: %q, %v", b, err)
	}
}

func TestFilesOverwrite(t *testing.T) {
	fx := newFileFixture(t, platform.FilesConfig{AllowOverwrite: true})
	if !fx.tools[platform.ToolWriteFile].NeedsConfirmation() {
		t.Error("write_file with AllowOverwrite does not need confirmation")
	}
	out, err := fx.call(t, platform.ToolWriteFile, map[string]any{"path": "ok.txt", "content": "bye", "overwrite": true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"path":"ok.txt","bytes_written":3,"size":3,"created":false}`, string(out)); diff != "" {
		t.Errorf("overwrite (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.root, "ok.txt")); string(b) != "bye" {
		t.Errorf("content = %q, want bye", b)
	}
}

func TestFilesSpecs(t *testing.T) {
	fx := newFileFixture(t, platform.FilesConfig{})
	reg := registry.New()
	type flags struct {
		Name                string
		ReadOnly, Confirm   bool
		Category            registry.Category
		HasRequiredPathProp bool
	}
	var got []flags
	for _, s := range fx.files.Tools() {
		if err := reg.Register(s); err != nil {
			t.Fatalf("register %s: %v", s.Name, err)
		}
		got = append(got, flags{s.Name, s.ReadOnly, s.NeedsConfirmation(), s.Category, strings.Contains(string(s.Parameters), `"path"`)})
	}
	want := []flags{
		{platform.ToolReadFile, true, false, registry.CategoryFile, true},
		{platform.ToolWriteFile, false, false, registry.CategoryFile, true},
		{platform.ToolListDirectory, true, false, registry.CategoryFile, true},
		{platform.ToolCreateDirectory, false, false, registry.CategoryFile, true},
		{platform.ToolDeleteFile, false, true, registry.CategoryFile, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("specs (-want +got):\n%s", diff)
	}
	if _, err := platform.NewFiles(platform.FilesConfig{}); !errors.Is(err, platform.ErrInvalidConfig) {
		t.Errorf("NewFiles without a root: %v, want ErrInvalidConfig", err)
	}
	if _, err := platform.NewFiles(platform.FilesConfig{Root: filepath.Join(fx.root, "ok.txt")}); !errors.Is(err, platform.ErrInvalidConfig) {
		t.Errorf("NewFiles on a file: %v, want ErrInvalidConfig", err)
	}
	if err := fx.files.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fx.files.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := fx.call(t, platform.ToolReadFile, map[string]any{"path": "ok.txt"}); err == nil {
		t.Error("read after Close succeeded")
	}
}

func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(strings.Repeat("note ", 200)), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := platform.NewFiles(platform.FilesConfig{Root: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	run := f.Tools()[0].Run
	args := json.RawMessage(`{"path":"notes.txt"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := run(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFilesHardLink: a hard link inside the root to a file outside is neither read nor
// written through (append, overwrite); the outside file stays as it was, and deleting the
// link removes only the link.
func TestFilesHardLink(t *testing.T) {
	fx := newFileFixture(t, platform.FilesConfig{AllowOverwrite: true})
	if err := os.Link(filepath.Join(fx.outside, "victim.txt"), filepath.Join(fx.root, "hard.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := os.Link(filepath.Join(fx.outside, "secret.txt"), filepath.Join(fx.root, "sub", "hard.txt")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, fx.outside)
	tests := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"read", platform.ToolReadFile, map[string]any{"path": "hard.txt"}},
		{"read in a subdirectory", platform.ToolReadFile, map[string]any{"path": "sub/hard.txt"}},
		{"append", platform.ToolWriteFile, map[string]any{"path": "hard.txt", "content": " appended", "append": true}},
		{"overwrite", platform.ToolWriteFile, map[string]any{"path": "hard.txt", "content": "replaced", "overwrite": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := fx.call(t, tt.tool, tt.args)
			if !errors.Is(err, platform.ErrPathRefused) || !strings.Contains(err.Error(), "hard links") {
				t.Fatalf("got %s, %v; want a refusal naming the hard links", out, err)
			}
			if strings.Contains(string(out)+err.Error(), secret) {
				t.Errorf("the outside file's content showed: %s %v", out, err)
			}
		})
	}
	if _, err := fx.call(t, platform.ToolReadFile, map[string]any{"path": "ok.txt"}); err != nil {
		t.Errorf("a file with one name: %v", err)
	}
	if _, err := fx.call(t, platform.ToolDeleteFile, map[string]any{"path": "hard.txt"}); err != nil {
		t.Errorf("deleting the link: %v", err)
	}
	if diff := cmp.Diff(before, snapshot(t, fx.outside)); diff != "" {
		t.Errorf("outside changed (-want +got):\n%s", diff)
	}
}

// deepPath is a relative path of n components "d".
func deepPath(n int) string {
	return strings.TrimSuffix(strings.Repeat("d/", n), "/")
}

// TestCreateDirectoryDeep: create_directory makes 2,000 levels in one call, says whether it
// created anything, and refuses a FIFO or a file on the way without opening it.
func TestCreateDirectoryDeep(t *testing.T) {
	fx := newFileFixture(t, platform.FilesConfig{})
	deep := deepPath(2000)
	tests := []struct {
		name    string
		path    string
		want    string // JSON result; "" when an error is wanted
		wantErr error
	}{
		{"2,000 levels", "new/" + deep, `{"path":"new/` + deep + `","created":true}`, nil},
		{"again", "new/" + deep, `{"path":"new/` + deep + `","created":false}`, nil},
		{"one more level", "new/" + deep + "/e", `{"path":"new/` + deep + `/e","created":true}`, nil},
		{"through a FIFO", "fifo/x/y", "", platform.ErrExists},
		{"through a file", "ok.txt/x", "", platform.ErrExists},
		{"over a file", "ok.txt", "", platform.ErrExists},
		{"through a symlink out", "link_out/x", "", platform.ErrPathRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := fx.call(t, platform.ToolCreateDirectory, map[string]any{"path": tt.path})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("got %s, %v; want %v", out, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if fi, err := os.Stat(filepath.Join(fx.root, "new", deep, "e")); err != nil || !fi.IsDir() {
		t.Errorf("the deepest directory: %v, %v", fi, err)
	}
}

// BenchmarkCreateDirectoryDepth creates a fresh tree of each depth per iteration: with
// os.Root.MkdirAll (Go 1.25) the time per operation grows at most in step with the depth;
// resolving every prefix from the root again grew with its square (2,000 levels: 75 ms
// against 2.5 s here).
func BenchmarkCreateDirectoryDepth(b *testing.B) {
	for _, depth := range []int{250, 500, 1000, 2000} {
		b.Run(strconv.Itoa(depth), func(b *testing.B) {
			root := b.TempDir()
			f, err := platform.NewFiles(platform.FilesConfig{Root: root})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			var spec registry.ToolSpec
			for _, s := range f.Tools() {
				if s.Name == platform.ToolCreateDirectory {
					spec = s
				}
			}
			deep := deepPath(depth)
			i := 0
			for b.Loop() {
				args, _ := json.Marshal(map[string]string{"path": "t" + strconv.Itoa(i) + "/" + deep})
				i++
				if _, err := spec.Run(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
