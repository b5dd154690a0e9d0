package schema_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/schema"
)

func TestRender(t *testing.T) {
	f, err := schema.Convert("CALENDAR_CREATE_EVENT", "Create a calendar event.",
		json.RawMessage(createEventParams), schema.ConvertOptions{Hidden: []string{"user_id"}})
	if err != nil {
		t.Fatal(err)
	}
	// Each dialect picks out the keys that tell the formats apart.
	tests := []struct {
		dialect schema.Dialect
		want    map[string]any // top-level keys (and function.strict for chat)
	}{
		{schema.DialectOpenAI, map[string]any{"type": "function", "strict": false, "user_id": false}},
		{schema.DialectOpenAIStrict, map[string]any{"type": "function", "strict": true, "user_id": false}},
		{schema.DialectOpenAIResponses, map[string]any{"type": "function", "strict": false, "name": "CALENDAR_CREATE_EVENT", "user_id": false}},
		{schema.DialectOpenAIResponsesStrict, map[string]any{"type": "function", "strict": true, "name": "CALENDAR_CREATE_EVENT", "user_id": false}},
		{schema.DialectAnthropic, map[string]any{"name": "CALENDAR_CREATE_EVENT", "input_schema": true, "user_id": false}},
		{schema.DialectGemini, map[string]any{"name": "CALENDAR_CREATE_EVENT", "parameters": "OBJECT", "user_id": false}},
	}
	for _, tt := range tests {
		t.Run(string(tt.dialect), func(t *testing.T) {
			b, err := f.Render(tt.dialect)
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			body, params := v, v["parameters"]
			if fn, ok := v["function"].(map[string]any); ok {
				body, params = fn, fn["parameters"]
				got["type"] = v["type"]
			} else if v["type"] != nil {
				got["type"] = v["type"]
			}
			if s, ok := body["strict"]; ok {
				got["strict"] = s
			}
			if _, ok := tt.want["name"]; ok {
				got["name"] = v["name"]
			}
			if in, ok := v["input_schema"]; ok {
				got["input_schema"], params = true, in
			}
			p, _ := params.(map[string]any)
			if _, ok := tt.want["parameters"]; ok {
				got["parameters"] = p["type"]
			}
			props, _ := p["properties"].(map[string]any)
			_, got["user_id"] = props["user_id"]
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			all, err := schema.Render([]schema.Function{f, f}, tt.dialect)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{string(b), string(b)}, []string{string(all[0]), string(all[1])}); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := f.Render("cohere"); !errors.Is(err, schema.ErrUnknownDialect) {
		t.Errorf("unknown dialect: %v, want ErrUnknownDialect", err)
	}
	if _, err := schema.Render(nil, ""); !errors.Is(err, schema.ErrUnknownDialect) {
		t.Errorf("empty dialect: %v, want ErrUnknownDialect", err)
	}
}
