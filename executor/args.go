package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/schema"
)

// topKeys calls fn with the raw bytes of each key of the JSON object args, in order. args
// must be valid JSON. A key with escapes is passed as written (see keyString).
func topKeys(args []byte, fn func(raw []byte)) {
	depth, wantKey := 0, false
	for i := 0; i < len(args); i++ {
		switch c := args[i]; c {
		case '{', '[':
			depth++
			wantKey = depth == 1 && c == '{'
		case '}', ']':
			depth--
		case ',':
			wantKey = depth == 1
		case '"':
			j := i + 1
			for j < len(args) && args[j] != '"' {
				if args[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 1 && wantKey {
				fn(args[i+1 : min(j, len(args))])
				wantKey = false
			}
			i = j
		}
	}
}

// keyString returns the text of a raw JSON key.
func keyString(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
		return string(raw)
	}
	return s
}

// removeKeys returns args without the given top-level keys.
func removeKeys(args json.RawMessage, keys []string) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return args
	}
	for _, k := range keys {
		delete(m, k)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}

// inspectArgs sorts the top-level keys the schema does not declare: runtime-context keys are
// removed from args and listed in stripped, the others are listed in unknown.
func (e *Executor) inspectArgs(args json.RawMessage, p *prepared) (out json.RawMessage, stripped, unknown []string) {
	topKeys(args, func(raw []byte) {
		if p.props[string(raw)] {
			return
		}
		k := keyString(raw)
		if p.props[k] {
			return
		}
		if _, ok := e.strip[k]; ok {
			if !slices.Contains(stripped, k) {
				stripped = append(stripped, k)
			}
			return
		}
		if !slices.Contains(unknown, k) {
			unknown = append(unknown, k)
		}
	})
	if len(stripped) > 0 {
		args = removeKeys(args, stripped)
	}
	return args, stripped, unknown
}

// injectIdentity sets the identity parameters the schema declares and the host fills (see
// registry.HostFilledParams): the user and entity ids from the scope, and the connected
// account of the workspace's connection to the toolkit the arguments name ("toolkit" or
// "toolkit_slug"). The model's values were stripped already. A parameter with no value is
// left out; when it is a required one, missing says which and why, in words for the model.
func (e *Executor) injectIdentity(ctx context.Context, args json.RawMessage, p *prepared, s Scope) (out json.RawMessage, missing string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return args, ""
	}
	set := false
	for _, k := range p.inject {
		var id, why string
		switch k {
		case "user_id", "entity_id":
			id, why = s.ComposioUserID(), "no user is set for this agent"
		case "connected_account_id":
			id, why = e.connectedAccount(ctx, m, s)
		}
		if id != "" {
			m[k] = jsonString(id)
			set = true
		} else if slices.Contains(p.required, k) && missing == "" {
			missing = why
		}
	}
	if !set {
		return args, missing
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args, missing
	}
	return out, missing
}

// connectedAccount returns the connected account of the workspace's connection to the
// toolkit named in a Composio-toolkit call's arguments, or why there is none.
func (e *Executor) connectedAccount(ctx context.Context, m map[string]json.RawMessage, s Scope) (id, why string) {
	var toolkit string
	for _, k := range []string{"toolkit", "toolkit_slug"} {
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &toolkit) == nil && toolkit != "" {
			break
		}
	}
	toolkit = strings.ToLower(strings.TrimSpace(toolkit))
	switch {
	case toolkit == "":
		return "", "name the toolkit whose connection it is about"
	case s.WorkspaceID == "" || e.cfg.Catalog == nil:
		return "", "there is no workspace to find the connection to " + schema.Excerpt(toolkit) + " in"
	}
	if id = e.accountOf(ctx, s.WorkspaceID, toolkit); id == "" {
		return "", "this workspace has no connection to " + schema.Excerpt(toolkit) + "; the user must connect it first"
	}
	return id, ""
}

// accountOf returns the connected account of the workspace's connection to app; "" when
// there is no workspace, no catalogue, no connection or no account on it.
func (e *Executor) accountOf(ctx context.Context, workspaceID, app string) string {
	if workspaceID == "" || e.cfg.Catalog == nil {
		return ""
	}
	c, err := e.cfg.Catalog.Connection(ctx, workspaceID, app)
	if err != nil {
		return ""
	}
	return c.ConnectedAccountID
}

// maxUnknownNotices bounds the notices about undeclared parameters in one result.
const maxUnknownNotices = 5

// unknownNotices says, for each undeclared parameter, that the tool does not take it and
// which declared parameter was probably meant.
func (p *prepared) unknownNotices(unknown []string, passedOn bool) []string {
	var out []string
	for i, k := range unknown {
		if i == maxUnknownNotices {
			out = append(out, "and "+itoa(len(unknown)-i)+" more parameters that "+p.tool.Name+" does not declare.")
			break
		}
		msg := "`" + schema.Excerpt(k) + "` is not a parameter of " + p.tool.Name
		if c := closestParam(k, p.props); c != "" {
			msg += "; did you mean `" + c + "`?"
		} else if passedOn {
			msg += "; it was sent as written."
		} else {
			msg += "."
		}
		out = append(out, msg)
	}
	return out
}

// closestParam returns the declared parameter closest to name when one is within a small
// edit distance (case, '_' and '-' ignored), or "".
func closestParam(name string, props map[string]bool) string {
	n := foldParam(name)
	if n == "" || len(n) > suggestMaxWord {
		return ""
	}
	best, bestD := "", 1<<30
	for c := range props {
		fc := foldParam(c)
		d, ok := 0, fc == n
		if !ok {
			tol := tolerance(min(len(n), len(fc)))
			if tol == 0 {
				continue
			}
			d, ok = editsWithin(n, fc, tol)
		}
		if ok && (d < bestD || d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// foldParam lower-cases a parameter name and drops '_', '-' and spaces, so that
// "recipientEmail" and "recipient_email" compare equal.
func foldParam(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// updates reports whether t changes stored data in place: the classifier gave it an update
// capability, or its name carries an update verb. Defaults are never filled for such tools.
func updates(t Tool) bool {
	for _, c := range t.Capabilities {
		if strings.HasSuffix(c, ".update") {
			return true
		}
	}
	for w := range strings.SplitSeq(strings.ToUpper(t.Name), "_") {
		switch w {
		case "UPDATE", "PATCH", "EDIT", "MODIFY", "UPSERT", "REPLACE", "SET", "RENAME", "CHANGE":
			return true
		}
	}
	return false
}
