package cache_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jmoiron/sqlx"

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

// ExampleNewPostgres runs a store on a pool the program builds itself: through
// NewPostgresConnector, so that calls keep their deadlines on a frozen server, with the
// program's own pool limits. The schema was migrated by a deploy step (see ExampleMigrate),
// so the application's role needs no CREATE. It is compiled but not run: it needs a
// database.
func ExampleNewPostgres() {
	ctx := context.Background()
	connector, err := cache.NewPostgresConnector(os.Getenv("TOOLHINT_DSN"), cache.PostgresOptions{ConnectTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	db := sqlx.NewDb(sql.OpenDB(connector), "postgres")
	defer db.Close() // the store leaves the pool to its owner
	db.SetMaxOpenConns(16)

	st, err := cache.NewPostgres(ctx, db, cache.PostgresOptions{SkipMigrations: true})
	if errors.Is(err, cache.ErrMigrationNeeded) {
		log.Fatal("run the deploy step first: ", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	page, err := st.ListApps(ctx, cache.AppQuery{Search: "mail"})
	if err != nil {
		log.Fatal(err) // wraps context.DeadlineExceeded if the server did not answer in time
	}
	fmt.Println(page.Total)
}

// ExampleMigrate is a deploy step: it applies the migrations the schema lacks, as a role
// that may create tables, so that the application can run with SkipMigrations as a role
// that may only read and write rows. It is compiled but not run: it needs a database.
func ExampleMigrate() {
	db, err := sqlx.Open("postgres", os.Getenv("TOOLHINT_MIGRATE_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if err := cache.Migrate(context.Background(), db); err != nil {
		log.Fatal(err) // wraps cache.ErrPermission when the role may not create tables
	}
}
