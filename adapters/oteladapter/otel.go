// Package oteladapter reports what toolhint does to OpenTelemetry: a span and metrics for
// each executor call (as an executor.Observer), for each HTTP request to Composio (as an
// http.RoundTripper for composio.NewHTTPClient), and for hint.Build and Resolver.Resolve
// when the host calls them through [Telemetry.BuildHint] and [Telemetry.Resolve].
//
// Spans carry names and outcomes, never arguments, results, prompts or headers: those may
// hold personal data or secrets. Tool spans follow the OpenTelemetry GenAI conventions
// ("execute_tool <name>", gen_ai.tool.name, gen_ai.tool.call.id).
//
// The hint built inside executor.RunStep and the router's search_tools is not traced by
// BuildHint: the core has no observer hook for it yet.
package oteladapter

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/toolhint/toolhint/adapters/oteladapter"

// Metric names.
const (
	MetricCalls           = "toolhint.executor.calls"
	MetricCallDuration    = "toolhint.executor.call.duration"
	MetricHintDuration    = "toolhint.hint.duration"
	MetricRequestDuration = "toolhint.composio.request.duration"
)

// Config configures New. Every field is optional.
type Config struct {
	// TracerProvider makes the tracer. Optional. Defaults to otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter. Optional. Defaults to otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
}

// Telemetry records spans and metrics. It is an executor.Observer. It is safe for
// concurrent use.
type Telemetry struct {
	tracer       trace.Tracer
	calls        metric.Int64Counter
	callDuration metric.Float64Histogram
	hintDuration metric.Float64Histogram
	httpDuration metric.Float64Histogram
}

var _ executor.Observer = (*Telemetry)(nil)

// New returns a Telemetry over cfg's providers. It fails when an instrument cannot be
// created.
func New(cfg Config) (*Telemetry, error) {
	tp, mp := cfg.TracerProvider, cfg.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(ScopeName)
	t := &Telemetry{tracer: tp.Tracer(ScopeName)}
	var err error
	if t.calls, err = m.Int64Counter(MetricCalls, metric.WithDescription("Tool calls run by the executor."), metric.WithUnit("{call}")); err != nil {
		return nil, fmt.Errorf("oteladapter: %w", err)
	}
	if t.callDuration, err = m.Float64Histogram(MetricCallDuration, metric.WithDescription("Wall time of executor calls, hooks included."), metric.WithUnit("s")); err != nil {
		return nil, fmt.Errorf("oteladapter: %w", err)
	}
	if t.hintDuration, err = m.Float64Histogram(MetricHintDuration, metric.WithDescription("Wall time of hint.Build and Resolver.Resolve."), metric.WithUnit("s")); err != nil {
		return nil, fmt.Errorf("oteladapter: %w", err)
	}
	if t.httpDuration, err = m.Float64Histogram(MetricRequestDuration, metric.WithDescription("Wall time of HTTP requests to Composio, until the response headers."), metric.WithUnit("s")); err != nil {
		return nil, fmt.Errorf("oteladapter: %w", err)
	}
	return t, nil
}

// CallStart starts the call's span ("execute_tool <name>") as a child of ctx's span.
func (t *Telemetry) CallStart(ctx context.Context, call executor.Call) context.Context {
	ctx, _ = t.tracer.Start(ctx, "execute_tool "+call.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", call.Name),
		attribute.String("gen_ai.tool.call.id", call.ID),
	))
	return ctx
}

// CallEnd ends the span CallStart started, with the call's outcome, and records the
// call's metrics (attributes: tool, ok, error kind).
func (t *Telemetry) CallEnd(ctx context.Context, call executor.Call, res executor.Result) {
	outcome := []attribute.KeyValue{
		attribute.String("gen_ai.tool.name", res.Tool),
		attribute.Bool("toolhint.ok", res.OK),
	}
	if !res.OK {
		outcome = append(outcome, attribute.String("error.type", string(res.ErrorKind)))
	}
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(outcome...)
	span.SetAttributes(
		attribute.Int("toolhint.attempts", res.Attempts),
		attribute.Bool("toolhint.truncated", res.Truncated),
		attribute.Int("toolhint.step", res.Step),
	)
	if !res.OK {
		span.SetStatus(codes.Error, string(res.ErrorKind))
	}
	span.End()
	set := metric.WithAttributes(outcome...)
	t.calls.Add(ctx, 1, set)
	t.callDuration.Record(ctx, res.Duration.Seconds(), set)
}

// BuildHint is hint.Build in a span ("toolhint.hint.build") with the strategy, the number
// of matched actions and whether the hint is confident, and a duration metric.
func (t *Telemetry) BuildHint(ctx context.Context, st hint.Store, req hint.Request) (hint.Result, error) {
	ctx, span := t.tracer.Start(ctx, "toolhint.hint.build", trace.WithAttributes(
		attribute.Int64("toolhint.agent_id", req.AgentID),
		attribute.String("toolhint.workspace_id", req.WorkspaceID),
		attribute.Bool("toolhint.recipe_mode", req.RecipeMode),
	))
	start := time.Now()
	res, err := hint.Build(ctx, st, req)
	attrs := []attribute.KeyValue{attribute.String("toolhint.operation", "hint.build"), attribute.String("toolhint.strategy", string(res.Strategy))}
	t.end(ctx, span, start, err, attrs,
		attribute.Int("toolhint.matched", len(res.MatchedActions)),
		attribute.Bool("toolhint.confident", res.Confident),
	)
	return res, err
}

// Resolve is r.Resolve in a span ("toolhint.registry.resolve") with the tier, the number of
// actions and of skipped ones, and a duration metric.
func (t *Telemetry) Resolve(ctx context.Context, r *registry.Resolver, sub registry.Subject, prompt string) (registry.Resolution, error) {
	ctx, span := t.tracer.Start(ctx, "toolhint.registry.resolve", trace.WithAttributes(
		attribute.Int64("toolhint.agent_id", sub.AgentID),
		attribute.String("toolhint.workspace_id", sub.WorkspaceID),
	))
	start := time.Now()
	res, err := r.Resolve(ctx, sub, prompt)
	attrs := []attribute.KeyValue{attribute.String("toolhint.operation", "registry.resolve"), attribute.String("toolhint.tier", fmt.Sprint(res.Tier))}
	t.end(ctx, span, start, err, attrs,
		attribute.Int("toolhint.actions", len(res.Actions)),
		attribute.Int("toolhint.skipped", len(res.Skipped)),
	)
	return res, err
}

// end closes a span of BuildHint or Resolve: metric attributes go on the span and the
// histogram, extra ones on the span only.
func (t *Telemetry) end(ctx context.Context, span trace.Span, start time.Time, err error, attrs []attribute.KeyValue, extra ...attribute.KeyValue) {
	if err != nil {
		attrs = append(attrs, attribute.String("error.type", fmt.Sprintf("%T", err)))
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.SetAttributes(attrs...)
	span.SetAttributes(extra...)
	span.End()
	t.hintDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
}

// Transport returns an http.RoundTripper that sends through next (nil:
// http.DefaultTransport) with a client span per request ("HTTP <method>": method, host,
// path and status; never headers, query or body) and a duration metric. Give it to
// composio.NewHTTPClient to trace every Composio request, each retry its own span.
func (t *Telemetry) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{t: t, next: next}
}

type transport struct {
	t    *Telemetry
	next http.RoundTripper
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, span := tr.t.tracer.Start(req.Context(), "HTTP "+req.Method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("http.request.method", req.Method),
		attribute.String("server.address", req.URL.Hostname()),
		attribute.String("url.path", req.URL.Path),
	))
	start := time.Now()
	resp, err := tr.next.RoundTrip(req.WithContext(ctx))
	attrs := []attribute.KeyValue{attribute.String("http.request.method", req.Method), attribute.String("server.address", req.URL.Hostname())}
	switch {
	case err != nil:
		attrs = append(attrs, attribute.String("error.type", fmt.Sprintf("%T", err)))
		span.SetStatus(codes.Error, "transport error")
	default:
		attrs = append(attrs, attribute.Int("http.response.status_code", resp.StatusCode))
		if resp.StatusCode >= 400 {
			attrs = append(attrs, attribute.String("error.type", fmt.Sprint(resp.StatusCode)))
			span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
		}
	}
	span.SetAttributes(attrs...)
	span.End()
	tr.t.httpDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
	return resp, err
}
