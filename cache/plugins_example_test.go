package cache_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolhint/toolhint/cache"
)

func ExampleMemory_SetAgentPlugins() {
	ctx := context.Background()
	st := cache.NewMemory() // *cache.Postgres behaves the same
	for _, p := range []cache.Plugin{
		{Slug: "code-review", Name: "Code review", TokenEstimate: 400},
		{Slug: "sql-helper", Name: "SQL helper", TokenEstimate: 80},
	} {
		if _, err := st.PutPlugin(ctx, p); err != nil {
			fmt.Println(err)
			return
		}
	}
	_, _ = st.EnablePlugin(ctx, "acme", "code-review", "admin")

	// sql-helper is not enabled in acme: the whole assignment is refused.
	_, err := st.SetAgentPlugins(ctx, "acme", 7, []string{"code-review", "sql-helper"})
	fmt.Println(errors.Is(err, cache.ErrPluginNotEnabled))

	_, _ = st.EnablePlugin(ctx, "acme", "sql-helper", "admin")
	// Replace-all, in order, duplicates dropped.
	as, _ := st.SetAgentPlugins(ctx, "acme", 7, []string{"sql-helper", "code-review", "sql-helper"})
	for _, a := range as {
		fmt.Println(a.Priority, a.Plugin)
	}
	// Output:
	// true
	// 0 sql-helper
	// 1 code-review
}
