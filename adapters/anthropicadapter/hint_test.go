package anthropicadapter_test

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/toolhint/toolhint/adapters/anthropicadapter"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// TestHintTools: HintTools offers the hint's actions the subject may call, under their
// function names, refuses a nil resolver and says what it left out.
func TestHintTools(t *testing.T) {
	adaptertest.CheckHintHelper(t, func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]anthropic.ToolUnionParam, registry.Resolution, error) {
		return anthropicadapter.HintTools(ctx, r, sub, h, true)
	}, func(t anthropic.ToolUnionParam) string { return t.OfTool.Name }, anthropicadapter.ErrConfig)
}
