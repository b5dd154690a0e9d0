package hint_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// toolsCatalog is a catalogue of one-action apps named for what they do, as many tool sets
// outside Composio are: nothing in the slug beyond the app's own name, a short description.
const toolsCatalog = `{"app":"get_postmodern_theory","action":"GET_POSTMODERN_THEORY_GET_POSTMODERN_THEORY","display_name":"get_postmodern_theory","description":"Get information about a postmodern theory.","parameters":{"type":"object","properties":{"theory":{"type":"string"}}}}
{"app":"search_software","action":"SEARCH_SOFTWARE_SEARCH_SOFTWARE","display_name":"search_software","description":"Retrieve information about software packages.","parameters":{"type":"object","properties":{"query":{"type":"string"}}}}
{"app":"get_brand_design","action":"GET_BRAND_DESIGN_GET_BRAND_DESIGN","display_name":"get_brand_design","description":"Retrieve information on the design of a brand.","parameters":{"type":"object","properties":{"brand":{"type":"string"}}}}
{"app":"delete_theory","action":"DELETE_THEORY_DELETE_THEORY","display_name":"delete_theory","description":"Delete a postmodern theory and all information about it.","parameters":{"type":"object","properties":{"theory":{"type":"string"}}}}
{"app":"translate_amharic","action":"TRANSLATE_AMHARIC_TRANSLATE_AMHARIC","display_name":"translate_amharic","description":"Translate text into Amharic.","parameters":{"type":"object","properties":{"text":{"type":"string"}}}}
{"app":"send_email","action":"SEND_EMAIL_SEND_EMAIL","display_name":"send_email","description":"Send an email message to a recipient.","parameters":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}}
{"app":"get_weather","action":"GET_WEATHER_GET_WEATHER","display_name":"get_weather","description":"Current weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}
`

func toolsStore(t *testing.T) (*cache.Memory, []string) {
	t.Helper()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(context.Background(), st, strings.NewReader(toolsCatalog)); err != nil {
		t.Fatal(err)
	}
	var apps []string
	for _, line := range strings.Split(strings.TrimSpace(toolsCatalog), "\n") {
		i := strings.Index(line, `"app":"`) + len(`"app":"`)
		apps = append(apps, line[i:i+strings.IndexByte(line[i:], '"')])
	}
	return st, apps
}

// TestRecallFindsWhatTheGateMisses: an action whose only words are its app's name is found
// by its words, first; a destructive one that matches as well is never listed for a request
// that does not ask to destroy, and is for one that does.
func TestRecallFindsWhatTheGateMisses(t *testing.T) {
	st, apps := toolsStore(t)
	for _, tc := range []struct {
		prompt, first string
		destructive   bool
	}{
		{"Retrieve information about postmodern theory.", "GET_POSTMODERN_THEORY_GET_POSTMODERN_THEORY", false},
		{"What's the weather like in Lisbon?", "GET_WEATHER_GET_WEATHER", false},
		{"Delete the postmodern theory I stored", "DELETE_THEORY_DELETE_THEORY", true},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			res := build(t, st, hint.Request{AgentID: 1, Prompt: tc.prompt, Apps: apps})
			if len(res.MatchedActions) == 0 || res.MatchedActions[0] != tc.first {
				t.Fatalf("listed %v, want %s first", res.MatchedActions, tc.first)
			}
			if got := slices.Contains(res.MatchedActions, "DELETE_THEORY_DELETE_THEORY"); got != tc.destructive {
				t.Errorf("destructive action listed = %v, want %v: %v", got, tc.destructive, res.MatchedActions)
			}
		})
	}
}

// TestLaterClausesKeepTheirWords: a long first step whose words expand to many synonyms
// does not crowd a later step's own words out of the analysis.
func TestLaterClausesKeepTheirWords(t *testing.T) {
	st, apps := toolsStore(t)
	prompt := "My friend is planning to start a family and wants to ensure a healthy pregnancy, " +
		"so she is looking for friendly people to help and support her along the way. " +
		"After that, tell me the weather in Lisbon."
	res := build(t, st, hint.Request{AgentID: 1, Prompt: prompt, Apps: apps})
	if !slices.Contains(res.MatchedActions, "GET_WEATHER_GET_WEATHER") {
		t.Errorf("the last step's action is not listed: %v", res.MatchedActions)
	}
}

// TestProbabilityOrdersConfidence: a hint's probability is in [0, 1], 0 with nothing
// listed; a clear request scores above a vague one, and Confident follows the probability.
func TestProbabilityOrdersConfidence(t *testing.T) {
	st, apps := toolsStore(t)
	clear := build(t, st, hint.Request{AgentID: 1, Prompt: "Retrieve information about postmodern theory.", Apps: apps})
	vague := build(t, st, hint.Request{AgentID: 1, Prompt: "information please", Apps: apps})
	none := build(t, st, hint.Request{AgentID: 1, Prompt: "zzzz qqqq", Apps: apps})
	for _, r := range []hint.Result{clear, vague, none} {
		if r.Probability < 0 || r.Probability > 1 {
			t.Errorf("probability %v out of [0, 1]", r.Probability)
		}
	}
	if none.Probability != 0 || none.Confident {
		t.Errorf("nothing listed: probability %v, confident %v", none.Probability, none.Confident)
	}
	if clear.Probability <= vague.Probability {
		t.Errorf("clear request %v not above a vague one %v", clear.Probability, vague.Probability)
	}
	p := hint.DefaultWeights()
	at, _ := p.Get("confident_p")
	if clear.Confident != (clear.Probability >= at) || vague.Confident != (vague.Probability >= at) {
		t.Errorf("confident does not follow the probability (threshold %v): %+v %+v", at, clear, vague)
	}
}
