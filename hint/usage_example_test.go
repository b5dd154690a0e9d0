package hint_test

import (
	"context"
	"fmt"
	"log"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// A workspace that answers mail by replying in the thread: once its calls are recorded
// (executor.UsageRecorder does it), the hint for the workspace puts the reply first, and
// names it with confidence when the request repeats one that led to it.
func ExampleConfig_usage() {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := cache.EnsureConnection(ctx, st, "acme", "gmail", cache.StatusActive, "ca_1"); err != nil {
		log.Fatal(err)
	}
	b := hint.New(hint.Config{Usage: &hint.UsageConfig{}}) // st is the record of use too
	req := hint.Request{WorkspaceID: "acme", Prompt: "respond to Dana's email about the invoice"}

	res, err := b.Build(ctx, st, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("before:", res.MatchedActions)

	var calls []cache.UsageEvent
	for _, p := range []string{"respond to Sam's email about the contract", "respond to the landlord's email about the lease"} {
		calls = append(calls, cache.UsageEvent{WorkspaceID: "acme", App: "gmail", Action: "GMAIL_REPLY_TO_THREAD", OK: true, Terms: hint.PromptTerms(p)})
	}
	if err := st.RecordUsage(ctx, calls, cache.UsageLimits{}); err != nil {
		log.Fatal(err)
	}
	b = hint.New(hint.Config{Usage: &hint.UsageConfig{}}) // a new Builder: the old one keeps what it read for 30s
	res, err = b.Build(ctx, st, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after:", res.MatchedActions, "usage share of the first:", res.Matches[0].Usage, "confident:", res.Confident)

	// The very request, once it has led to a successful call, is an exact repeat: the
	// hint names the action first and is sure of it.
	ev := cache.UsageEvent{WorkspaceID: "acme", App: "gmail", Action: "GMAIL_REPLY_TO_THREAD", OK: true, Terms: hint.PromptTerms(req.Prompt)}
	if err := st.RecordUsage(ctx, []cache.UsageEvent{ev}, cache.UsageLimits{}); err != nil {
		log.Fatal(err)
	}
	b = hint.New(hint.Config{Usage: &hint.UsageConfig{}})
	res, err = b.Build(ctx, st, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("repeat:", res.MatchedActions, "confident:", res.Confident, res.Probability)
	// Output:
	// before: [GMAIL_SEND_EMAIL GMAIL_REPLY_TO_THREAD GMAIL_FETCH_EMAILS GMAIL_ADD_LABEL_TO_EMAIL GMAIL_CREATE_EMAIL_DRAFT]
	// after: [GMAIL_REPLY_TO_THREAD GMAIL_SEND_EMAIL GMAIL_FETCH_EMAILS GMAIL_ADD_LABEL_TO_EMAIL GMAIL_CREATE_EMAIL_DRAFT] usage share of the first: 3.305 confident: false
	// repeat: [GMAIL_REPLY_TO_THREAD GMAIL_SEND_EMAIL GMAIL_FETCH_EMAILS] confident: true 0.9
}
