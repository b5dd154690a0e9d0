// Package oteladapter reports what toolhint does to OpenTelemetry: a span and metrics for
// each executor call (as an executor.Observer), for each HTTP request to Composio (as an
// http.RoundTripper for composio.NewHTTPClient), for each hint.Build (as a hint.Observer,
// hint.Config.Observer) and for each Resolver call (as a registry.ResolveObserver,
// registry.ResolverConfig.Observer).
//
// Spans carry names and outcomes, never arguments, results, prompts or headers: those may
// hold personal data or secrets. Tool spans follow the OpenTelemetry GenAI conventions
// ("execute_tool <name>", gen_ai.tool.name, gen_ai.tool.call.id).
//
// The hints built inside executor.RunStep, search_tools and create_plan are traced when the
// host gives them a builder with this observer (executor.Step.HintBuilder,
// executor.RouterConfig.HintBuilder).
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

// Telemetry records spans and metrics. It is an executor.Observer, a hint.Observer and a
// registry.ResolveObserver. It is safe for concurrent use.
type Telemetry struct {
	tracer       trace.Tracer
	calls        metric.Int64Counter
	callDuration metric.Float64Histogram
	hintDuration metric.Float64Histogram
	httpDuration metric.Float64Histogram
}

var (
	_ executor.Observer        = (*Telemetry)(nil)
	_ hint.Observer            = (*Telemetry)(nil)
	_ registry.ResolveObserver = (*Telemetry)(nil)
)

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
	if t.hintDuration, err = m.Float64Histogram(MetricHintDuration, metric.WithDescription("Wall time of hint.Build and of Resolver calls."), metric.WithUnit("s")); err != nil {
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

// BuildStart starts the span of a hint.Build ("toolhint.hint.build") as a child of ctx's
// span. With BuildEnd it makes Telemetry a hint.Observer: give it to hint.Config.Observer.
func (t *Telemetry) BuildStart(ctx context.Context, req hint.Request) context.Context {
	ctx, _ = t.tracer.Start(ctx, "toolhint.hint.build", trace.WithAttributes(
		attribute.Int64("toolhint.agent_id", req.AgentID),
		attribute.String("toolhint.workspace_id", req.WorkspaceID),
		attribute.Bool("toolhint.recipe_mode", req.RecipeMode),
	))
	return ctx
}

// BuildEnd ends the span BuildStart started with the strategy, the number of matched
// actions, whether the hint is confident or degraded, and records its duration.
func (t *Telemetry) BuildEnd(ctx context.Context, _ hint.Request, res hint.Result, err error, elapsed time.Duration) {
	attrs := []attribute.KeyValue{attribute.String("toolhint.operation", "hint.build"), attribute.String("toolhint.strategy", string(res.Strategy))}
	t.end(ctx, elapsed, err, attrs,
		attribute.Int("toolhint.matched", len(res.MatchedActions)),
		attribute.Bool("toolhint.confident", res.Confident),
		attribute.Bool("toolhint.degraded", res.Degraded != ""),
	)
}

// ResolveStart starts the span of a Resolver call as a child of ctx's span:
// "toolhint.registry.resolve" for Resolve, "toolhint.registry.functions" for Functions and
// Tools. With ResolveEnd it makes Telemetry a registry.ResolveObserver: give it to
// registry.ResolverConfig.Observer.
func (t *Telemetry) ResolveStart(ctx context.Context, req registry.ResolveRequest) context.Context {
	ctx, _ = t.tracer.Start(ctx, "toolhint."+resolveOperation(req), trace.WithAttributes(
		attribute.Int64("toolhint.agent_id", req.Subject.AgentID),
		attribute.String("toolhint.workspace_id", req.Subject.WorkspaceID),
	))
	return ctx
}

// ResolveEnd ends the span ResolveStart started with the tier, the number of actions and
// of skipped ones, and records its duration.
func (t *Telemetry) ResolveEnd(ctx context.Context, req registry.ResolveRequest, res registry.Resolution, err error, elapsed time.Duration) {
	attrs := []attribute.KeyValue{attribute.String("toolhint.operation", resolveOperation(req)), attribute.String("toolhint.tier", string(res.Tier))}
	t.end(ctx, elapsed, err, attrs,
		attribute.Int("toolhint.actions", len(res.Actions)),
		attribute.Int("toolhint.skipped", len(res.Skipped)),
	)
}

func resolveOperation(req registry.ResolveRequest) string {
	if req.Slugs != nil {
		return "registry.functions"
	}
	return "registry.resolve"
}

// end closes the span in ctx for BuildEnd or ResolveEnd: metric attributes go on the span
// and the histogram, extra ones on the span only.
func (t *Telemetry) end(ctx context.Context, elapsed time.Duration, err error, attrs []attribute.KeyValue, extra ...attribute.KeyValue) {
	span := trace.SpanFromContext(ctx)
	if err != nil {
		attrs = append(attrs, attribute.String("error.type", fmt.Sprintf("%T", err)))
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.SetAttributes(attrs...)
	span.SetAttributes(extra...)
	span.End()
	t.hintDuration.Record(ctx, elapsed.Seconds(), metric.WithAttributes(attrs...))
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
