package hint_test

import (
	"context"
	"errors"
	"strings"

	"github.com/toolhint/toolhint/cache"
)

// fakeStore is a hand-written hint.Store. Its methods fail with err when the method's name
// is in failing, and panic when it is in panicking.
type fakeStore struct {
	assignments map[int64][]cache.Assignment
	connections map[string][]cache.Connection
	configs     map[string][]cache.ToolConfig
	metas       []cache.ActionMeta
	failing     map[string]bool
	panicking   map[string]bool
}

var errFake = errors.New("fake: store down")

func (f *fakeStore) check(method string) error {
	if f.panicking[method] {
		panic("fake: " + method + " exploded")
	}
	if f.failing[method] {
		return errFake
	}
	return nil
}

func (f *fakeStore) AgentApps(ctx context.Context, agentID int64) ([]cache.Assignment, error) {
	if err := f.check("AgentApps"); err != nil {
		return nil, err
	}
	return f.assignments[agentID], nil
}

func (f *fakeStore) Connections(ctx context.Context, ws string, statuses ...cache.ConnectionStatus) ([]cache.Connection, error) {
	if err := f.check("Connections"); err != nil {
		return nil, err
	}
	var out []cache.Connection
	for _, c := range f.connections[ws] {
		if len(statuses) == 0 || containsStatus(statuses, c.Status) {
			out = append(out, c)
		}
	}
	return out, nil
}

func containsStatus(ss []cache.ConnectionStatus, s cache.ConnectionStatus) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (f *fakeStore) ToolConfigs(ctx context.Context, ws string) ([]cache.ToolConfig, error) {
	if err := f.check("ToolConfigs"); err != nil {
		return nil, err
	}
	return f.configs[ws], nil
}

func (f *fakeStore) ActionMeta(ctx context.Context, apps []string) ([]cache.ActionMeta, error) {
	if err := f.check("ActionMeta"); err != nil {
		return nil, err
	}
	var out []cache.ActionMeta
	for _, m := range f.metas {
		for _, a := range apps {
			if strings.EqualFold(a, m.App) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// fixture is a small catalogue, classified with the default classifier.
func fixture() []cache.ActionMeta {
	acts := []cache.Action{
		{App: "slack", Slug: "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", DisplayName: "Send message", Description: "Posts a message to a channel, a direct message or a thread."},
		{App: "slack", Slug: "SLACK_CREATE_CHANNEL_BASED_CONVERSATION", DisplayName: "Create channel", Description: "Creates a new public or private channel for conversations."},
		{App: "slack", Slug: "SLACK_LIST_ALL_CHANNELS", DisplayName: "List channels", Description: "Lists the channels of a workspace."},
		{App: "slack", Slug: "SLACK_ARCHIVE_A_SLACK_CONVERSATION", DisplayName: "Archive conversation", Description: "Archives a channel."},
		{App: "slack", Slug: "SLACK_DELETES_A_MESSAGE_FROM_A_CHAT", DisplayName: "Delete message", Description: "Deletes a message from a channel."},
		{App: "slack", Slug: "SLACK_SEARCH_MESSAGES", DisplayName: "Search messages", Description: "Searches messages across the workspace."},
		{App: "jira", Slug: "JIRA_GET_ISSUE", DisplayName: "Get issue", Description: "Retrieves a Jira issue by its ID or key."},
		{App: "jira", Slug: "JIRA_CREATE_ISSUE", DisplayName: "Create issue", Description: "Creates a new issue in a project."},
		{App: "jira", Slug: "JIRA_SEARCH_FOR_ISSUES_USING_JQL_GET", DisplayName: "Search issues with JQL", Description: "Searches for issues using a JQL query."},
		{App: "jira", Slug: "JIRA_ADD_COMMENT", DisplayName: "Add comment", Description: "Adds a comment to an issue."},
		{App: "jira", Slug: "JIRA_DELETE_ISSUE", DisplayName: "Delete issue", Description: "Deletes an issue and its subtasks."},
		{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email to one or more recipients.",
			Parameters: []byte(`{"type":"object","properties":{"recipient_email":{"type":"string","description":"Address of the recipient."},"subject":{"type":"string"},"body":{"type":"string","description":"Plain text body."}},"required":["recipient_email","body"]}`)},
		{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "Fetches a list of email messages matching a search query."},
		{App: "gmail", Slug: "GMAIL_MOVE_TO_TRASH", DisplayName: "Move to trash", Description: "Moves a message to the trash."},
		{App: "googlecalendar", Slug: "GOOGLECALENDAR_CREATE_EVENT", DisplayName: "Create event", Description: "Creates an event on a calendar."},
		{App: "googlecalendar", Slug: "GOOGLECALENDAR_EVENTS_LIST", DisplayName: "List events", Description: "Lists the events of a calendar."},
		{App: "googlecalendar", Slug: "GOOGLECALENDAR_DELETE_EVENT", DisplayName: "Delete event", Description: "Deletes an event."},
	}
	return classifyAll(acts)
}

// classifyAll classifies acts with the default taxonomy, as a store does on import.
func classifyAll(acts []cache.Action) []cache.ActionMeta {
	c := cache.NewClassifier(nil)
	out := make([]cache.ActionMeta, 0, len(acts))
	for _, a := range acts {
		out = append(out, c.Classify(a))
	}
	return out
}
