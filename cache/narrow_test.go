package cache_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
)

// The stores satisfy the small interfaces the imports, exports and Sync ask for.
var (
	_ cache.ImportStore  = (*cache.Memory)(nil)
	_ cache.ImportStore  = (*cache.Postgres)(nil)
	_ cache.ActionLister = (*cache.Postgres)(nil)
	_ cache.AppLister    = (*cache.Postgres)(nil)
	_ cache.SyncStore    = (*cache.Memory)(nil)
	_ cache.SyncStore    = (*cache.Postgres)(nil)
)

// Wrappers that expose only the methods of one small interface: what the imports, exports
// and Sync need and nothing more (no Store, no batch streaming, no sync lock).
type (
	importOnly  struct{ cache.ImportStore }
	actionsOnly struct{ cache.ActionLister }
	appsOnly    struct{ cache.AppLister }
	syncOnly    struct{ cache.SyncStore }
)

// TestSmallInterfaces imports, exports and syncs through stores that have only the methods
// each operation's interface names: the round trip and the sync work as through a full
// store.
func TestSmallInterfaces(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	const apps = `{"app":"NOTES","display_name":"Notes","description":"Notes.","categories":[],"auth_schemes":[],"no_auth":true}` + "\n"
	rows := synthActions(30, "narrow")
	if n, err := cache.ImportAppsJSONL(ctx, importOnly{st}, strings.NewReader(apps)); err != nil || n != 1 {
		t.Fatalf("ImportAppsJSONL = %d, %v; want 1 app", n, err)
	}
	n, err := cache.ImportJSONL(ctx, importOnly{st}, strings.NewReader(rows))
	if err != nil || n != 30 {
		t.Fatalf("ImportJSONL = %d, %v; want 30 actions", n, err)
	}

	var viaSmall, viaStore bytes.Buffer
	if _, err := cache.ExportJSONL(ctx, actionsOnly{st}, &viaSmall); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.ExportJSONL(ctx, st, &viaStore); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viaStore.String(), viaSmall.String()); diff != "" {
		t.Errorf("ExportJSONL through ActionLister (-store +small):\n%s", diff)
	}
	viaSmall.Reset()
	viaStore.Reset()
	if _, err := cache.ExportAppsJSONL(ctx, appsOnly{st}, &viaSmall); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.ExportAppsJSONL(ctx, st, &viaStore); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viaStore.String(), viaSmall.String()); diff != "" {
		t.Errorf("ExportAppsJSONL through AppLister (-store +small):\n%s", diff)
	}

	synced := cache.NewMemory()
	srcApps, srcActions := testCatalogue(3, 4)
	rep, err := cache.Sync(ctx, syncOnly{synced}, &fakeSource{apps: srcApps, actions: srcActions, pageSize: 5, appPage: 2}, cache.SyncOptions{})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	got, err := synced.Actions(ctx, cache.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(srcActions) || rep.Job.Status != cache.JobSucceeded {
		t.Errorf("Sync through SyncStore stored %d actions (job %s), want %d (succeeded)", len(got), rep.Job.Status, len(srcActions))
	}
}
