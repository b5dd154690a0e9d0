package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// sendEmailSchema has the catalogue's quirk: attachment is required, while its own
// description says to leave it out.
const sendEmailSchema = `{"type":"object","properties":{
	"recipient_email":{"type":"string","description":"Primary recipient's email address."},
	"subject":{"type":"string","description":"Subject line of the email."},
	"body":{"type":"string","description":"Email content."},
	"attachment":{"type":"object","description":"File to attach. Omit or set to null for no attachment.",
		"properties":{"name":{"type":"string"},"s3key":{"type":"string"}},"required":["name","s3key"]},
	"cc":{"type":"array","items":{"type":"string"}}},
	"required":["recipient_email","body","attachment"]}`

// minimalSend is what a model writes to send an email.
var minimalSend = executor.Call{ID: "c1", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"jay@acme.com","subject":"x","body":"hi"}`)}

// sentArgs records the arguments the fake Composio received per call.
type sentArgs struct {
	mu   sync.Mutex
	args []map[string]any
}

func (s *sentArgs) all() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.args)
}

// gmailExecutor runs act (a GMAIL_SEND_EMAIL) through a real *composio.Client against the
// fake Composio API, which records the arguments it receives.
func gmailExecutor(t *testing.T, act cache.Action, mod func(*executor.Config)) (*executor.Executor, *sentArgs) {
	t.Helper()
	ctx := context.Background()
	st := cache.NewMemory()
	if _, err := st.Apply(ctx, cache.Batch{Apps: []cache.App{{Slug: "gmail", DisplayName: "Gmail"}}, Actions: []cache.Action{act}}); err != nil {
		t.Fatal(err)
	}
	srv := composiotest.NewServer(t, composiotest.WithCatalog(composiotest.Catalog{
		Toolkits: []composio.Toolkit{{Slug: "gmail", Name: "Gmail"}},
		Tools:    []composio.Tool{{Slug: act.Slug, Toolkit: composio.ToolkitRef{Slug: "gmail"}, InputParameters: act.Parameters}},
	}))
	srv.AddAccount(composio.ConnectedAccount{ID: "ca_gmail_1", UserID: "ws1", Status: composio.StatusActive, Toolkit: composio.ToolkitRef{Slug: "gmail"}})
	sent := &sentArgs{}
	srv.HandleExecute(act.Slug, func(_ context.Context, call composiotest.ExecuteCall) (any, error) {
		var m map[string]any
		if err := json.Unmarshal(call.Arguments, &m); err != nil {
			return nil, err
		}
		sent.mu.Lock()
		sent.args = append(sent.args, m)
		sent.mu.Unlock()
		return map[string]string{"id": "msg_1"}, nil
	})
	client, err := composio.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	cfg := executor.Config{Catalog: st, Remote: client, Scope: executor.Scope{Identity: hint.Identity{WorkspaceID: "ws1", Apps: []string{"gmail"}}}}
	if mod != nil {
		mod(&cfg)
	}
	ex := mustNew(t, cfg)
	t.Cleanup(func() { ex.Close() })
	return ex, sent
}

// catalogSendEmail returns GMAIL_SEND_EMAIL as the shared catalogue has it; it skips the
// test when no catalogue is named.
func catalogSendEmail(t *testing.T) cache.Action {
	t.Helper()
	st, _ := loadCatalog(t)
	act, err := st.Action(context.Background(), "GMAIL_SEND_EMAIL")
	if err != nil {
		t.Fatal(err)
	}
	var root struct{ Required []string }
	if err := json.Unmarshal(act.Parameters, &root); err != nil {
		t.Fatal(err)
	}
	t.Logf("catalogue GMAIL_SEND_EMAIL requires %v", root.Required)
	return act
}

// writtenSendEmail returns GMAIL_SEND_EMAIL with sendEmailSchema.
func writtenSendEmail() cache.Action {
	return cache.Action{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Send an email.", Parameters: json.RawMessage(sendEmailSchema)}
}

// TestSendEmailRunsLenient: with the default Lenient mode, GMAIL_SEND_EMAIL with only
// recipient, subject and body runs against the fake Composio and reaches it with exactly
// those keys; a null attachment is left out. Strict mode refuses the same call before it
// reaches the service, and calls attachment required.
func TestSendEmailRunsLenient(t *testing.T) {
	for _, src := range []struct {
		name string
		act  func(*testing.T) cache.Action
	}{
		{"catalogue schema", catalogSendEmail},
		{"written schema", func(*testing.T) cache.Action { return writtenSendEmail() }},
	} {
		t.Run(src.name, func(t *testing.T) {
			act := src.act(t)
			ctx := context.Background()
			want := map[string]any{"recipient_email": "jay@acme.com", "subject": "x", "body": "hi"}

			ex, sent := gmailExecutor(t, act, nil)
			withNull := minimalSend
			withNull.Arguments = json.RawMessage(`{"recipient_email":"jay@acme.com","subject":"x","body":"hi","attachment":null}`)
			for _, call := range []executor.Call{minimalSend, withNull} {
				r := ex.Execute(ctx, call)
				if !r.OK {
					t.Fatalf("%s: %s: %s", call.Arguments, r.ErrorKind, r.Error)
				}
			}
			if diff := cmp.Diff([]map[string]any{want, want}, sent.all()); diff != "" {
				t.Errorf("arguments the service received (-want +got):\n%s", diff)
			}

			strict, sent := gmailExecutor(t, act, func(c *executor.Config) { c.Validation = schema.Strict })
			r := strict.Execute(ctx, minimalSend)
			if r.ErrorKind != executor.KindInvalidArguments || !strings.Contains(r.Error, "attachment") || !strings.Contains(r.Error, "attachment (required)") {
				t.Errorf("strict: %q %q, want invalid_arguments naming attachment as required", r.ErrorKind, r.Error)
			}
			var ve *schema.ValidationError
			if !errors.As(r.Err, &ve) {
				t.Errorf("strict: Err = %v, want a *schema.ValidationError", r.Err)
			}
			if n := len(sent.all()); n != 0 {
				t.Errorf("strict: the service received %d calls, want 0", n)
			}
		})
	}
}

// TestRequiredLabelsFollowTheMode: the usage text of a failure calls required only what
// the mode requires: not a property the normaliser relaxed, unless Strict.
func TestRequiredLabelsFollowTheMode(t *testing.T) {
	noBody := executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"jay@acme.com"}`)}
	tests := []struct {
		mode               schema.Mode
		required           []string
		attachmentRequired bool // attachment labelled required
	}{
		{schema.Lenient, []string{"body (required)", "recipient_email (required)"}, false},
		{schema.Strict, []string{"attachment (required)", "body (required)", "recipient_email (required)"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			ex, _ := gmailExecutor(t, writtenSendEmail(), func(c *executor.Config) { c.Validation = tt.mode })
			r := ex.Execute(context.Background(), noBody)
			if r.ErrorKind != executor.KindInvalidArguments {
				t.Fatalf("%q %q, want invalid_arguments", r.ErrorKind, r.Error)
			}
			for _, want := range tt.required {
				if !strings.Contains(r.Error, want) {
					t.Errorf("error lacks %q:\n%s", want, r.Error)
				}
			}
			if got := strings.Contains(r.Error, "attachment (required)"); got != tt.attachmentRequired {
				t.Errorf("attachment labelled required: %v, want %v:\n%s", got, tt.attachmentRequired, r.Error)
			}
		})
	}
}

// TestValidationOff: Off checks no schema: a missing required property and a value of
// another type reach the service (coerced where coercion helps); the limits still apply.
func TestValidationOff(t *testing.T) {
	ex, sent := gmailExecutor(t, writtenSendEmail(), func(c *executor.Config) { c.Validation = schema.Off; c.MaxArgBytes = 200 })
	ctx := context.Background()
	r := ex.Execute(ctx, executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":42,"cc":"a@b.c"}`)})
	if !r.OK {
		t.Fatalf("%s: %s", r.ErrorKind, r.Error)
	}
	want := []map[string]any{{"recipient_email": "42", "cc": []any{"a@b.c"}}}
	if diff := cmp.Diff(want, sent.all()); diff != "" {
		t.Errorf("arguments the service received (-want +got):\n%s", diff)
	}
	r = ex.Execute(ctx, executor.Call{Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"body":"` + strings.Repeat("a", 300) + `"}`)})
	if r.ErrorKind != executor.KindInvalidArguments || !errors.Is(r.Err, schema.ErrTooLarge) {
		t.Errorf("over the size limit in Off mode: %q %q", r.ErrorKind, r.Error)
	}
}

// TestOverrideMakesFieldRequired: a host override that says a field is required puts it
// back in the required list, for validation and for the schema the router shows.
func TestOverrideMakesFieldRequired(t *testing.T) {
	ov := schema.Overrides{"GMAIL_SEND_EMAIL": {Patch: json.RawMessage(`{"properties":{"attachment":{"description":"Required. The file to attach."}}}`)}}
	ex, sent := gmailExecutor(t, writtenSendEmail(), func(c *executor.Config) { c.Overrides = ov })
	ctx := context.Background()
	r := ex.Execute(ctx, minimalSend)
	if r.ErrorKind != executor.KindInvalidArguments || !strings.Contains(r.Error, "'attachment'") || !strings.Contains(r.Error, "attachment (required)") {
		t.Errorf("%q %q, want invalid_arguments: attachment missing and required", r.ErrorKind, r.Error)
	}
	withFile := minimalSend
	withFile.Arguments = json.RawMessage(`{"recipient_email":"jay@acme.com","subject":"x","body":"hi","attachment":{"name":"a.pdf","s3key":"k1"}}`)
	if r := ex.Execute(ctx, withFile); !r.OK {
		t.Errorf("with the attachment: %s: %s", r.ErrorKind, r.Error)
	}
	if n := len(sent.all()); n != 1 {
		t.Errorf("the service received %d calls, want 1", n)
	}
}

// TestNewRefusesBadValidationConfig: an unknown mode or an override that is not JSON is a
// configuration error.
func TestNewRefusesBadValidationConfig(t *testing.T) {
	for name, cfg := range map[string]executor.Config{
		"unknown mode":      {Validation: schema.Mode(9)},
		"override not JSON": {Overrides: schema.Overrides{"X": {Patch: json.RawMessage(`{"required":`)}}},
	} {
		if _, err := executor.New(cfg); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
	}
}

// TestArgumentLimits: arguments over the size or depth limit are refused before they are
// decoded, as invalid_arguments naming the limit, and the tool does not run.
func TestArgumentLimits(t *testing.T) {
	f := newFixture(t)
	ex := newExec(f, func(c *executor.Config) { c.MaxArgBytes = 1000 })
	defer ex.Close()
	tests := []struct {
		name  string
		args  string
		err   error
		wants []string
	}{
		{"too large", `{"text":"` + strings.Repeat("a", 1000) + `"}`, schema.ErrTooLarge,
			[]string{"arguments for echo are too large", "1011 bytes", "over the limit of 1000"}},
		{"too deep", `{"text":"a","meta":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`, schema.ErrTooDeep,
			[]string{"arguments for echo are too deep", "nested more than 64 levels"}},
		{"too deep to read", `{"text":` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `}`, schema.ErrTooDeep,
			[]string{"too deep", "more than 64 levels"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ex.Execute(context.Background(), executor.Call{Name: "echo", Arguments: json.RawMessage(tt.args)})
			if r.ErrorKind != executor.KindInvalidArguments || !errors.Is(r.Err, tt.err) || !errors.Is(r.Err, schema.ErrInvalidArguments) {
				t.Errorf("%q, Err %v; want invalid_arguments wrapping %v", r.ErrorKind, r.Err, tt.err)
			}
			for _, w := range tt.wants {
				if !strings.Contains(r.Error, w) {
					t.Errorf("error %q lacks %q", r.Error, w)
				}
			}
		})
	}
	// One level less than the limit is fine.
	ok := `{"text":"a","meta":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`
	if r := ex.Execute(context.Background(), executor.Call{Name: "echo", Arguments: json.RawMessage(ok)}); !r.OK {
		t.Errorf("64 levels: %s: %s", r.ErrorKind, r.Error)
	}
	if n := f.count("echo"); n != 1 {
		t.Errorf("echo ran %d times, want 1", n)
	}
}

// TestRouterSchemasFollowTheExecutor: get_tool_schemas renders an action as the inner
// executor validates it: its mode, its overrides, and without the identity parameters of
// Composio's own toolkit.
func TestRouterSchemasFollowTheExecutor(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	_, err := st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "gmail"}, {Slug: registry.ComposioApp}},
		Actions: []cache.Action{writtenSendEmail(), {App: registry.ComposioApp, Slug: "COMPOSIO_CHECK_ACTIVE_CONNECTION", Description: "Check a connection.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"toolkit":{"type":"string"},"user_id":{"type":"string"},"connected_account_id":{"type":"string"}},"required":["toolkit"]}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	required := func(mode schema.Mode, ov schema.Overrides) map[string][]string {
		t.Helper()
		inner := mustNew(t, executor.Config{Catalog: st, Remote: unreachable, Validation: mode, Overrides: ov})
		defer inner.Close()
		router, err := executor.NewRouter(inner, executor.RouterConfig{Hints: st})
		if err != nil {
			t.Fatal(err)
		}
		var run registry.Func
		for _, spec := range router.Tools() {
			if spec.Name == executor.ToolGetSchemas {
				run = spec.Run
			}
		}
		data, err := run(ctx, json.RawMessage(`{"slugs":["GMAIL_SEND_EMAIL","COMPOSIO_CHECK_ACTIVE_CONNECTION"]}`))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Schemas []struct {
				Slug       string
				Error      string
				Parameters struct {
					Properties map[string]json.RawMessage
					Required   []string
				}
			}
		}
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, s := range out.Schemas {
			if s.Error != "" {
				t.Fatalf("%s: %s", s.Slug, s.Error)
			}
			for p := range s.Parameters.Properties {
				if p == "user_id" || p == "connected_account_id" {
					t.Errorf("%s shows the host-filled %s", s.Slug, p)
				}
			}
			got[s.Slug] = s.Parameters.Required
		}
		return got
	}
	ov := schema.Overrides{"GMAIL_SEND_EMAIL": {Patch: json.RawMessage(`{"required":["recipient_email","body","subject"]}`)}}
	tests := []struct {
		name string
		mode schema.Mode
		ov   schema.Overrides
		want []string // sorted, as rendered
	}{
		{"lenient", schema.Lenient, nil, []string{"body", "recipient_email"}},
		{"strict", schema.Strict, nil, []string{"attachment", "body", "recipient_email"}},
		{"override", schema.Lenient, ov, []string{"body", "recipient_email", "subject"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := required(tt.mode, tt.ov)
			if diff := cmp.Diff(tt.want, got["GMAIL_SEND_EMAIL"]); diff != "" {
				t.Errorf("GMAIL_SEND_EMAIL required (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"toolkit"}, got["COMPOSIO_CHECK_ACTIVE_CONNECTION"]); diff != "" {
				t.Errorf("COMPOSIO_CHECK_ACTIVE_CONNECTION required (-want +got):\n%s", diff)
			}
		})
	}
}
