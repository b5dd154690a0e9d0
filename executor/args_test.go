package executor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
)

// defaultsStore holds actions whose schemas carry defaults, as Composio's do.
func defaultsStore(t testing.TB) *cache.Memory {
	t.Helper()
	st := cache.NewMemory()
	_, err := st.Apply(context.Background(), cache.Batch{
		Apps: []cache.App{{Slug: "salesforce", DisplayName: "Salesforce"}, {Slug: "linear", DisplayName: "Linear"}, {Slug: "github", DisplayName: "GitHub"}},
		Actions: []cache.Action{
			{App: "salesforce", Slug: "SALESFORCE_CREATE_LEAD", Description: "Create a lead.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"last_name":{"type":"string"},"company":{"type":"string"},
				"title":{"type":"string","default":""},"status":{"type":"string","default":"Open - Not Contacted"},
				"address":{"type":"object","properties":{"city":{"type":"string","default":""}}}},
				"required":["last_name","company"]}`)},
			{App: "salesforce", Slug: "SALESFORCE_UPDATE_LEAD", Description: "Update a lead.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"lead_id":{"type":"string"},"title":{"type":"string","default":""},"status":{"type":"string","default":"Open - Not Contacted"}},
				"required":["lead_id"]}`)},
			{App: "github", Slug: "GITHUB_LIST_REPOSITORY_ISSUES", Description: "List issues.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"owner":{"type":"string"},"repo":{"type":"string"},"per_page":{"type":"integer","default":1},"state":{"type":"string","enum":["open","closed"],"default":"open"}},
				"required":["owner","repo"]}`)},
			{App: "linear", Slug: "LINEAR_CREATE_LINEAR_ISSUE", Description: "Create an issue.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"team_id":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},"priority":{"type":"integer"}},
				"required":["team_id","title"]}`)},
			{App: "linear", Slug: "LINEAR_GET_ISSUE", Description: "Get an issue.", Parameters: json.RawMessage(`{"type":"object","properties":{
				"issue_id":{"type":"string"}},"required":["issue_id"],"additionalProperties":false}`)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestExecuteSendsOnlyWhatTheModelWrote: no default reaches the remote unless the host opts
// in, globally or per action, and an update action never gets one.
func TestExecuteSendsOnlyWhatTheModelWrote(t *testing.T) {
	st := defaultsStore(t)
	create := executor.Call{Name: "SALESFORCE_CREATE_LEAD", Arguments: json.RawMessage(`{"last_name":"Lee","company":"Acme","address":{}}`)}
	update := executor.Call{Name: "SALESFORCE_UPDATE_LEAD", Arguments: json.RawMessage(`{"lead_id":"00Q1"}`)}
	list := executor.Call{Name: "GITHUB_LIST_REPOSITORY_ISSUES", Arguments: json.RawMessage(`{"owner":"o","repo":"r"}`)}
	tests := []struct {
		name    string
		fill    bool
		fillFor []string
		call    executor.Call
		want    string
		coerced []string
	}{
		{name: "create, no opt-in", call: create, want: `{"last_name":"Lee","company":"Acme","address":{}}`},
		{name: "list, no opt-in", call: list, want: `{"owner":"o","repo":"r"}`},
		{name: "update, no opt-in", call: update, want: `{"lead_id":"00Q1"}`},
		{name: "create, global opt-in fills every level", fill: true, call: create,
			want:    `{"address":{"city":""},"company":"Acme","last_name":"Lee","status":"Open - Not Contacted","title":""}`,
			coerced: []string{"/address/city: default", "/status: default", "/title: default"}},
		{name: "update, global opt-in still fills nothing", fill: true, call: update, want: `{"lead_id":"00Q1"}`},
		{name: "update, named opt-in still fills nothing", fillFor: []string{"SALESFORCE_UPDATE_LEAD"}, call: update, want: `{"lead_id":"00Q1"}`},
		{name: "list, named opt-in", fillFor: []string{"GITHUB_LIST_REPOSITORY_ISSUES"}, call: list,
			want: `{"owner":"o","per_page":1,"repo":"r","state":"open"}`, coerced: []string{"/per_page: default", "/state: default"}},
		{name: "create, opt-in for another action", fillFor: []string{"GITHUB_LIST_REPOSITORY_ISSUES"}, call: create, want: `{"last_name":"Lee","company":"Acme","address":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote := &fakeRemote{}
			ex := mustNew(t, executor.Config{Catalog: st, Remote: remote, FillDefaults: tt.fill, FillDefaultsFor: tt.fillFor})
			defer ex.Close()
			got := ex.Execute(context.Background(), tt.call)
			if !got.OK {
				t.Fatalf("not OK: %s", got.Error)
			}
			reqs := remote.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d remote requests, want 1", len(reqs))
			}
			if diff := cmp.Diff(tt.want, string(reqs[0].Arguments)); diff != "" {
				t.Errorf("arguments sent (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.coerced, got.Coerced); diff != "" {
				t.Errorf("coerced (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecuteUnknownParameter: an undeclared parameter on an open schema is passed on with a
// notice naming the closest declared one; a closed schema refuses with the same suggestion.
func TestExecuteUnknownParameter(t *testing.T) {
	st := defaultsStore(t)
	tests := []struct {
		name      string
		call      executor.Call
		wantKind  executor.ErrorKind
		wantSent  string
		wantNotes []string
		wantError []string // substrings of the error text
	}{
		{name: "typo on an open schema", call: executor.Call{Name: "LINEAR_CREATE_LINEAR_ISSUE", Arguments: json.RawMessage(`{"team_id":"T","title":"x","titel":"typo"}`)},
			wantSent:  `{"team_id":"T","title":"x","titel":"typo"}`,
			wantNotes: []string{"`titel` is not a parameter of LINEAR_CREATE_LINEAR_ISSUE; did you mean `title`?"}},
		{name: "other spelling on an open schema", call: executor.Call{Name: "LINEAR_CREATE_LINEAR_ISSUE", Arguments: json.RawMessage(`{"teamId":"T","title":"x","team_id":"T"}`)},
			wantSent:  `{"teamId":"T","title":"x","team_id":"T"}`,
			wantNotes: []string{"`teamId` is not a parameter of LINEAR_CREATE_LINEAR_ISSUE; did you mean `team_id`?"}},
		{name: "nothing close on an open schema", call: executor.Call{Name: "LINEAR_CREATE_LINEAR_ISSUE", Arguments: json.RawMessage(`{"team_id":"T","title":"x","assignee_email":"a@b.c"}`)},
			wantSent:  `{"team_id":"T","title":"x","assignee_email":"a@b.c"}`,
			wantNotes: []string{"`assignee_email` is not a parameter of LINEAR_CREATE_LINEAR_ISSUE; it was sent as written."}},
		{name: "declared parameters only: no notice", call: executor.Call{Name: "LINEAR_CREATE_LINEAR_ISSUE", Arguments: json.RawMessage(`{"team_id":"T","title":"x"}`)},
			wantSent: `{"team_id":"T","title":"x"}`},
		{name: "typo on a closed schema", call: executor.Call{Name: "LINEAR_GET_ISSUE", Arguments: json.RawMessage(`{"issue_id":"1","isue_id":"1"}`)},
			wantKind:  executor.KindInvalidArguments,
			wantError: []string{"`isue_id` is not a parameter of LINEAR_GET_ISSUE; did you mean `issue_id`?"}},
		{name: "misspelt required parameter on a closed schema", call: executor.Call{Name: "LINEAR_GET_ISSUE", Arguments: json.RawMessage(`{"issueId":"1"}`)},
			wantKind:  executor.KindInvalidArguments,
			wantError: []string{"missing required", "`issueId` is not a parameter of LINEAR_GET_ISSUE; did you mean `issue_id`?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote := &fakeRemote{}
			ex := mustNew(t, executor.Config{Catalog: st, Remote: remote})
			defer ex.Close()
			got := ex.Execute(context.Background(), tt.call)
			if got.ErrorKind != tt.wantKind {
				t.Fatalf("kind %q, want %q: %s", got.ErrorKind, tt.wantKind, got.Error)
			}
			if diff := cmp.Diff(tt.wantNotes, got.Notices); diff != "" {
				t.Errorf("notices (-want +got):\n%s", diff)
			}
			for _, n := range tt.wantNotes {
				if !strings.Contains(got.ForModel(), n) {
					t.Errorf("ForModel %q lacks the notice %q", got.ForModel(), n)
				}
			}
			for _, s := range tt.wantError {
				if !strings.Contains(got.Error, s) {
					t.Errorf("error %q lacks %q", got.Error, s)
				}
			}
			reqs := remote.requests()
			if tt.wantSent == "" {
				if len(reqs) != 0 {
					t.Errorf("refused call reached the remote: %s", reqs[0].Arguments)
				}
				return
			}
			if len(reqs) != 1 {
				t.Fatalf("%d remote requests, want 1", len(reqs))
			}
			if diff := cmp.Diff(tt.wantSent, string(reqs[0].Arguments)); diff != "" {
				t.Errorf("arguments sent (-want +got):\n%s", diff)
			}
		})
	}
}
