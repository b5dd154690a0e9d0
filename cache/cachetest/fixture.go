package cachetest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolhint/toolhint/cache"
)

// The fixture catalogue every subtest starts from. Descriptions hold the LIKE metacharacters
// '%' and '_' so that searches prove they are matched literally.

func boolp(b bool) *bool { return &b }

func fixtureApps() []cache.App {
	return []cache.App{
		{
			Slug: "gmail", DisplayName: "Gmail", Description: "Send, read and organise e-mail.",
			Logo: "https://logos.example/gmail.png", Categories: []string{"Communication", "Email"},
			AuthSchemes: []string{"OAUTH2"}, Status: "active", LatestVersion: "20260101_00",
		},
		{
			Slug: "slack", DisplayName: "Slack", Description: "Team chat with channels; 100% searchable history.",
			Categories: []string{"Communication"}, AuthSchemes: []string{"OAUTH2", "BEARER_TOKEN"},
			TriggerCount: 1,
			Triggers: []cache.Trigger{{
				Slug: "SLACK_RECEIVE_MESSAGE", Name: "New message", Description: "A message was posted in a channel.",
				Config: json.RawMessage(`{"type":"object","properties":{"channel":{"type":"string"}}}`),
			}},
		},
		{
			Slug: "google_drive", DisplayName: "Google Drive", Description: "Store and share files.",
			Categories: []string{"Storage"}, AuthSchemes: []string{"OAUTH2"},
			ComposioManagedAuthSchemes: []string{"OAUTH2"},
		},
		{
			// googlecalendar sorts after google_drive byte-wise ('_' < 'c') but before it in
			// most locale collations: stores must order slugs byte-wise.
			Slug: "googlecalendar", DisplayName: "Google Calendar", Description: "Schedule events and meetings.",
			Categories: []string{"Productivity"}, AuthSchemes: []string{"OAUTH2"},
		},
		{
			Slug: "jira", DisplayName: "Jira", Description: "Issue tracking for software teams.",
			Categories: []string{"Project Management"}, AuthSchemes: []string{"OAUTH2", "API_KEY"},
		},
		{
			Slug: "weather", DisplayName: "Weather", Description: "Forecasts by city.",
			Categories: []string{"Data"}, AuthSchemes: []string{"NO_AUTH"}, NoAuth: true,
		},
	}
}

// sendEmailParams has irregular spacing on purpose: stores keep parameter schemas byte-exact.
const sendEmailParams = `{"type": "object",  "properties": {"to": {"type": "string", "description": "Recipient address."}, "subject": {"type": "string"}, "body": {"type": "string"}}, "required": ["to", "body"]}`

const listChannelsResponse = `{"type":"object","properties":{"channels":{"type":"array","items":{"type":"object"}}}}`

func fixtureActions() []cache.Action {
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		if len(required) == 0 {
			return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	return []cache.Action{
		{
			App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email",
			Description: "Send an e-mail to one or more recipients.",
			Parameters:  json.RawMessage(sendEmailParams), Tags: []string{"openWorldHint"},
		},
		{
			App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails",
			Description: "List messages in the mailbox, newest first.",
			Parameters:  obj(`"query":{"type":"string"},"max_results":{"type":"integer","default":10}`),
			Tags:        []string{"readOnlyHint"}, ReadOnly: boolp(true), Destructive: boolp(false),
		},
		{
			App: "gmail", Slug: "GMAIL_DELETE_MESSAGE", DisplayName: "Delete message",
			Description: "Permanently delete a message.",
			Parameters:  obj(`"message_id":{"type":"string"}`, "message_id"),
			Tags:        []string{"destructiveHint"}, Destructive: boolp(true), ReadOnly: boolp(false),
		},
		{
			App: "slack", Slug: "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", DisplayName: "Send a message",
			Description: "Post a message to a channel.",
			Parameters:  obj(`"channel":{"type":"string"},"text":{"type":"string"}`, "channel", "text"),
		},
		{
			App: "slack", Slug: "SLACK_CREATE_CHANNEL", DisplayName: "Create channel",
			Description: "Create a public or private channel.",
			Parameters:  obj(`"name":{"type":"string"},"is_private":{"type":"boolean","default":false}`, "name"),
		},
		{
			App: "slack", Slug: "SLACK_LIST_CHANNELS", DisplayName: "List channels",
			Description: "List the workspace's channels; 100% of them when limit is 0.",
			Parameters:  obj(`"limit":{"type":"integer","default":0}`),
			Response:    json.RawMessage(listChannelsResponse),
		},
		{
			App: "google_drive", Slug: "GOOGLE_DRIVE_UPLOAD_FILE", DisplayName: "Upload file",
			Description: "Upload a file to a folder.",
			Parameters:  obj(`"name":{"type":"string"},"folder_id":{"type":"string"}`, "name"),
		},
		{
			App: "googlecalendar", Slug: "GOOGLECALENDAR_CREATE_EVENT", DisplayName: "Create event",
			Description: "Create an event in a calendar.",
			Parameters:  obj(`"summary":{"type":"string"},"start":{"type":"string","format":"date-time"}`, "summary", "start"),
		},
		{
			App: "jira", Slug: "JIRA_CREATE_ISSUE", DisplayName: "Create issue",
			Description: "Create an issue in a project.", Version: "1.2.0",
			Parameters: obj(`"project_key":{"type":"string"},"summary":{"type":"string"}`, "project_key", "summary"),
		},
		{
			App: "jira", Slug: "JIRA_GET_ISSUE", DisplayName: "Get issue",
			Description: "Get an issue by its key, e.g. ABC-123.",
			Parameters:  obj(`"issue_key":{"type":"string"}`, "issue_key"),
		},
		{
			App: "weather", Slug: "WEATHER_GET_FORECAST", DisplayName: "Weather get forecast",
			DisplayNameDerived: true, Description: "Forecast for a city.", NoAuth: true,
			Deprecated: true, Fidelity: "exact", Source: "cachetest",
			Parameters: obj(`"city":{"type":"string"}`, "city"),
		},
	}
}

func fixtureBatch() cache.Batch {
	return cache.Batch{Apps: fixtureApps(), Actions: fixtureActions()}
}

// wantApps is what a store holds after the fixture: the apps ordered by slug with their
// action counts.
func wantApps() []cache.App {
	count := map[string]int{}
	for _, a := range fixtureActions() {
		count[a.App]++
	}
	apps := fixtureApps()
	for i := range apps {
		apps[i].ActionCount = count[apps[i].Slug]
	}
	sortBy(apps, func(a cache.App) string { return a.Slug })
	return apps
}

// wantActions is the fixture's actions ordered by app then slug, optionally only some apps.
func wantActions(apps ...string) []cache.Action {
	var out []cache.Action
	for _, a := range fixtureActions() {
		if len(apps) == 0 || contains(apps, a.App) {
			out = append(out, a)
		}
	}
	sortBy(out, func(a cache.Action) string { return a.App + "\x00" + a.Slug })
	return out
}

func wantApp(slug string) cache.App {
	for _, a := range wantApps() {
		if a.Slug == slug {
			return a
		}
	}
	panic("cachetest: no fixture app " + slug)
}

func wantAction(slug string) cache.Action {
	for _, a := range fixtureActions() {
		if a.Slug == slug {
			return a
		}
	}
	panic("cachetest: no fixture action " + slug)
}

func slugsOf[T any](list []T, slug func(T) string) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = slug(x)
	}
	return out
}

func appSlugs(list []cache.App) []string {
	return slugsOf(list, func(a cache.App) string { return a.Slug })
}

func actionSlugs(list []cache.Action) []string {
	return slugsOf(list, func(a cache.Action) string { return a.Slug })
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortBy[T any](list []T, key func(T) string) {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && key(list[j]) < key(list[j-1]); j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// rawJSON compares non-empty raw JSON by value. Parameter schemas are also checked
// byte-for-byte by the subtests that promise it.
var rawJSON = cmp.FilterValues(func(a, b json.RawMessage) bool { return len(a) > 0 || len(b) > 0 },
	cmp.Comparer(jsonEqual))

// exact compares everything, times included.
var exact = cmp.Options{cmpopts.EquateEmpty(), rawJSON}

// noTimes compares everything but the times stores set themselves.
var noTimes = cmp.Options{
	cmpopts.EquateEmpty(), rawJSON,
	cmpopts.IgnoreFields(cache.App{}, "UpdatedAt"),
	cmpopts.IgnoreFields(cache.Action{}, "UpdatedAt"),
	cmpopts.IgnoreFields(cache.Connection{}, "UpdatedAt", "ConnectedAt"),
	cmpopts.IgnoreFields(cache.Assignment{}, "CreatedAt"),
	cmpopts.IgnoreFields(cache.ToolConfig{}, "UpdatedAt"),
	cmpopts.IgnoreFields(cache.SyncJob{}, "StartedAt", "FinishedAt"),
}

// long returns a string of n bytes.
func long(n int) string { return strings.Repeat("x", n) }

// diffCatalogue is cmp.Diff(want, got) over whole catalogues with opts (noTimes or exact),
// with a fast path for the common case of equal catalogues: cmp is slow on the 16,000
// actions of a full snapshot.
func diffCatalogue(want, got Catalogue, withTimes bool) string {
	strip := func(c Catalogue) Catalogue {
		if withTimes {
			return c
		}
		out := Catalogue{Apps: slices.Clone(c.Apps), Actions: slices.Clone(c.Actions), Meta: c.Meta}
		for i := range out.Apps {
			out.Apps[i].UpdatedAt = time.Time{}
		}
		for i := range out.Actions {
			out.Actions[i].UpdatedAt = time.Time{}
		}
		return out
	}
	if reflect.DeepEqual(strip(want), strip(got)) {
		return ""
	}
	if withTimes {
		return cmp.Diff(want, got, exact)
	}
	return cmp.Diff(want, got, noTimes)
}
