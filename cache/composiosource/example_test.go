package composiosource_test

import (
	"context"
	"fmt"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/composiosource"
	"github.com/toolhint/toolhint/composio/composiotest"
)

func ExampleNew() {
	ctx := context.Background()
	api := composiotest.New(composiotest.WithCatalog(catalogue())) // stands in for Composio
	defer api.Close()
	client := api.Client() // composio.New(composio.Config{APIKey: key}) in a real program

	st := cache.NewMemory()
	rep, err := cache.Sync(ctx, st, composiosource.New(client), cache.SyncOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d apps and %d actions written\n", rep.Applied.AppsWritten, rep.Applied.ActionsWritten)
	a, _ := st.Action(ctx, "GMAIL_FETCH_EMAILS")
	fmt.Println(a.App, *a.ReadOnly)
	// Output:
	// 3 apps and 5 actions written
	// gmail true
}
