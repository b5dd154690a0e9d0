package cache_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
)

// TestImportProgress: the progress callback sees the counts grow to the totals, and the
// import with a callback stores what ImportJSONL stores.
func TestImportProgress(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	const apps, perApp = 7, 3000 // more than one chunk
	for a := range apps {
		for i := range perApp {
			fmt.Fprintf(&b, `{"app":"APP%d","action":"APP%d_ACTION_%d","description":"d","parameters":{"type":"object","properties":{}}}`+"\n", a, a, i)
		}
	}
	st := cache.NewMemory()
	var seen []cache.ImportProgress
	n, err := cache.ImportJSONLWithOptions(ctx, st, strings.NewReader(b.String()), cache.ImportOptions{
		Progress: func(p cache.ImportProgress) { seen = append(seen, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != apps*perApp {
		t.Fatalf("imported %d, want %d", n, apps*perApp)
	}
	if len(seen) < 2 {
		t.Fatalf("%d progress calls, want one per chunk (several)", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Actions <= seen[i-1].Actions || seen[i].Apps < seen[i-1].Apps {
			t.Errorf("progress went back: %+v then %+v", seen[i-1], seen[i])
		}
	}
	if diff := cmp.Diff(cache.ImportProgress{Actions: apps * perApp, Apps: apps}, seen[len(seen)-1]); diff != "" {
		t.Errorf("last progress (-want +got):\n%s", diff)
	}
	acts, err := st.Actions(ctx, cache.ActionFilter{})
	if err != nil || len(acts) != apps*perApp {
		t.Errorf("store holds %d actions (%v), want %d", len(acts), err, apps*perApp)
	}
}
