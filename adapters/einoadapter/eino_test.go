package einoadapter_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/adapters/einoadapter"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// TestInfoKeepsTheSchema: the schema Eino gives the model is the function's, unchanged.
func TestInfoKeepsTheSchema(t *testing.T) {
	ctx := context.Background()
	ex := adaptertest.Executor()
	defer ex.Close()
	for _, fn := range ex.Registry().Functions() {
		t.Run(fn.Name, func(t *testing.T) {
			tl, err := einoadapter.NewTool(ex, fn)
			if err != nil {
				t.Fatal(err)
			}
			info, err := tl.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			js, err := info.ToJSONSchema()
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(js)
			if err != nil {
				t.Fatal(err)
			}
			var want, have any
			if err := json.Unmarshal(fn.Parameters, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &have); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
			if info.Name != fn.Name || info.Desc != fn.Description {
				t.Errorf("info %q %q, want %q %q", info.Name, info.Desc, fn.Name, fn.Description)
			}
		})
	}
}

func TestToolsRefuse(t *testing.T) {
	adaptertest.CheckToolsRefuse(t, einoadapter.Tools, einoadapter.ErrConfig)
}

func TestHintTools(t *testing.T) {
	_, ex := adaptertest.Catalogue()
	defer ex.Close()
	adaptertest.CheckHintHelper(t, func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]tool.BaseTool, registry.Resolution, error) {
		return einoadapter.HintTools(ctx, r, sub, h, ex)
	}, func(tl tool.BaseTool) string {
		info, err := tl.Info(context.Background())
		if err != nil {
			return "info: " + err.Error()
		}
		return info.Name
	}, einoadapter.ErrConfig)
}
