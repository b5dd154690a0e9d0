package adaptertest

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/schema"
)

// CheckToolsRefuse checks that an adapter's constructor of executor-run tools fails with an
// error wrapping errConfig (the adapter's ErrConfig) for a nil executor and for a function
// whose parameters are not a JSON object, even after a good function.
func CheckToolsRefuse[T any](t *testing.T, build func(*executor.Executor, []schema.Function) ([]T, error), errConfig error) {
	t.Helper()
	ex := Executor()
	defer ex.Close()
	good, _ := ex.Registry().Function("get_weather")
	tests := []struct {
		name string
		ex   *executor.Executor
		fn   schema.Function
	}{
		{"nil executor", nil, good},
		{"parameters not an object", ex, schema.Function{Name: "x", Slug: "x", Parameters: json.RawMessage(`[1]`)}},
		{"parameters not JSON", ex, schema.Function{Name: "x", Slug: "x", Parameters: json.RawMessage(`{`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tools, err := build(tt.ex, []schema.Function{good, tt.fn}); !errors.Is(err, errConfig) || len(tools) != 0 {
				t.Errorf("got %d tools, %v; want none and an error wrapping %v", len(tools), err, errConfig)
			}
		})
	}
	if tools, err := build(ex, []schema.Function{good}); err != nil || len(tools) != 1 {
		t.Errorf("a good function: %d tools, %v; want 1, nil", len(tools), err)
	}
}
