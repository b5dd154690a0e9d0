package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/toolhint/toolhint/cache"
)

// Load the project's test catalogue into a memory store and look around.
func ExampleNewMemory() {
	ctx := context.Background()
	st := cache.NewMemory()

	f, err := os.Open("../testdata/catalog/actions.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	n, err := cache.ImportJSONL(ctx, st, f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("imported", n, "actions")

	page, err := st.ListApps(ctx, cache.AppQuery{Search: "calendar"})
	if err != nil {
		log.Fatal(err)
	}
	for _, app := range page.Apps {
		fmt.Printf("%s: %d actions\n", app.Slug, app.ActionCount)
	}

	a, err := st.Action(ctx, "GMAIL_SEND_EMAIL")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.App, a.DisplayName)
	// Output:
	// imported 74 actions
	// googlecalendar: 9 actions
	// gmail Send Email
}

// List one app's actions with their enabled state in a workspace.
func ExampleMemory_AppActions() {
	ctx := context.Background()
	st := cache.NewMemory()
	f, err := os.Open("../testdata/catalog/actions.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if _, err := cache.ImportJSONL(ctx, st, f); err != nil {
		log.Fatal(err)
	}

	// The workspace allows two Google Calendar actions; nil would allow them all.
	err = st.SaveEnabledActions(ctx, "ws-1", "googlecalendar", []string{"GOOGLECALENDAR_FIND_EVENT", "GOOGLECALENDAR_CREATE_EVENT"})
	if err != nil {
		log.Fatal(err)
	}
	page, err := st.AppActions(ctx, cache.AppActionsQuery{App: "googlecalendar", WorkspaceID: "ws-1", Search: "event"})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range page.Actions {
		fmt.Println(s.Enabled, s.Action.Slug)
	}
	fmt.Println("total", page.Total)

	// A slug of another app is refused.
	err = st.SaveEnabledActions(ctx, "ws-1", "googlecalendar", []string{"GMAIL_SEND_EMAIL"})
	fmt.Println(err)
	// Output:
	// true GOOGLECALENDAR_CREATE_EVENT
	// false GOOGLECALENDAR_DELETE_EVENT
	// false GOOGLECALENDAR_EVENTS_LIST
	// true GOOGLECALENDAR_FIND_EVENT
	// false GOOGLECALENDAR_QUICK_ADD
	// false GOOGLECALENDAR_REMOVE_ATTENDEE
	// false GOOGLECALENDAR_UPDATE_EVENT
	// total 7
	// cache: invalid input: "GMAIL_SEND_EMAIL" is not an action of app "googlecalendar"
}

// Write a store's actions as a JSON Lines snapshot that ImportJSONL reads back.
func ExampleExportJSONL() {
	ctx := context.Background()
	st := cache.NewMemory()
	_, err := st.Apply(ctx, cache.Batch{
		Apps: []cache.App{{Slug: "weather", DisplayName: "Weather", NoAuth: true}},
		Actions: []cache.Action{{
			App: "weather", Slug: "WEATHER_GET_FORECAST", DisplayName: "Get forecast",
			Description: "Forecast for a city.", NoAuth: true,
			Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := cache.ExportJSONL(ctx, st, os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"app":"WEATHER","action":"WEATHER_GET_FORECAST","display_name":"Get forecast","description":"Forecast for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"tags":[],"no_auth":true,"display_name_derived":false}
}

// Host set-up code that runs on every start: an agent's assignment and a workspace's
// connection are brought to the state wanted, and left alone once they are in it.
func ExampleEnsureAssignment() {
	ctx := context.Background()
	st := cache.NewMemory()
	for run := 1; run <= 2; run++ {
		a, err := cache.EnsureAssignment(ctx, st, cache.Assignment{AgentID: 7, App: "Slack", Type: "composio", Active: true})
		if err != nil {
			log.Fatal(err)
		}
		c, err := cache.EnsureConnection(ctx, st, "acme", "slack", cache.StatusActive, "ca_1")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("run %d: agent %d may use %s; acme's %s is %s through %s\n", run, a.AgentID, a.App, c.App, c.Status, c.ConnectedAccountID)
	}
	// Moving a connection to the status it is in changes nothing.
	c, err := st.SetConnectionStatus(ctx, "acme", "slack", cache.StatusActive, "")
	fmt.Println(c.Status, c.ConnectedAccountID, err)
	// Output:
	// run 1: agent 7 may use slack; acme's slack is active through ca_1
	// run 2: agent 7 may use slack; acme's slack is active through ca_1
	// active ca_1 <nil>
}
