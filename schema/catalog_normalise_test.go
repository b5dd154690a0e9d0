package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/schema"
)

// describedOptionalText is an independent, deliberately plain reading of "this property may
// be left out", used to measure the normaliser from outside.
func describedOptionalText(desc string) bool {
	d := strings.ToLower(desc)
	for _, p := range []string{"optional.", "(optional)", "omit", "if not provided", "if not specified", "set to null"} {
		if strings.Contains(d, p) {
			return true
		}
	}
	return strings.HasPrefix(d, "optional")
}

// requiredFacts counts, in the root object of a schema, the required properties and those
// among them whose description says they may be left out.
func requiredFacts(s *schema.Schema) (required, describedOptional int) {
	for _, name := range s.Required {
		required++
		if p, ok := s.Properties[name]; ok && describedOptionalText(p.Description) {
			describedOptional++
		}
	}
	return required, describedOptional
}

// TestCatalogNormaliser runs the normaliser over the whole catalogue, logs how often each
// rule fires and checks the result against independent measures: the over-long required
// lists are gone, required properties described as optional are gone, and a second pass
// finds nothing more.
func TestCatalogNormaliser(t *testing.T) {
	rows := loadCatalog(t)
	counts := map[schema.Rule]int{}
	actions := map[schema.Rule]int{}
	var over20Before, over20After, optBefore, optAfter int
	for _, r := range rows {
		f, err := schema.Convert(r.Action, r.Description, r.Parameters)
		if err != nil {
			t.Fatalf("%s: %v", r.Action, err)
		}
		declared, err := schema.Parse(r.Parameters)
		if err != nil {
			t.Fatalf("%s: %v", r.Action, err)
		}
		relaxed, err := f.Schema()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[schema.Rule]bool{}
		for _, x := range f.Relaxed {
			counts[x.Rule]++
			if !seen[x.Rule] {
				seen[x.Rule] = true
				actions[x.Rule]++
			}
		}
		n, o := requiredFacts(declared)
		if n >= 20 {
			over20Before++
		}
		optBefore += o
		n, o = requiredFacts(relaxed)
		if n >= 20 {
			over20After++
			t.Errorf("%s still requires %d properties", r.Action, n)
		}
		optAfter += o
		if _, again := schema.Relax(relaxed); len(again) > 0 {
			t.Errorf("%s: a second pass relaxes %v", r.Action, again)
		}
		switch r.Action {
		case "GMAIL_SEND_EMAIL":
			if relaxed.Properties["attachment"] == nil || contains(relaxed.Required, "attachment") {
				t.Errorf("GMAIL_SEND_EMAIL still requires attachment: %v", relaxed.Required)
			}
		case "KIBANA_POST_DASHBOARDS":
			if !strings.Contains(f.StrictReason, "nested") {
				t.Errorf("KIBANA_POST_DASHBOARDS: StrictReason = %q, want a nesting fallback", f.StrictReason)
			}
		}
	}
	total := 0
	for _, rule := range schema.Rules() {
		t.Logf("%-20s %5d properties in %5d actions", rule, counts[rule], actions[rule])
		total += counts[rule]
	}
	t.Logf("%-20s %5d properties", "total", total)
	t.Logf("actions requiring >= 20 properties: %d before, %d after", over20Before, over20After)
	t.Logf("root-level required properties described as optional: %d before, %d after", optBefore, optAfter)
	// Bounds around what the rules find in the catalogue snapshot: a rule that stops
	// firing, or starts firing everywhere, is a bug.
	bounds := map[schema.Rule][2]int{
		schema.RuleDefault:           {1, 100},
		schema.RuleNullable:          {100, 600},
		schema.RuleDescribedOptional: {1000, 4000},
		schema.RuleDescribedNull:     {50, 400},
		schema.RuleReadOnly:          {50, 600},
		schema.RuleEmptyContainer:    {1500, 6000},
		schema.RuleInferredRequired:  {4000, 12000},
	}
	for rule, b := range bounds {
		if counts[rule] < b[0] || counts[rule] > b[1] {
			t.Errorf("rule %s relaxed %d properties, outside the expected %d..%d", rule, counts[rule], b[0], b[1])
		}
	}
	if over20Before < 100 {
		t.Errorf("only %d actions required >= 20 properties before normalising; is this the shared catalogue?", over20Before)
	}
	if optAfter*10 > optBefore {
		t.Errorf("%d required properties described as optional remain (of %d)", optAfter, optBefore)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// TestCatalogSendEmail is the headline case, on the real schema.
func TestCatalogSendEmail(t *testing.T) {
	rows := loadCatalog(t)
	var params json.RawMessage
	for _, r := range rows {
		if r.Action == "GMAIL_SEND_EMAIL" {
			params = r.Parameters
		}
	}
	if params == nil {
		t.Skip("GMAIL_SEND_EMAIL is not in this catalogue")
	}
	v, err := schema.Compile(params)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"recipient_email":"jay@acme.com","subject":"x","body":"hi"}`,
		`{"recipient_email":"jay@acme.com","subject":"x","body":"hi","attachment":null}`,
	} {
		if err := v.Validate(json.RawMessage(args)); err != nil {
			t.Errorf("Validate(%s): %v", args, err)
		}
		if _, _, err := v.CoerceAndValidate(json.RawMessage(args)); err != nil {
			t.Errorf("CoerceAndValidate(%s): %v", args, err)
		}
	}
	strict, err := schema.Compile(params, schema.CompileOptions{Mode: schema.Strict})
	if err != nil {
		t.Fatal(err)
	}
	if err := strict.Validate(json.RawMessage(`{"recipient_email":"jay@acme.com","subject":"x","body":"hi"}`)); err == nil {
		t.Error("Strict mode accepts the call without attachment: the catalogue changed, or Strict relaxes")
	}
	if err := v.Validate(json.RawMessage(`{"subject":"x","body":"hi"}`)); err == nil {
		t.Error("Lenient mode accepts a call without recipient")
	}
}
