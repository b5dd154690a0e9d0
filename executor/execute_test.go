package executor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
)

func TestExecute(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name     string
		call     executor.Call
		wantOK   bool
		wantKind executor.ErrorKind
		wantData string   // exact JSON when set
		contains []string // substrings of Error (or of ForModel when OK)
	}{
		{name: "ok", call: executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}, wantOK: true, wantData: `{"text":"hi"}`},
		{name: "empty arguments mean {}", call: executor.Call{Name: "noop"}, wantOK: true, wantData: `{}`},
		{name: "null arguments mean {}", call: executor.Call{Name: "noop", Arguments: json.RawMessage(`null`)}, wantOK: true},
		{name: "hallucinated name", call: executor.Call{Name: "ecko"}, wantKind: executor.KindUnknownTool, contains: []string{`no tool named "ecko"`, "echo"}},
		{name: "invalid JSON", call: executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text": "hi"`)}, wantKind: executor.KindInvalidArguments, contains: []string{"not valid JSON", "text (required)"}},
		{name: "array instead of object", call: executor.Call{Name: "echo", Arguments: json.RawMessage(`["hi"]`)}, wantKind: executor.KindInvalidArguments, contains: []string{"must be a JSON object"}},
		{name: "arguments for another tool", call: executor.Call{Name: "echo", Arguments: json.RawMessage(`{"ms":100}`)}, wantKind: executor.KindInvalidArguments, contains: []string{"do not match its schema", "text", "call echo again"}},
		{name: "wrong type", call: executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"a","count":"many"}`)}, wantKind: executor.KindInvalidArguments, contains: []string{"/count"}},
		{name: "oversized arguments", call: executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"` + strings.Repeat("a", executor.DefaultMaxArgBytes) + `"}`)}, wantKind: executor.KindInvalidArguments, contains: []string{"over the limit"}},
		{name: "tool error", call: executor.Call{Name: "fail"}, wantKind: executor.KindToolError, contains: []string{"fail failed: the service said no"}},
		{name: "panic", call: executor.Call{Name: "boom"}, wantKind: executor.KindPanic, contains: []string{"boom", "panicked: nil map write"}},
		{name: "non-JSON output", call: executor.Call{Name: "text"}, wantOK: true, wantData: `"plain <b>text</b>, not JSON"`},
		{name: "destructive without confirmation", call: executor.Call{Name: "delete_everything"}, wantKind: executor.KindNeedsConfirmation, contains: []string{"destructive", "confirmation"}},
		{name: "inactive tool", call: executor.Call{Name: "retired"}, wantKind: executor.KindForbidden, contains: []string{"turned off"}},
		{name: "timeout of a tool that ignores its context", call: executor.Call{Name: "hang"}, wantKind: executor.KindTimeout, contains: []string{"hang did not finish within 50ms"}},
		{name: "timeout of a tool that honours its context", call: executor.Call{Name: "sleep", Arguments: json.RawMessage(`{"ms":5000}`)}, wantKind: executor.KindTimeout, contains: []string{"sleep timed out"}},
	}
	ex := newExec(f, func(c *executor.Config) { c.Timeouts = map[string]time.Duration{"sleep": 30 * time.Millisecond} })
	defer ex.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ex.Execute(context.Background(), tt.call)
			if got.OK != tt.wantOK || got.ErrorKind != tt.wantKind {
				t.Fatalf("OK, kind = %v, %q; want %v, %q (error %q)", got.OK, got.ErrorKind, tt.wantOK, tt.wantKind, got.Error)
			}
			if tt.wantData != "" {
				if diff := cmp.Diff(tt.wantData, string(got.Data)); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
			}
			for _, s := range tt.contains {
				if !strings.Contains(got.Error, s) {
					t.Errorf("error %q does not contain %q", got.Error, s)
				}
			}
			if got.CallID != "call_0" {
				t.Errorf("CallID = %q, want call_0", got.CallID)
			}
			if !got.OK && got.Data != nil {
				t.Errorf("failed result carries data %s", got.Data)
			}
		})
	}
	close(f.release)
}

func TestExecuteStripsRuntimeContext(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name      string
		strip     []string
		args      string
		wantData  string
		wantStrip []string
	}{
		{name: "default list; declared memory is kept", args: `{"text":"a","threadId":"t1","resourceId":"r","memory":"m","runtimeContext":{"x":1}}`,
			wantData: `{"memory":"m","text":"a"}`, wantStrip: []string{"threadId", "resourceId", "runtimeContext"}},
		{name: "nothing to strip keeps bytes", args: `{"text":"a"}`, wantData: `{"text":"a"}`},
		{name: "host list", strip: []string{"sessionId"}, args: `{"text":"a","sessionId":"s"}`, wantData: `{"text":"a"}`, wantStrip: []string{"sessionId"}},
		{name: "empty host list strips nothing", strip: []string{}, args: `{"text":"a","threadId":"t"}`, wantData: `{"text":"a","threadId":"t"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := newExec(f, func(c *executor.Config) { c.StripKeys = tt.strip })
			defer ex.Close()
			got := ex.Execute(context.Background(), executor.Call{Name: "echo", Arguments: json.RawMessage(tt.args)})
			if !got.OK {
				t.Fatalf("not OK: %s", got.Error)
			}
			if diff := cmp.Diff(tt.wantData, string(got.Data)); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStrip, got.Stripped); diff != "" {
				t.Errorf("stripped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExecuteRetries(t *testing.T) {
	tests := []struct {
		name         string
		tool         string
		failures     int32
		confirm      bool
		wantOK       bool
		wantAttempts int
	}{
		{name: "read-only retried until success", tool: "flaky_read", failures: 2, wantOK: true, wantAttempts: 3},
		{name: "read-only gives up after max attempts", tool: "flaky_read", failures: 5, wantOK: false, wantAttempts: 3},
		{name: "write is never retried", tool: "flaky_write", failures: 1, wantOK: false, wantAttempts: 1},
		{name: "destructive is never retried, even idempotent", tool: "flaky_delete", failures: 1, confirm: true, wantOK: false, wantAttempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.flaky.Store(tt.failures)
			ex := newExec(f, func(c *executor.Config) {
				if tt.confirm {
					c.Confirm = func(context.Context, executor.Tool, json.RawMessage) (bool, error) { return true, nil }
				}
			})
			defer ex.Close()
			got := ex.Execute(context.Background(), executor.Call{Name: tt.tool})
			if got.OK != tt.wantOK || got.Attempts != tt.wantAttempts || f.count(tt.tool) != tt.wantAttempts {
				t.Errorf("OK=%v attempts=%d runs=%d; want OK=%v attempts=%d (error %q)", got.OK, got.Attempts, f.count(tt.tool), tt.wantOK, tt.wantAttempts, got.Error)
			}
		})
	}
}

func TestExecuteHooksAndConfirmation(t *testing.T) {
	f := newFixture(t)
	var confirmed []string
	var mu sync.Mutex
	ex := newExec(f, func(c *executor.Config) {
		c.Confirm = func(_ context.Context, tool executor.Tool, args json.RawMessage) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			confirmed = append(confirmed, tool.Name)
			return bytes.Contains(args, []byte(`"yes"`)), nil
		}
		c.Before = []executor.BeforeHook{
			func(_ context.Context, tool executor.Tool, args json.RawMessage) (json.RawMessage, error) {
				if tool.Name == "echo" {
					return json.RawMessage(`{"text":"rewritten"}`), nil
				}
				return nil, nil
			},
			func(_ context.Context, tool executor.Tool, args json.RawMessage) (json.RawMessage, error) {
				if bytes.Contains(args, []byte("forbidden")) {
					return nil, errors.New("policy: no forbidden words")
				}
				return nil, nil
			},
		}
		c.After = []executor.AfterHook{func(_ context.Context, tool executor.Tool, res *executor.Result) {
			if tool.Name == "echo" {
				res.Data = json.RawMessage(`{"redacted":true}`)
			}
		}}
	})
	defer ex.Close()
	tests := []struct {
		name     string
		call     executor.Call
		wantOK   bool
		wantKind executor.ErrorKind
		wantData string
	}{
		{name: "before rewrites, after redacts", call: executor.Call{Name: "echo", Arguments: json.RawMessage(`{"text":"orig"}`)}, wantOK: true, wantData: `{"redacted":true}`},
		{name: "before refuses", call: executor.Call{Name: "noop", Arguments: json.RawMessage(`{"note":"forbidden"}`)}, wantKind: executor.KindForbidden},
		{name: "confirmation denied", call: executor.Call{Name: "delete_everything", Arguments: json.RawMessage(`{"really":"no"}`)}, wantKind: executor.KindNeedsConfirmation},
		{name: "confirmation given", call: executor.Call{Name: "delete_everything", Arguments: json.RawMessage(`{"really":"yes"}`)}, wantOK: true, wantData: `{"really":"yes"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ex.Execute(context.Background(), tt.call)
			if got.OK != tt.wantOK || got.ErrorKind != tt.wantKind {
				t.Fatalf("OK, kind = %v, %q; want %v, %q (%s)", got.OK, got.ErrorKind, tt.wantOK, tt.wantKind, got.Error)
			}
			if tt.wantData != "" {
				if diff := cmp.Diff(tt.wantData, string(got.Data)); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
			}
		})
	}
	if diff := cmp.Diff([]string{"delete_everything", "delete_everything"}, confirmed); diff != "" {
		t.Errorf("confirm calls (-want +got):\n%s", diff)
	}
	if n := f.count("delete_everything"); n != 1 {
		t.Errorf("delete_everything ran %d times, want 1", n)
	}
}

func TestExecuteTruncates(t *testing.T) {
	f := newFixture(t)
	ex := newExec(f, nil)
	defer ex.Close()
	got := ex.Execute(context.Background(), executor.Call{Name: "big"})
	if !got.OK || !got.Truncated {
		t.Fatalf("OK=%v truncated=%v, want both", got.OK, got.Truncated)
	}
	if n := len([]rune(string(got.Data))); n > executor.DefaultMaxResultChars {
		t.Errorf("data is %d characters, want <= %d", n, executor.DefaultMaxResultChars)
	}
	var v struct {
		Items []json.RawMessage `json:"items"`
		Total int               `json:"total"`
	}
	if err := json.Unmarshal(got.Data, &v); err != nil {
		t.Fatalf("truncated data is not valid JSON: %v", err)
	}
	if first := string(v.Items[0]); first != `{"id":0,"title":"`+strings.Repeat("x", 40)+`"}` {
		t.Errorf("first item %s: short strings should be kept whole when the array is the problem", first)
	}
	if len(v.Items) < 100 {
		t.Errorf("kept %d items; the 10,000-character budget holds more than 100", len(v.Items)-1)
	}
	last := string(v.Items[len(v.Items)-1])
	if !strings.Contains(last, "of 2000 items truncated") || v.Total != 2000 {
		t.Errorf("last item %s, total %d: want a count of the items left out and the total kept", last, v.Total)
	}
}

func TestExecuteAbandonsHungTool(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFixture(t)
	ex := newExec(f, nil)
	start := time.Now()
	got := ex.Execute(context.Background(), executor.Call{Name: "hang"})
	if got.ErrorKind != executor.KindTimeout {
		t.Fatalf("kind = %q, want timeout (%s)", got.ErrorKind, got.Error)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Execute took %v for a 50ms timeout", d)
	}
	if n := ex.Abandoned(); n != 1 {
		t.Errorf("Abandoned() = %d, want 1", n)
	}
	close(f.release)
	deadline := time.Now().Add(2 * time.Second)
	for ex.Abandoned() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := ex.Abandoned(); n != 0 {
		t.Errorf("Abandoned() = %d after release, want 0", n)
	}
	ex.Close()
	checkGoroutines(t, base)
}

func TestResultFormats(t *testing.T) {
	ok := executor.Result{CallID: "c1", Tool: "echo", OK: true, Data: json.RawMessage(`{ "a": [1, 2] }`), Duration: 1500 * time.Microsecond, Attempts: 1}
	bad := executor.Result{CallID: "c2", Tool: "ecko", ErrorKind: executor.KindUnknownTool, Error: `there is no tool named "ecko".`, Suggestions: []string{"echo"}}
	text := executor.Result{Tool: "t", OK: true, Data: json.RawMessage(`"hello"`)}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"model ok", ok.ForModel(), `{"a":[1,2]}`},
		{"model string", text.ForModel(), "hello"},
		{"model error", bad.ForModel(), `error (unknown_tool): there is no tool named "ecko". Did you mean: echo?`},
		{"envelope", ok.Envelope(), executor.Envelope{Tool: "echo", CallID: "c1", OK: true, Data: json.RawMessage(`{ "a": [1, 2] }`), DurationMS: 1.5, Attempts: 1}},
		{"ui ok", ok.ForUI().Summary, "echo succeeded: object with 1 fields"},
		{"ui error", bad.ForUI().Status, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// countingObserver checks that every CallStart has a CallEnd.
type countingObserver struct {
	mu           sync.Mutex
	starts, ends int
}

type ctxKey struct{}

func (o *countingObserver) CallStart(ctx context.Context, c executor.Call) context.Context {
	o.mu.Lock()
	o.starts++
	o.mu.Unlock()
	return context.WithValue(ctx, ctxKey{}, c.ID)
}

func (o *countingObserver) CallEnd(ctx context.Context, c executor.Call, r executor.Result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ctx.Value(ctxKey{}) == c.ID {
		o.ends++
	}
}

func TestObserver(t *testing.T) {
	f := newFixture(t)
	obs := &countingObserver{}
	ex := newExec(f, func(c *executor.Config) { c.Observer = obs })
	defer ex.Close()
	calls := []executor.Call{{Name: "echo", Arguments: json.RawMessage(`{"text":"a"}`)}, {Name: "nope"}, {Name: "hang"}}
	ex.ExecuteBatch(context.Background(), calls, executor.BatchOptions{})
	close(f.release)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.starts != 3 || obs.ends != 3 {
		t.Errorf("starts=%d ends=%d, want 3 and 3", obs.starts, obs.ends)
	}
}

func TestRegistryToolsAreTheExecutorsTools(t *testing.T) {
	f := newFixture(t)
	if err := f.reg.Register(registry.ToolSpec{Name: "echo", Run: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}); !errors.Is(err, registry.ErrDuplicate) {
		t.Fatalf("duplicate register: %v, want ErrDuplicate", err)
	}
}
