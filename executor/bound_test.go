package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/registry/platform"
)

// maxModelError is the bar for what a model is told of a failure.
const maxModelError = 4 << 10

// TestErrorsBounded: a failure caused by huge model-written input (an argument key, a tool,
// app or call id name) or a tool's huge error is told to the model in a few KB that still
// name the refused thing short and say what to do.
func TestErrorsBounded(t *testing.T) {
	key := strings.Repeat("k", 1<<20)
	name := strings.Repeat("n", 200<<10)
	huge := strings.Repeat("e", 1<<20)
	reg := registry.New()
	reg.MustRegister(registry.ToolSpec{Name: "closed", Description: "A closed schema.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`),
		Run:        func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }})
	reg.MustRegister(registry.ToolSpec{Name: "open", Description: "An open schema.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Run:        func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }})
	reg.MustRegister(registry.ToolSpec{Name: "loud", Description: "Fails at length.",
		Run: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New(huge + " then try again")
		}})
	reg.MustRegister(registry.ToolSpec{Name: "refused", Description: "Refused by a hook.",
		Run: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }})
	ex := mustNew(t, executor.Config{Registry: reg, MaxArgBytes: 4 << 20,
		Before: []executor.BeforeHook{func(_ context.Context, tool executor.Tool, args json.RawMessage) (json.RawMessage, error) {
			if tool.Name == "refused" {
				return nil, errors.New("policy: " + huge)
			}
			return args, nil
		}}})
	defer ex.Close()

	tests := []struct {
		name     string
		call     executor.Call
		wantKind executor.ErrorKind
		want     []string // every one must be in the text
	}{
		{"1 MB unknown key, closed schema", executor.Call{Name: "closed", Arguments: json.RawMessage(`{"text":"x","` + key + `":1}`)},
			executor.KindInvalidArguments, []string{"kkkk…(1048576 bytes)", "Fix the arguments and call closed again."}},
		{"1 MB unknown key, schema failure", executor.Call{Name: "open", Arguments: json.RawMessage(`{"` + key + `":1}`)},
			executor.KindInvalidArguments, []string{"missing required properties: 'text'", "Fix the arguments and call open again."}},
		{"1 MB key in a failing path", executor.Call{Name: "open", Arguments: json.RawMessage(`{"text":{"` + key + `":1}}`)},
			executor.KindInvalidArguments, []string{"/text", "Fix the arguments and call open again."}},
		{"200 KB tool name", executor.Call{Name: name},
			executor.KindUnknownTool, []string{"nnnn…(204800 bytes)", "Call one of the tools you were given"}},
		{"a tool's 1 MB error", executor.Call{Name: "loud"},
			executor.KindToolError, []string{"loud failed: eeee", "bytes cut", "then try again"}},
		{"a hook's 1 MB error", executor.Call{Name: "refused"},
			executor.KindForbidden, []string{"refused was refused by a host policy", "bytes cut"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ex.Execute(context.Background(), tt.call)
			text := r.ForModel()
			if r.OK || r.ErrorKind != tt.wantKind {
				t.Fatalf("got %s (%s), want %s", r.ErrorKind, strings.ToValidUTF8(text[:min(len(text), 300)], "?"), tt.wantKind)
			}
			if len(text) >= maxModelError || len(r.Error) >= maxModelError {
				t.Errorf("ForModel is %d bytes and Error %d, want under %d: %.300s…", len(text), len(r.Error), maxModelError, text)
			}
			if len(r.Tool) > 256 {
				t.Errorf("Tool is %d bytes", len(r.Tool))
			}
			env, err := json.Marshal(r.Envelope())
			if err != nil || len(env) >= 2*maxModelError {
				t.Errorf("envelope: %d bytes, %v", len(env), err)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("%.600s\ndoes not contain %q", text, w)
				}
			}
		})
	}

	t.Run("1 MB unknown key on an open schema is a short notice", func(t *testing.T) {
		r := ex.Execute(context.Background(), executor.Call{Name: "open", Arguments: json.RawMessage(`{"text":"x","` + key + `":1}`)})
		if !r.OK {
			t.Fatalf("failed: %.300s", r.ForModel())
		}
		if text := r.ForModel(); len(text) >= maxModelError || !strings.Contains(text, "…(1048576 bytes)` is not a parameter of open") {
			t.Errorf("%d bytes: %.400s", len(text), text)
		}
	})

	t.Run("200 KB call id repeated in a batch", func(t *testing.T) {
		id := strings.Repeat("i", 200<<10)
		rs := ex.ExecuteBatch(context.Background(), []executor.Call{{ID: id, Name: "open", Arguments: json.RawMessage(`{"text":"x"}`)},
			{ID: id, Name: name}}, executor.BatchOptions{})
		r := rs[1]
		if text := r.ForModel(); r.ErrorKind != executor.KindDuplicateCall || len(text) >= maxModelError || len(r.Tool) > 256 ||
			!strings.Contains(text, "this call was not run") {
			t.Errorf("%s, %d bytes, tool %d bytes: %.300s", r.ErrorKind, len(text), len(r.Tool), text)
		}
	})
}

// TestConnectErrorsBounded: the connection tools name a 200 KB app short.
func TestConnectErrorsBounded(t *testing.T) {
	fx := newConnectFixture(t, executor.Scope{Identity: hint.Identity{AgentID: 1, WorkspaceID: "ws1"}}, true)
	app := strings.Repeat("a", 200<<10)
	for _, tool := range []string{executor.ToolManageConnections, executor.ToolWaitForConnection} {
		t.Run(tool, func(t *testing.T) {
			r := fx.call(t, tool, `{"app":"`+app+`"}`)
			text := r.ForModel()
			if r.OK || len(text) >= 1024 || !strings.Contains(text, "aaaa…(204800 bytes) is not among the apps this agent may use") {
				t.Errorf("%d bytes: %.400s", len(text), text)
			}
		})
	}
}

// TestScrubbedErrorsRead: taking URLs and secrets out of an error leaves a sentence that
// still reads, naming the refused thing short or saying "the URL".
func TestScrubbedErrorsRead(t *testing.T) {
	h, err := platform.NewHTTP(platform.HTTPConfig{})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	reg.MustRegister(h.Tool())
	reg.MustRegister(registry.ToolSpec{Name: "fetch", Description: "Fails naming a URL.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"msg":{"type":"string"}}}`),
		Run: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ Msg string }
			json.Unmarshal(args, &in)
			return nil, errors.New(in.Msg)
		}})
	ex := mustNew(t, executor.Config{Registry: reg})
	defer ex.Close()
	args := func(k, v string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{k: v})
		return b
	}
	tests := []struct {
		name string
		call executor.Call
		want string
	}{
		{"URL that does not parse", executor.Call{Name: platform.ToolHTTPRequest, Arguments: args("url", "http://example.com/%zz?token=SECRET")},
			`http_request failed: platform: request refused: the URL does not parse (invalid URL escape "%zz"); send an absolute http or https URL`},
		{"URL without a scheme", executor.Call{Name: platform.ToolHTTPRequest, Arguments: args("url", "example.com/a?token=SECRET")},
			"http_request failed: platform: request refused: the URL has no scheme; send an absolute http or https URL"},
		{"loopback host", executor.Call{Name: platform.ToolHTTPRequest, Arguments: args("url", "http://localhost/?token=SECRET")},
			`http_request failed: platform: request refused: host "localhost" is this machine`},
		{"a tool's error naming a URL", executor.Call{Name: "fetch", Arguments: args("msg", "fetching https://api.example.com/v1?key=SECRET: 502 bad gateway")},
			"fetch failed: fetching the URL: 502 bad gateway"},
		{"a quoted URL", executor.Call{Name: "fetch", Arguments: args("msg", `"https://api.example.com/?key=SECRET" is not reachable`)},
			"fetch failed: the URL is not reachable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ex.Execute(context.Background(), tt.call)
			if diff := cmp.Diff(tt.want, r.Error); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
