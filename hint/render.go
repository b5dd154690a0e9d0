package hint

import (
	"slices"
	"strings"
)

// Render, the last stage: it takes the Result that order and calibrate filled (order.go,
// calibrate.go), with the parameter hints of params.go, and writes the text the model reads.

// render writes res.Text, res.Lines and res.MetaTools from res.Matches. search is the
// name of the search meta-tool the model is given ("" when it has none): only then does the
// text of a hint that is not sure name it, and res.MetaTools lists it.
func (b *Builder) render(res *Result, search string) {
	res.MetaTools = nil
	if res.Strategy == StrategyFallback {
		// Nothing fits: no list of actions that merely exist, but a pointer to search when
		// the model has it.
		res.Lines = []string{"No Composio action matched this request closely."}
		if search != "" {
			res.Lines = append(res.Lines, "If it needs a tool, call "+search+" with a short description of the task to find one"+appsInScope(res.Apps)+"; do not invent action names.")
			res.MetaTools = []string{search}
		} else {
			res.Lines = append(res.Lines, "If it needs a tool, tell the user that none was found"+appsInScope(res.Apps)+"; do not invent action names.")
		}
		res.Text = strings.Join(res.Lines, "\n")
		return
	}
	if len(res.Matches) == 0 {
		res.Text, res.Lines = "", nil
		return
	}
	lines := []string{"Composio actions that fit this request, best first (use these exact names):"}
	// Group by app, apps in order of their best action.
	var apps []string
	for _, m := range res.Matches {
		if !slices.Contains(apps, m.App) {
			apps = append(apps, m.App)
		}
	}
	var sb strings.Builder
	for _, app := range apps {
		sb.Reset()
		sb.WriteString("- ")
		sb.WriteString(strings.ToUpper(app))
		sb.WriteString(": ")
		sep := ""
		for _, m := range res.Matches {
			if m.App == app {
				sb.WriteString(sep)
				sb.WriteString(m.Action)
				sep = ", "
			}
		}
		lines = append(lines, sb.String())
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
		sb.Reset()
		sb.WriteString("- ")
		sb.WriteString(m.Action)
		sb.WriteString(": ")
		for j, p := range m.Params {
			if j > 0 {
				sb.WriteString("; ")
			}
			sb.WriteString(p.Name)
			if p.Required {
				sb.WriteString("*")
			}
			if p.Type != "" {
				sb.WriteString(": ")
				sb.WriteString(p.Type)
			}
			if p.Description != "" {
				sb.WriteString(" (")
				sb.WriteString(p.Description)
				sb.WriteString(")")
			}
		}
		lines = append(lines, sb.String())
	}
	if res.Confident {
		lines = append(lines, "You MUST call "+res.Matches[0].Action+" (or another action listed above) to do this; do not invent action names.")
	} else if search != "" {
		lines = append(lines, "None of these is a sure match. If one fits, call it by its exact name; if none does, call "+
			search+" with a short description of the task"+appsInScope(res.Apps)+". Do not invent action names.")
		res.MetaTools = []string{search}
	} else {
		lines = append(lines, "None of these is a sure match. If one fits, call it by its exact name; if none does, "+
			"say so and ask the user. Do not invent action names.")
	}
	res.Lines = lines
	res.Text = strings.Join(lines, "\n")
}

// SearchTool is the name of the router's search meta-tool (executor.ToolSearch), for
// Config.SearchTool and Request.SearchTool.
const SearchTool = "search_tools"

// appsInScope names the apps a search may cover, for the hint text.
func appsInScope(apps []string) string {
	if len(apps) == 0 || len(apps) > 12 {
		return ""
	}
	return " (apps: " + strings.Join(apps, ", ") + ")"
}

// search returns the search meta-tool the model has for req: Request.SearchTool, else
// Config.SearchTool.
func (b *Builder) search(req Request) string {
	if req.SearchTool != "" {
		return req.SearchTool
	}
	return b.searchTool
}
