package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/registry"
)

func nop(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }

func TestRegister(t *testing.T) {
	tests := []struct {
		name string
		spec registry.ToolSpec
		want error
	}{
		{"ok", registry.ToolSpec{Name: "search_knowledge", Run: nop, Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}, nil},
		{"no parameters", registry.ToolSpec{Name: "list_directory", Run: nop}, nil},
		{"empty name", registry.ToolSpec{Run: nop}, registry.ErrInvalidTool},
		{"name with spaces", registry.ToolSpec{Name: "read file", Run: nop}, registry.ErrInvalidTool},
		{"name too long", registry.ToolSpec{Name: strings.Repeat("a", 65), Run: nop}, registry.ErrInvalidTool},
		{"nil run", registry.ToolSpec{Name: "x"}, registry.ErrInvalidTool},
		{"schema not JSON", registry.ToolSpec{Name: "x", Run: nop, Parameters: json.RawMessage(`{"type":`)}, registry.ErrInvalidTool},
		{"schema not an object", registry.ToolSpec{Name: "x", Run: nop, Parameters: json.RawMessage(`{"type":"string"}`)}, registry.ErrInvalidTool},
		{"remote ref", registry.ToolSpec{Name: "x", Run: nop, Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"http://evil.example/s.json"}}}`)}, registry.ErrInvalidTool},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := registry.New()
			err := r.Register(tt.spec)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Register = %v, want %v", err, tt.want)
			}
			if tt.want != nil && r.Len() != 0 {
				t.Errorf("failed Register left %d tools", r.Len())
			}
		})
	}
	r := registry.New()
	r.MustRegister(registry.ToolSpec{Name: "a", Run: nop})
	if err := r.Register(registry.ToolSpec{Name: "a", Run: nop}); !errors.Is(err, registry.ErrDuplicate) {
		t.Errorf("duplicate: %v, want ErrDuplicate", err)
	}
}

func TestRegistryListing(t *testing.T) {
	r := registry.New()
	for _, s := range []registry.ToolSpec{
		{Name: "write_file", Category: registry.CategoryFile, Security: registry.SecurityMedium, Run: nop},
		{Name: "read_file", Category: registry.CategoryFile, ReadOnly: true, Run: nop},
		{Name: "http_request", Category: registry.CategoryHTTP, Run: nop},
		{Name: "execute_command", Category: registry.CategoryShell, Security: registry.SecurityHigh, Run: nop},
		{Name: "old_tool", Inactive: true, Run: nop},
	} {
		r.MustRegister(s)
	}
	names := func(ts []registry.ToolSpec) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	fnames := func(cats ...registry.Category) []string {
		var out []string
		for _, f := range r.Functions(cats...) {
			out = append(out, f.Name)
		}
		return out
	}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"all", names(r.All(false)), []string{"execute_command", "http_request", "old_tool", "read_file", "write_file"}},
		{"active", names(r.All(true)), []string{"execute_command", "http_request", "read_file", "write_file"}},
		{"by category", names(r.ByCategory(registry.CategoryFile)), []string{"read_file", "write_file"}},
		{"functions", fnames(), []string{"execute_command", "http_request", "read_file", "write_file"}},
		{"functions of categories", fnames(registry.CategoryHTTP, registry.CategoryShell), []string{"execute_command", "http_request"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if err := r.SetActive("old_tool", true); err != nil {
		t.Fatal(err)
	}
	if len(r.All(true)) != 5 {
		t.Errorf("SetActive did not reactivate")
	}
	cmd, _ := r.Get("execute_command")
	if !cmd.NeedsConfirmation() || cmd.Retryable() {
		t.Errorf("high-security tool: confirmation %v, retryable %v", cmd.NeedsConfirmation(), cmd.Retryable())
	}
	if err := r.Unregister("nope"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("Unregister unknown: %v", err)
	}
	fn, _ := r.Function("read_file")
	out, err := fn.OpenAI(false)
	if err != nil || !strings.Contains(string(out), `"name":"read_file"`) {
		t.Errorf("OpenAI export %s, %v", out, err)
	}
}

func TestRegistryConcurrent(t *testing.T) {
	r := registry.New()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				name := fmt.Sprintf("t_%d_%d", i, j)
				if err := r.Register(registry.ToolSpec{Name: name, Run: nop}); err != nil {
					t.Error(err)
				}
				r.Get(name)
				r.All(true)
				r.Functions()
			}
		}()
	}
	wg.Wait()
	if r.Len() != 400 {
		t.Errorf("Len = %d, want 400", r.Len())
	}
}

type weatherIn struct {
	City  string `json:"city" jsonschema:"description=City name"`
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial"`
	Days  int    `json:"days,omitempty"`
}

type weatherOut struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
	Days  int     `json:"days"`
}

func TestTyped(t *testing.T) {
	spec, err := registry.Typed(registry.ToolSpec{Name: "get_weather", Description: "Current weather.", ReadOnly: true},
		func(ctx context.Context, in weatherIn) (weatherOut, error) {
			if in.City == "Atlantis" {
				return weatherOut{}, errors.New("no such city")
			}
			return weatherOut{City: in.City, TempC: 21.5, Days: in.Days}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	r := registry.New()
	if err := r.Register(spec); err != nil {
		t.Fatalf("register typed: %v", err)
	}
	v, _ := r.Validator("get_weather")
	tests := []struct {
		name    string
		args    string
		valid   bool
		want    string
		wantErr bool
	}{
		{name: "ok", args: `{"city":"Paris","days":2}`, valid: true, want: `{"city":"Paris","temp_c":21.5,"days":2}`},
		{name: "missing city", args: `{"days":2}`},
		{name: "bad enum", args: `{"city":"Paris","units":"kelvin"}`},
		{name: "unknown field", args: `{"city":"Paris","country":"FR"}`},
		{name: "tool error", args: `{"city":"Atlantis"}`, valid: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(json.RawMessage(tt.args))
			if (err == nil) != tt.valid {
				t.Fatalf("Validate = %v, want valid %v", err, tt.valid)
			}
			if !tt.valid {
				return
			}
			out, err := spec.Run(context.Background(), json.RawMessage(tt.args))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Run error %v", err)
			}
			if tt.want != "" {
				if diff := cmp.Diff(tt.want, string(out)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
	if _, err := registry.Typed(registry.ToolSpec{Name: "bad"}, func(context.Context, string) (string, error) { return "", nil }); !errors.Is(err, registry.ErrInvalidTool) {
		t.Errorf("Typed with a non-struct input: %v, want ErrInvalidTool", err)
	}
}
