package hint_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// loadTestdata fills a memory store with the project's small testdata catalogue.
func loadTestdata(ctx context.Context) (*cache.Memory, error) {
	st := cache.NewMemory()
	apps, err := os.Open("../testdata/catalog/apps.jsonl")
	if err != nil {
		return nil, err
	}
	defer apps.Close()
	if _, err := cache.ImportAppsJSONL(ctx, st, apps); err != nil {
		return nil, err
	}
	acts, err := os.Open("../testdata/catalog/actions.jsonl")
	if err != nil {
		return nil, err
	}
	defer acts.Close()
	if _, err := cache.ImportJSONL(ctx, st, acts); err != nil {
		return nil, err
	}
	return st, nil
}

// A chatbot turn: the agent may use Slack, Gmail and Google Calendar; the hint names the
// action that sends a Slack message first, before the one that creates a channel.
func ExampleBuild_chatbot() {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, app := range []string{"slack", "gmail", "googlecalendar"} {
		if err := st.AssignApp(ctx, cache.Assignment{AgentID: 42, App: app, Type: "composio", Active: true}); err != nil {
			log.Fatal(err)
		}
	}
	res, err := hint.Build(ctx, st, hint.Request{AgentID: 42, Prompt: "let #launch know the release is out"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Strategy)
	fmt.Println(res.MatchedActions[0])
	fmt.Println(res.Lines[0])
	// Output:
	// capability
	// SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL
	// Composio actions that fit this request, best first (use these exact names):
}

// A recipe step: the instruction is curated, so the hint matches its words directly, with
// the action name weighing most; "read the issue" finds JIRA_GET_ISSUE.
func ExampleBuild_recipe() {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		log.Fatal(err)
	}
	res, err := hint.Build(ctx, st, hint.Request{
		AgentID:    42,
		Apps:       []string{"jira", "slack"},
		Prompt:     "Read the issue named in the trigger and post its summary to the team channel.",
		RecipeMode: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Strategy)
	for _, m := range res.Matches[:2] {
		fmt.Println(m.Action, "step", m.Step)
	}
	// Output:
	// recipe_token
	// JIRA_GET_ISSUE step 0
	// SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL step 1
}

// unreachableConnections is a store whose workspace connections cannot be read, as when
// the database is down.
type unreachableConnections struct{ hint.Store }

func (unreachableConnections) Connections(context.Context, string, ...cache.ConnectionStatus) ([]cache.Connection, error) {
	return nil, errors.New("db: connection refused")
}

// A store that cannot say which apps the workspace connected: Build fails closed rather
// than hint at apps the workspace may not use. A host that would rather go on without a
// hint opts in with Degrade.
func ExampleBuild_failClosed() {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		log.Fatal(err)
	}
	down := unreachableConnections{st}
	req := hint.Request{Apps: []string{"github"}, WorkspaceID: "ws-1", Prompt: "create a github issue"}

	_, err = hint.Build(ctx, down, req)
	fmt.Println(errors.Is(err, hint.ErrStoreUnavailable))
	fmt.Println(err)

	req.Degrade = true
	res, err := hint.Build(ctx, down, req)
	fmt.Printf("%v %q %v\n", err, res.Text, res.Degraded)
	// Output:
	// true
	// hint: store unavailable: workspace connections: db: connection refused
	// <nil> "" workspace connections: db: connection refused
}
