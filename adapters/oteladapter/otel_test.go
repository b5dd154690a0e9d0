package oteladapter_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolhint/toolhint"
	"github.com/toolhint/toolhint/adapters/oteladapter"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// recorder returns a Telemetry whose spans and metrics the test can read.
func recorder(t *testing.T) (*oteladapter.Telemetry, *tracetest.SpanRecorder, *sdkmetric.ManualReader) {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	tel, err := oteladapter.New(oteladapter.Config{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tel, spans, reader
}

// span is what the tests compare of a recorded span.
type span struct {
	Name   string
	Status codes.Code
	Attrs  map[string]string
}

func ended(rec *tracetest.SpanRecorder, keys ...string) []span {
	var out []span
	for _, s := range rec.Ended() {
		sp := span{Name: s.Name(), Status: s.Status().Code, Attrs: map[string]string{}}
		for _, kv := range s.Attributes() {
			if slices.Contains(keys, string(kv.Key)) {
				sp.Attrs[string(kv.Key)] = kv.Value.String()
			}
		}
		out = append(out, sp)
	}
	slices.SortStableFunc(out, func(a, b span) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// points returns the data points of a metric as "attributes=value" strings, sorted.
func points(t *testing.T, reader *sdkmetric.ManualReader, name string) []string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out = append(out, attrs(p.Attributes)+"="+json.Number(itoa(p.Value)).String())
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out = append(out, attrs(p.Attributes)+" count="+itoa(int64(p.Count)))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func attrs(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+":"+kv.Value.String())
	}
	return strings.Join(parts, ",")
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestExecutorCalls(t *testing.T) {
	tel, rec, reader := recorder(t)
	reg := registry.New()
	reg.MustRegister(registry.ToolSpec{Name: "echo", Description: "Echo.", ReadOnly: true,
		Run: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }})
	ex, err := executor.New(executor.Config{Registry: reg, Observer: tel})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	ex.ExecuteBatch(context.Background(), []executor.Call{
		{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"secret":"s3cr3t"}`)},
		{ID: "c2", Name: "ehco"},
	}, executor.BatchOptions{})

	want := []span{
		{Name: "execute_tool echo", Status: codes.Unset, Attrs: map[string]string{"gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "c1", "toolhint.ok": "true", "toolhint.attempts": "1"}},
		{Name: "execute_tool ehco", Status: codes.Error, Attrs: map[string]string{"gen_ai.tool.name": "ehco", "gen_ai.tool.call.id": "c2", "toolhint.ok": "false", "error.type": "unknown_tool", "toolhint.attempts": "0"}},
	}
	if diff := cmp.Diff(want, ended(rec, "gen_ai.tool.name", "gen_ai.tool.call.id", "toolhint.ok", "error.type", "toolhint.attempts")); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	for _, s := range rec.Ended() {
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), "s3cr3t") {
				t.Errorf("span %s records the arguments: %s", s.Name(), kv.Key)
			}
		}
	}
	wantCalls := []string{
		"error.type:unknown_tool,gen_ai.tool.name:ehco,toolhint.ok:false=1",
		"gen_ai.tool.name:echo,toolhint.ok:true=1",
	}
	if diff := cmp.Diff(wantCalls, points(t, reader, oteladapter.MetricCalls)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", oteladapter.MetricCalls, diff)
	}
	if got := points(t, reader, oteladapter.MetricCallDuration); len(got) != 2 {
		t.Errorf("%s = %v, want two series", oteladapter.MetricCallDuration, got)
	}
}

func TestComposioRequests(t *testing.T) {
	tel, rec, reader := recorder(t)
	srv := composiotest.NewServer(t, composiotest.WithCatalog(composiotest.Catalog{
		Tools: []composio.Tool{{Slug: "GMAIL_SEND_EMAIL", Name: "Send", Toolkit: composio.ToolkitRef{Slug: "gmail"}}},
	}))
	cfg := srv.Config()
	cfg.HTTPClient = composio.NewHTTPClient(tel.Transport(nil))
	c, err := composio.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Tool(ctx, "GMAIL_SEND_EMAIL", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tool(ctx, "NOPE_X", ""); err == nil {
		t.Fatal("an unknown tool was found")
	}
	want := []span{
		{Name: "HTTP GET", Status: codes.Unset, Attrs: map[string]string{"url.path": "/api/v3.1/tools/GMAIL_SEND_EMAIL", "http.response.status_code": "200"}},
		{Name: "HTTP GET", Status: codes.Error, Attrs: map[string]string{"url.path": "/api/v3.1/tools/NOPE_X", "http.response.status_code": "404"}},
	}
	got := ended(rec, "url.path", "http.response.status_code")
	slices.SortFunc(got, func(a, b span) int {
		return strings.Compare(a.Attrs["http.response.status_code"], b.Attrs["http.response.status_code"])
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	for _, s := range rec.Ended() {
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), srv.APIKey()) {
				t.Errorf("span %s records the API key in %s", s.Name(), kv.Key)
			}
		}
	}
	if got := points(t, reader, oteladapter.MetricRequestDuration); len(got) != 2 {
		t.Errorf("%s = %v, want a series per status", oteladapter.MetricRequestDuration, got)
	}
}

// TestHintAndResolverObserved: as the observer of a hint.Builder and of a Resolver, the
// Telemetry makes a span per Build and per Resolver call, under the caller's span, and a
// duration series per operation and outcome.
func TestHintAndResolverObserved(t *testing.T) {
	tel, rec, reader := recorder(t)
	ctx, parent := sdktrace.NewTracerProvider().Tracer("host").Start(context.Background(), "host turn")
	defer parent.End()
	st := cache.NewMemory()
	f, err := os.Open("../../testdata/catalog/actions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = cache.ImportJSONL(ctx, st, f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	b := hint.New(hint.Config{Observer: tel})
	res, err := b.Build(ctx, st, hint.Request{AgentID: 7, Apps: []string{"slack"}, Prompt: "post a message to the #eng channel"})
	if err != nil || len(res.MatchedActions) == 0 {
		t.Fatalf("Build = %v, %v; want matches", res.MatchedActions, err)
	}
	failed, err := b.Build(ctx, st, hint.Request{AgentID: -1, Prompt: "x"})
	if err == nil {
		t.Fatal("a negative agent id was accepted")
	}
	resolver, err := registry.NewResolver(registry.ResolverConfig{Store: st, Observer: tel})
	if err != nil {
		t.Fatal(err)
	}
	sub := registry.Subject{AgentID: 7, Apps: []string{"slack"}}
	rr, err := resolver.Resolve(ctx, sub, "post a message to the #eng channel")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := resolver.Tools(ctx, sub, append(res.MatchedActions, "NOPE_NOT_THERE"), "anthropic")
	if err != nil {
		t.Fatal(err)
	}
	want := []span{
		{Name: "toolhint.hint.build", Status: codes.Unset, Attrs: map[string]string{"toolhint.strategy": string(res.Strategy), "toolhint.matched": itoa(int64(len(res.MatchedActions)))}},
		{Name: "toolhint.hint.build", Status: codes.Error, Attrs: map[string]string{"toolhint.strategy": string(failed.Strategy), "toolhint.matched": "0"}},
		{Name: "toolhint.registry.functions", Status: codes.Unset, Attrs: map[string]string{"toolhint.actions": itoa(int64(len(tools.Actions))),
			"toolhint.skipped": "1", "toolhint.tier": "given"}},
		{Name: "toolhint.registry.resolve", Status: codes.Unset, Attrs: map[string]string{"toolhint.actions": itoa(int64(len(rr.Actions))),
			"toolhint.skipped": itoa(int64(len(rr.Skipped))), "toolhint.tier": string(rr.Tier)}},
	}
	if diff := cmp.Diff(want, ended(rec, "toolhint.strategy", "toolhint.matched", "toolhint.actions", "toolhint.tier", "toolhint.skipped")); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %s is not a child of the caller's span", s.Name())
		}
	}
	if got := points(t, reader, oteladapter.MetricHintDuration); len(got) != 4 {
		t.Errorf("%s = %v, want four series (build ok, build failed, resolve, functions)", oteladapter.MetricHintDuration, got)
	}
}

// A *Telemetry observes every component at once through toolhint.Telemetry.
var _ toolhint.Observer = (*oteladapter.Telemetry)(nil)
