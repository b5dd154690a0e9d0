package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolhint/toolhint/schema"
)

// Typed turns a Go function into a ToolSpec. The parameter schema is derived from In (a
// struct; see schema.FromType for the tags it reads); the executor validates and coerces the
// model's arguments against it before Run decodes them into an In, and the Out the function
// returns is encoded as JSON. spec supplies everything else (Name and Description at least);
// its Parameters and Run are replaced. Typed fails when In is not a struct.
func Typed[In, Out any](spec ToolSpec, fn func(ctx context.Context, in In) (Out, error)) (ToolSpec, error) {
	if fn == nil {
		return ToolSpec{}, fmt.Errorf("%w: %s: nil function", ErrInvalidTool, schema.Excerpt(spec.Name))
	}
	params, err := schema.FromType[In]()
	if err != nil {
		return ToolSpec{}, fmt.Errorf("%w: %s: %w", ErrInvalidTool, schema.Excerpt(spec.Name), err)
	}
	spec.Parameters = params
	spec.CheckArgs = func(args json.RawMessage) error {
		var in In
		return decodeArgs(args, &in)
	}
	spec.Run = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in In
		if err := decodeArgs(args, &in); err != nil {
			return nil, err
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("encoding result: %w", err)
		}
		return b, nil
	}
	return spec, nil
}

// decodeArgs decodes args into in, saying which argument does not fit its Go type in words
// a model can act on ("/count: the number 1e20 does not fit an int").
func decodeArgs(args json.RawMessage, in any) error {
	if len(args) == 0 {
		return nil
	}
	err := json.Unmarshal(args, in)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := "/" + strings.ReplaceAll(te.Field, ".", "/")
		if te.Field == "" {
			path = "(root)"
		}
		return fmt.Errorf("%s: the %s does not fit a Go %s", path, te.Value, te.Type)
	}
	if err != nil {
		return fmt.Errorf("decoding arguments: %w", err)
	}
	return nil
}
