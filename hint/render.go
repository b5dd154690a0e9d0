package hint

import (
	"slices"
	"strings"
)

// render writes res.Text and res.Lines from res.Matches.
func (b *Builder) render(res *Result) {
	if len(res.Matches) == 0 {
		res.Text, res.Lines = "", nil
		return
	}
	var lines []string
	if res.Strategy == StrategyFallback {
		lines = append(lines, "No action matched this request closely. Actions available to you include (use these exact names):")
	} else {
		lines = append(lines, "Composio actions that fit this request, best first (use these exact names):")
	}
	// Group by app, apps in order of their best action.
	var apps []string
	for _, m := range res.Matches {
		if !slices.Contains(apps, m.App) {
			apps = append(apps, m.App)
		}
	}
	for _, app := range apps {
		var names []string
		for _, m := range res.Matches {
			if m.App == app {
				names = append(names, m.Action)
			}
		}
		lines = append(lines, "- "+strings.ToUpper(app)+": "+strings.Join(names, ", "))
	}
	params := false
	for _, m := range res.Matches {
		if len(m.Params) == 0 {
			continue
		}
		if !params {
			lines = append(lines, "Parameters (name: type, * = required):")
			params = true
		}
		var ps []string
		for _, p := range m.Params {
			s := p.Name
			if p.Required {
				s += "*"
			}
			if p.Type != "" {
				s += ": " + p.Type
			}
			if p.Description != "" {
				s += " (" + p.Description + ")"
			}
			ps = append(ps, s)
		}
		lines = append(lines, "- "+m.Action+": "+strings.Join(ps, "; "))
	}
	if res.Confident {
		lines = append(lines, "You MUST call "+res.Matches[0].Action+" (or another action listed above) to do this; do not invent action names.")
	} else {
		lines = append(lines, "If one of these actions fits, call it by its exact name; do not invent action names.")
	}
	res.Lines = lines
	res.Text = strings.Join(lines, "\n")
}
