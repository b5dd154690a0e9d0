package toolhint_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/toolhint/toolhint"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// printObserver prints what it sees; a real host passes *oteladapter.Telemetry.
type printObserver struct{}

func (printObserver) BuildStart(ctx context.Context, _ hint.Request) context.Context { return ctx }
func (printObserver) BuildEnd(_ context.Context, _ hint.Request, res hint.Result, _ error, _ time.Duration) {
	fmt.Println("observed a hint:", res.Strategy, res.MatchedActions[0])
}
func (printObserver) ResolveStart(ctx context.Context, _ registry.ResolveRequest) context.Context {
	return ctx
}
func (printObserver) ResolveEnd(context.Context, registry.ResolveRequest, registry.Resolution, error, time.Duration) {
}
func (printObserver) CallStart(ctx context.Context, _ executor.Call) context.Context { return ctx }
func (printObserver) CallEnd(context.Context, executor.Call, executor.Result)        {}

// A host gives every component its logger and observer in one place: each configuration
// goes through Telemetry on its way to the constructor.
func ExampleTelemetry() {
	ctx := context.Background()
	st := cache.NewMemory()
	f, err := os.Open("testdata/catalog/actions.jsonl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if _, err := cache.ImportJSONL(ctx, st, f); err != nil {
		panic(err)
	}

	// Records without their time, so that the output is stable.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	tel := toolhint.Telemetry{Logger: logger, Observer: printObserver{}}

	b := hint.New(tel.Hint(hint.Config{}))
	who := hint.Identity{Apps: []string{"gmail"}}
	if _, err := b.Build(ctx, st, who.Request("send an email to jay@example.com")); err != nil {
		panic(err)
	}
	// The resolver and the executor take it the same way:
	//	registry.NewResolver(tel.Resolver(registry.ResolverConfig{Store: st}))
	//	executor.New(tel.Executor(executor.Config{Catalog: st, Remote: client}))

	// Output:
	// level=DEBUG msg="hint: built" agent_id=0 strategy=capability apps=gmail matched=4 param_hints=4
	// observed a hint: capability GMAIL_SEND_EMAIL
}
