package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/tools"

	"github.com/toolhint/toolhint/adapters/langchaingoadapter"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/registry"
)

func TestToolsRefuse(t *testing.T) {
	adaptertest.CheckToolsRefuse(t, langchaingoadapter.Tools, langchaingoadapter.ErrConfig)
}

// TestCall: the input is the arguments object; what is not one fails as the model reads it,
// never as a Go error that would end the agent's run.
func TestCall(t *testing.T) {
	ctx := context.Background()
	ex := adaptertest.Executor()
	defer ex.Close()
	fn, _ := ex.Registry().Function("get_time")
	tl, err := langchaingoadapter.NewTool(ex, fn)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, input, prefix string }{
		{"object", `{"city":"Oslo"}`, `{"city":"Oslo","time":"14:05"}`},
		{"empty input", ``, "error (invalid_arguments)"},
		{"plain text", `Oslo`, "error (invalid_arguments)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tl.Call(ctx, tt.input)
			if err != nil || !strings.HasPrefix(out, tt.prefix) {
				t.Errorf("Call(%q) = %q, %v; want %q…, nil", tt.input, out, err, tt.prefix)
			}
		})
	}
	if !json.Valid(tl.Parameters()) || !strings.HasSuffix(tl.Description(), string(tl.Parameters())) {
		t.Errorf("description %q does not end with the parameters %s", tl.Description(), tl.Parameters())
	}
}

func TestHintTools(t *testing.T) {
	_, ex := adaptertest.Catalogue()
	defer ex.Close()
	adaptertest.CheckHintHelper(t, func(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) ([]tools.Tool, registry.Resolution, error) {
		return langchaingoadapter.HintTools(ctx, r, sub, h, ex)
	}, tools.Tool.Name, langchaingoadapter.ErrConfig)
}
