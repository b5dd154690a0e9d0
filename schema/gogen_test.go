package schema_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/schema"
)

// TestGenerateGo generates structs for the golden cases, builds them with the Go toolchain in
// a temporary module, and round-trips sample arguments: JSON -> struct -> JSON, which must
// still validate against the schema.
func TestGenerateGo(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	var types []schema.GoType
	var checks []string
	args := map[string]json.RawMessage{}
	params := map[string]json.RawMessage{}
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, "input.json"))
		if err != nil {
			t.Fatal(err)
		}
		var in goldenInput
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatal(err)
		}
		types = append(types, schema.GoType{Action: in.Name, Description: in.Description, Parameters: in.Parameters})
		a, err := os.ReadFile(filepath.Join(dir, "args.json"))
		if err != nil {
			continue
		}
		args[in.Name] = a
		params[in.Name] = in.Parameters
		checks = append(checks, in.Name)
	}
	src, err := schema.GenerateGo(schema.GoConfig{Package: "main", Types: types})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type MailerSendEmailParams struct", "Subject string `json:\"subject\"`", "Priority *int64 `json:\"priority,omitempty\"`",
		"type TrackerCreateIssueParamsState string", "TrackerCreateIssueParamsStateTriaged TrackerCreateIssueParamsState = \"triaged\"",
		"Project TrackerCreateIssueParamsProject `json:\"project\"`", "CustomFields map[string]string", "type Section struct"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated source lacks %q", want)
		}
	}
	if len(checks) == 0 {
		t.Fatal("no golden case has args.json")
	}
	if testing.Short() {
		t.Skip("building generated code skipped in -short mode")
	}
	dir := t.TempDir()
	var main strings.Builder
	main.WriteString("package main\n\nimport (\n\t\"encoding/json\"\n\t\"os\"\n\t\"bytes\"\n)\n\nfunc roundTrip[T any](in string) string {\n\tvar v T\n\tdec := json.NewDecoder(bytes.NewReader([]byte(in)))\n\tdec.DisallowUnknownFields()\n\tif err := dec.Decode(&v); err != nil {\n\t\tpanic(err)\n\t}\n\tout, err := json.Marshal(v)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\treturn string(out)\n}\n\nfunc main() {\n\tout := map[string]string{}\n")
	for _, slug := range checks {
		typ := goTypeName(slug)
		main.WriteString("\tout[" + quote(slug) + "] = roundTrip[" + typ + "](" + quote(string(args[slug])) + ")\n")
	}
	main.WriteString("\tjson.NewEncoder(os.Stdout).Encode(out)\n}\n")
	files := map[string]string{
		"go.mod":       "module gentest\n\ngo 1.24\n",
		"params.go":    string(src),
		"roundtrip.go": main.String(),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to build the generated code: %v", err)
	}
	cmd := exec.Command(goBin, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("generated code does not build or run: %v\n%s\n%s", err, ee.Stderr, src)
		}
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("round-trip output: %v: %s", err, out)
	}
	for _, slug := range checks {
		v, err := schema.Compile(params[slug])
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Validate(args[slug]); err != nil {
			t.Errorf("%s: sample args.json is itself invalid: %v", slug, err)
		}
		if err := v.Validate(json.RawMessage(got[slug])); err != nil {
			t.Errorf("%s: round-tripped %s does not validate: %v", slug, got[slug], err)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// goTypeName mirrors the generator's naming for the slugs used here.
func goTypeName(slug string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.ToLower(slug), "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String() + "Params"
}

// TestGenerateGoNames checks the Go names given to properties: Go initialisms in one case,
// words split at separators and case changes.
func TestGenerateGoNames(t *testing.T) {
	tests := []struct{ property, want string }{
		{"is_html", "IsHTML"},
		{"userId", "UserID"},
		{"user_id", "UserID"},
		{"html_url", "HTMLURL"},
		{"HTMLBody", "HTMLBody"},
		{"apiKey", "APIKey"},
		{"raw_json", "RawJSON"},
		{"callback_url", "CallbackURL"},
		{"ID", "ID"},
		{"page-size", "PageSize"},
		{"$count", "Count"},
		{"2fa", "X2fa"},
		{"utf8Text", "UTF8Text"},
		{"identity", "Identity"},
		{"PAGE_TOKEN", "PageToken"},
	}
	for _, tt := range tests {
		t.Run(tt.property, func(t *testing.T) {
			params := json.RawMessage(`{"type":"object","properties":{` + quote(tt.property) + `:{"type":"string"}},"required":[` + quote(tt.property) + `]}`)
			src, err := schema.GenerateGo(schema.GoConfig{Package: "p", Types: []schema.GoType{{Action: "APP_GET_USER_ID", Parameters: params}}})
			if err != nil {
				t.Fatal(err)
			}
			field := "\t" + tt.want + " string `json:" + quote(tt.property) + "`"
			if !strings.Contains(string(src), field) {
				t.Errorf("generated source lacks %q:\n%s", field, src)
			}
			if !strings.Contains(string(src), "type AppGetUserIDParams struct") {
				t.Errorf("generated source lacks the type AppGetUserIDParams:\n%s", src)
			}
		})
	}
}
