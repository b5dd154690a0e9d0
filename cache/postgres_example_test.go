package cache_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/toolhint/toolhint/cache"
)

// ExampleOpenPostgres opens a PostgreSQL store (applying its migrations), keeps it in a
// schema of its own with the DSN's search_path, and reads one app's actions with their
// enabled state in a workspace. It is compiled but not run: it needs a database.
func ExampleOpenPostgres() {
	ctx := context.Background()
	// The schema must exist: CREATE SCHEMA toolhint;
	dsn := os.Getenv("TOOLHINT_DSN") + "&search_path=toolhint"
	st, err := cache.OpenPostgres(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	page, err := st.AppActions(ctx, cache.AppActionsQuery{App: "gmail", WorkspaceID: "ws-1", Limit: 10})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range page.Actions {
		fmt.Println(a.Action.Slug, a.Enabled)
	}
}
