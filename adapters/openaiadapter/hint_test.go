package openaiadapter_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolhint/toolhint/adapters/openaiadapter"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// TestHintHelpers: both hint helpers offer the hint's actions the subject may call, under
// their function names, refuse a nil resolver and say what they left out.
func TestHintHelpers(t *testing.T) {
	t.Run("chat", func(t *testing.T) {
		adaptertest.CheckHintHelper(t, func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]openai.ChatCompletionToolUnionParam, registry.Resolution, error) {
			return openaiadapter.HintChatTools(ctx, r, sub, h, true)
		}, func(t openai.ChatCompletionToolUnionParam) string { return t.OfFunction.Function.Name }, openaiadapter.ErrConfig)
	})
	t.Run("responses", func(t *testing.T) {
		adaptertest.CheckHintHelper(t, func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]responses.ToolUnionParam, registry.Resolution, error) {
			return openaiadapter.HintResponseTools(ctx, r, sub, h, false)
		}, func(t responses.ToolUnionParam) string { return t.OfFunction.Name }, openaiadapter.ErrConfig)
	})
}
