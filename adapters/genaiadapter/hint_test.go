package genaiadapter_test

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/toolhint/toolhint/adapters/genaiadapter"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

// TestHintTool: HintTool declares the hint's actions the subject may call, under their
// function names, refuses a nil resolver and says what it left out.
func TestHintTool(t *testing.T) {
	adaptertest.CheckHintHelper(t, func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]*genai.FunctionDeclaration, registry.Resolution, error) {
		tool, res, err := genaiadapter.HintTool(ctx, r, sub, h)
		if tool == nil {
			return nil, res, err
		}
		return tool.FunctionDeclarations, res, err
	}, func(d *genai.FunctionDeclaration) string { return d.Name }, genaiadapter.ErrConfig)
}
