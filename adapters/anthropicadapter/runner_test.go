package anthropicadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/adapters/anthropicadapter"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

func TestRunnerToolsRefuse(t *testing.T) {
	adaptertest.CheckToolsRefuse(t, anthropicadapter.RunnerTools, anthropicadapter.ErrConfig)
}

func TestHintRunnerTools(t *testing.T) {
	_, ex := adaptertest.Catalogue()
	defer ex.Close()
	adaptertest.CheckHintHelper(t, func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]anthropic.BetaTool, registry.Resolution, error) {
		return anthropicadapter.HintRunnerTools(ctx, r, sub, h, ex)
	}, anthropic.BetaTool.Name, anthropicadapter.ErrConfig)
}

// TestRunnerTool: the runner's tool sends the schema Tool sends, and Execute gives the
// result text, or a *ResultError holding the failed result.
func TestRunnerTool(t *testing.T) {
	ctx := context.Background()
	ex := adaptertest.Executor()
	defer ex.Close()
	fn, _ := ex.Registry().Function("get_weather")
	rt, err := anthropicadapter.NewRunnerTool(ex, fn)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := anthropicadapter.Tool(fn, false)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(plain.OfTool.InputSchema)
	got, _ := json.Marshal(rt.InputSchema())
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("input schema (-want +got):\n%s", diff)
	}
	if rt.Name() != "get_weather" || rt.Description() != fn.Description {
		t.Errorf("name %q, description %q", rt.Name(), rt.Description())
	}

	blocks, err := rt.Execute(ctx, json.RawMessage(`{"city":"Rome"}`))
	if err != nil || len(blocks) != 1 || blocks[0].OfText == nil {
		t.Fatalf("Execute = %+v, %v; want one text block", blocks, err)
	}
	if diff := cmp.Diff(`{"city":"Rome","temp_c":18,"sky":"clear"}`, blocks[0].OfText.Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	_, err = rt.Execute(ctx, json.RawMessage(`{"town":"Rome"}`))
	var re *anthropicadapter.ResultError
	if !errors.As(err, &re) || re.Result.OK || re.Result.ErrorKind != executor.KindInvalidArguments || err.Error() != re.Result.ForModel() {
		t.Errorf("Execute with bad arguments: %v; want a *ResultError of kind %s", err, executor.KindInvalidArguments)
	}
}
