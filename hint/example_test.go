package hint_test

import (
	"context"
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
// action that sends a Slack message, not the one that creates a channel.
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
	fmt.Println(res.Lines[1])
	// Output:
	// capability
	// SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL
	// - SLACK: SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL, SLACK_SCHEDULE_MESSAGE
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
