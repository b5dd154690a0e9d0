package adapterwire

import (
	"context"
	"fmt"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// HintFunctions returns the definitions of the actions of h that sub may call and of the
// meta-tools its text points the model at, checked and rendered by r
// (registry.Resolver.HintFunctions), so that the model is given every tool it is told of. A
// nil r is an error wrapping errConfig, the calling adapter's ErrConfig.
func HintFunctions(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, errConfig error) (registry.Resolution, error) {
	if r == nil {
		return registry.Resolution{}, fmt.Errorf("%w: nil resolver", errConfig)
	}
	return r.HintFunctions(ctx, sub, h)
}

// Map returns wrap of each function, in order, stopping at the first error.
func Map[T any](fns []schema.Function, wrap func(schema.Function) (T, error)) ([]T, error) {
	out := make([]T, len(fns))
	for i, fn := range fns {
		t, err := wrap(fn)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// HintMap is HintFunctions followed by Map of wrap over the functions it kept.
func HintMap[T any](ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, errConfig error, wrap func(schema.Function) (T, error)) ([]T, registry.Resolution, error) {
	res, err := HintFunctions(ctx, r, sub, h, errConfig)
	if err != nil {
		return nil, res, err
	}
	out, err := Map(res.Functions, wrap)
	return out, res, err
}

// Bind returns newTool with ex bound, its tool typed as the framework's tool interface T,
// for Map and HintMap: the adapters whose tools an executor runs (Eino, LangChainGo,
// Anthropic's tool runner) wrap each function so. U, newTool's tool type, must implement
// T; each adapter asserts that at compile time, and Bind reports a U that does not as an
// error rather than a panic.
func Bind[T, U any](ex *executor.Executor, newTool func(*executor.Executor, schema.Function) (U, error)) func(schema.Function) (T, error) {
	return func(fn schema.Function) (T, error) {
		var zero T
		u, err := newTool(ex, fn)
		if err != nil {
			return zero, err
		}
		t, ok := any(u).(T)
		if !ok {
			return zero, fmt.Errorf("adapterwire: %T does not implement the tool interface", u)
		}
		return t, nil
	}
}
