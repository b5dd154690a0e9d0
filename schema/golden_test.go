package schema_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

type goldenInput struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Hidden      []string        `json:"hidden"`
	Parameters  json.RawMessage `json:"parameters"`
}

// TestGolden renders every case in testdata/golden in every dialect and compares with the
// checked-in output. Run with -update to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "input.json"))
			if err != nil {
				t.Fatal(err)
			}
			var in goldenInput
			if err := json.Unmarshal(raw, &in); err != nil {
				t.Fatal(err)
			}
			f, err := schema.Convert(in.Name, in.Description, in.Parameters, schema.ConvertOptions{Hidden: in.Hidden})
			if err != nil {
				t.Fatalf("convert: %v", err)
			}
			for _, d := range []struct {
				file   string
				render func() (json.RawMessage, error)
			}{
				{"openai.json", func() (json.RawMessage, error) { return f.OpenAI(false) }},
				{"openai_strict.json", func() (json.RawMessage, error) { return f.OpenAI(true) }},
				{"openai_responses.json", func() (json.RawMessage, error) { return f.OpenAIResponses(true) }},
				{"anthropic.json", f.Anthropic},
				{"gemini.json", f.Gemini},
			} {
				out, err := d.render()
				if err != nil {
					t.Fatalf("%s: %v", d.file, err)
				}
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, out, "", "  "); err != nil {
					t.Fatalf("%s: output is not JSON: %v", d.file, err)
				}
				pretty.WriteByte('\n')
				compareGolden(t, filepath.Join(dir, d.file), pretty.Bytes())
			}
			meta := map[string]any{"name": f.Name, "strict_reason": f.StrictReason, "hidden": f.Hidden}
			mb, _ := json.MarshalIndent(meta, "", "  ")
			compareGolden(t, filepath.Join(dir, "function.json"), append(mb, '\n'))
			if p, ok := f.StrictParameters(); ok {
				if problems := checkStrict(p); len(problems) > 0 {
					t.Errorf("strict output breaks OpenAI's rules: %s", strings.Join(problems, "; "))
				}
			}
			g, _ := f.Gemini()
			if problems := checkGemini(g); len(problems) > 0 {
				t.Errorf("gemini output breaks the subset: %s", strings.Join(problems, "; "))
			}
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
