package text_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/internal/text"
)

func TestStem(t *testing.T) {
	pairs := [][2]string{
		{"emails", "email"}, {"sending", "send"}, {"sends", "send"}, {"sent", "send"},
		{"replies", "reply"}, {"reply", "reply"}, {"messages", "message"}, {"issues", "issue"},
		{"created", "create"}, {"creating", "create"}, {"scheduled", "schedule"},
		{"named", "name"}, {"stopped", "stop"}, {"added", "add"}, {"addresses", "address"},
		{"status", "statuses"}, {"meetings", "meeting"}, {"repositories", "repository"},
		{"branches", "branch"}, {"shared", "share"}, {"tagged", "tag"},
	}
	for _, p := range pairs {
		t.Run(p[0]+"="+p[1], func(t *testing.T) {
			if a, b := text.Stem(p[0]), text.Stem(p[1]); a != b {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q; want equal", p[0], a, p[1], b)
			}
		})
	}
	distinct := [][2]string{{"meeting", "meet"}, {"setting", "set"}, {"issue", "is"}}
	for _, p := range distinct {
		t.Run(p[0]+"!="+p[1], func(t *testing.T) {
			if a, b := text.Stem(p[0]), text.Stem(p[1]); a == b {
				t.Errorf("Stem(%q) = Stem(%q) = %q; want different", p[0], p[1], a)
			}
		})
	}
	// A noun ending in -ie makes its plural with -s: the analyser knows the singular, and
	// repairs no such plural as a typo ("movies" is no "movees").
	a := text.New()
	for _, p := range [][2]string{{"movies", "movie"}, {"cookies", "cookie"}, {"calories", "calorie"}, {"replies", "reply"}, {"stories", "story"}} {
		t.Run("analyser "+p[0]+"="+p[1], func(t *testing.T) {
			if x, y := a.Stem(p[0]), a.Stem(p[1]); x != y {
				t.Errorf("Analyzer.Stem(%q) = %q, Analyzer.Stem(%q) = %q; want equal", p[0], x, p[1], y)
			}
		})
	}
	if got := a.Prompt("find movies in San Jose", nil).Clauses[0].Text; got != "find movies in san jose" {
		t.Errorf("the prompt reads %q; want the words as said", got)
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"What's on my Calendar?", []string{"whats", "on", "my", "calendar"}},
		{"listEvents for e-mail", []string{"list", "events", "for", "e", "mail"}},
		{"Tomás Ortega's phone", []string{"tomás", "ortegas", "phone"}},
		// A verb contracted onto a pronoun is a word of its own; "I'd" is not an ID.
		{"I'd like what we're after", []string{"i", "would", "like", "what", "we", "are", "after"}},
		{"They’ll see it's done", []string{"they", "will", "see", "its", "done"}},
		{"repro'd on Jane's box", []string{"reprod", "on", "janes", "box"}},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, text.Words(tt.in)); diff != "" {
				t.Errorf("Words(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestSlugTerms(t *testing.T) {
	a := text.New()
	tests := []struct {
		slug, app string
		want      []string
	}{
		{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "slack", []string{a.Stem("send"), a.Stem("message"), a.Stem("channel")}},
		{"ZENDESK_GET_ZENDESK_TICKET_BY_ID", "zendesk", []string{"get", a.Stem("ticket"), "id"}},
		{"MICROSOFT_TEAMS_CHATS_GET_ALL_MESSAGES", "microsoft_teams", []string{a.Stem("chats"), "get", a.Stem("messages")}},
		{"GITHUB_GET_A_REPO", "github", []string{"get", a.Stem("repository")}},
		// A one-action app named for what it does: the words are the action's own.
		{"GET_WEATHER_GET_WEATHER", "get_weather", []string{"get", a.Stem("weather")}},
		{"TRANSLATE_AMHARIC_TRANSLATE_AMHARIC", "translate_amharic", []string{a.Stem("translate"), a.Stem("amharic")}},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, a.SlugTerms(tt.slug, tt.app)); diff != "" {
				t.Errorf("SlugTerms (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMainVerb(t *testing.T) {
	a := text.New()
	tests := []struct {
		slug, app, want string
	}{
		{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "slack", text.VerbSend},
		{"GITHUB_ISSUES_CREATE_COMMENT", "github", text.VerbCreate},
		{"TWITTER_POST_DELETE_BY_POST_ID", "twitter", text.VerbDelete},
		{"SLACK_CHAT_POST_MESSAGE", "slack", text.VerbSend},
		{"GMAIL_FETCH_EMAILS", "gmail", text.VerbGet},
		{"SLACK_CONVERSATIONS_HISTORY", "slack", ""}, // "history" is a noun
		{"NOTION_PAGE_PROPERTY", "notion", ""},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			got, _ := a.MainVerb(a.SlugTerms(tt.slug, tt.app))
			if got != tt.want {
				t.Errorf("MainVerb = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPrompt(t *testing.T) {
	a := text.New()
	apps := []string{"slack", "gmail", "googlecalendar", "github", "jira"}
	type clause struct {
		Verb        string
		Destructive bool
		Apps        []string
		Has         []string // stems that must be among the terms
		Lacks       []string // stems that must not be
		HasID       bool
	}
	tests := []struct {
		name, prompt string
		want         []clause
	}{
		{"send with channel entity", "send a message to #general saying the deploy is done",
			[]clause{{Verb: text.VerbSend, Has: []string{a.Stem("message"), a.Stem("channel")}}}},
		{"synonym verb", "ping the team on Slack", []clause{{Verb: text.VerbSend, Apps: []string{"slack"}}}},
		{"phrase rewrite", "look up JIRA issue PROJ-12", []clause{{Verb: text.VerbGet, Apps: []string{"jira"}, Has: []string{a.Stem("issue")}}}},
		{"let know", "let Dana know the report is ready", []clause{{Verb: text.VerbSend, Has: []string{a.Stem("report")}}}},
		{"quoted text is content", "create an issue titled 'delete the old cache'",
			[]clause{{Verb: text.VerbCreate, Destructive: false, Has: []string{a.Stem("issue")}}}},
		{"question reads", "any unread emails from Dana in gmail?", []clause{{Verb: text.VerbList, Apps: []string{"gmail"}}}},
		{"question rewrite", "what's on my google calendar tomorrow?", []clause{{Verb: text.VerbList, Apps: []string{"googlecalendar"}}}},
		{"two steps", "find the latest invoice email and forward it to accounting",
			[]clause{{Verb: text.VerbSearch, Has: []string{a.Stem("email")}}, {Verb: text.VerbForward}}},
		{"an amount of money is an amount, not a word", "send $49.99 to the contractor",
			[]clause{{Verb: text.VerbSend, Has: []string{a.Stem("amount")}, HasID: true}}},
		{"destructive", "delete the draft", []clause{{Verb: text.VerbDelete, Destructive: true}}},
		// Liking to do something is wanting it: the verb is what follows.
		{"would like to", "I would like to delete my user account", []clause{{Verb: text.VerbDelete, Destructive: true, Has: []string{a.Stem("account")}}}},
		{"provide me with reads", "Can you provide me with the world rankings of the top players?", []clause{{Verb: text.VerbGet, Has: []string{a.Stem("ranking")}, Lacks: []string{a.Stem("provide")}}}},
		{"contracted would love to", "We'd love to book a table for two", []clause{{Verb: text.VerbSchedule, Has: []string{a.Stem("table")}, Lacks: []string{"id", "wed", a.Stem("love")}}}},
		{"request form", "could you please archive that thread", []clause{{Verb: text.VerbArchive, Destructive: true}}},
		{"noun verb", "email Bob the deck", []clause{{Verb: text.VerbSend, Has: []string{a.Stem("email")}}}},
		{"colon content", "tweet: we shipped dark mode", []clause{{Verb: text.VerbSend, Lacks: []string{a.Stem("dark")}}}},
		{"a colon after an app's name addresses the app", "jira: delete the board 'Old roadmap'",
			[]clause{{Verb: text.VerbDelete, Destructive: true, Apps: []string{"jira"}, Has: []string{a.Stem("board")}}}},
		{"a colon after a verb still opens content", "in slack, post this to #general: we ship on friday",
			[]clause{{Verb: text.VerbSend, Apps: []string{"slack"}, Lacks: []string{a.Stem("ship")}}}},
		{"content after a colon ends where the next step starts", "create an issue with these details: the login page is slow. Then, send an email to Dana",
			[]clause{{Verb: text.VerbCreate, Has: []string{a.Stem("issue")}, Lacks: []string{a.Stem("login")}}, {Verb: text.VerbSend, Has: []string{a.Stem("email")}}}},
		{"a numbered list after a colon holds steps, not a body", "I have two tasks: 1. Create an issue in jira. 2. Send an email to Dana.",
			[]clause{{Verb: text.VerbCreate, Has: []string{a.Stem("issue")}}, {Verb: text.VerbSend, Has: []string{a.Stem("email")}}}},
		{"a verb of no class is still a step's verb", "Analyze the syntax of the sentence. After that, translate the text to Spanish",
			[]clause{{Verb: text.VerbOther, Has: []string{a.Stem("analyze"), a.Stem("syntax")}}, {Verb: text.VerbOther, Has: []string{a.Stem("translate"), a.Stem("text")}}}},
		{"a verb of no class with its object opens a step after and", "list my open issues and translate the titles to French",
			[]clause{{Verb: text.VerbList, Has: []string{a.Stem("issue")}}, {Verb: text.VerbOther, Has: []string{a.Stem("translate"), a.Stem("title")}}}},
		{"a noun that is also a verb after an article is no step", "send the report and the budget to Dana",
			[]clause{{Verb: text.VerbSend, Has: []string{a.Stem("report"), a.Stem("budget")}}}},
		{"a body of several sentences stays one body", "tweet: we shipped dark mode. it is great",
			[]clause{{Verb: text.VerbSend, Lacks: []string{a.Stem("dark"), a.Stem("great")}}}},
		{"rewrite keeps the recipient", "let the design team know the build is green",
			[]clause{{Verb: text.VerbSend, Has: []string{a.Stem("team")}}}},
		{"reading about a topic searches", "show me what customers say about the new onboarding",
			[]clause{{Verb: text.VerbSearch}}},
		{"an ID is no topic", "show me PROJ-9 and what it is about", []clause{{Verb: text.VerbGet}}},
		{"a name is not an object", "find Maria Lopez in gmail",
			[]clause{{Verb: text.VerbSearch, Apps: []string{"gmail"}, Lacks: []string{a.Stem("maria"), a.Stem("lopez")}}}},
		{"a capitalised word opening a sentence is read", "Email the deck to Bob",
			[]clause{{Verb: text.VerbSend, Has: []string{a.Stem("deck")}}}},
		{"a guest added to a meeting updates it", "add lee@example.com to thursday's planning meeting",
			[]clause{{Verb: text.VerbUpdate, Has: []string{a.Stem("attendee"), a.Stem("meeting")}}}},
		{"granting access shares", "give @sam write access to the design repo",
			[]clause{{Verb: text.VerbShare, Has: []string{a.Stem("access"), a.Stem("user"), a.Stem("repository")}}}},
		{"content inside a phrase", "give him (sam@example.com) access to the folder",
			[]clause{{Verb: text.VerbShare, Has: []string{a.Stem("access"), a.Stem("folder")}, Lacks: []string{a.Stem("sam")}}}},
		{"giving to oneself is getting", "give me the latest invoices", []clause{{Verb: text.VerbList, Has: []string{a.Stem("invoice")}}}},
		{"opening something new creates it", "open a ticket for the broken login", []clause{{Verb: text.VerbCreate, Has: []string{a.Stem("ticket")}}}},
		{"a WordNet phrasal verb names its class", "set up a project for the launch", []clause{{Verb: text.VerbCreate, Has: []string{a.Stem("project")}}}},
		{"a contracted question word asks, and is no word of the request", "where's the runbook for rotating the credentials?",
			[]clause{{Verb: text.VerbList, Has: []string{a.Stem("runbook")}, Lacks: []string{a.Stem("wheres"), a.Stem("where"), a.Stem("here")}}}},
		{"asking for help is no term", "could you help me with my budget spreadsheet?",
			[]clause{{Verb: text.VerbOther, Has: []string{a.Stem("budget"), a.Stem("spreadsheet")}, Lacks: []string{a.Stem("help")}}}},
		{"asking for help before the verb is no term", "could you help me retrieve the refund policy?",
			[]clause{{Verb: text.VerbGet, Has: []string{a.Stem("refund"), a.Stem("policy")}, Lacks: []string{a.Stem("help")}}}},
		{"an adverb that joins is no term", "fetch the invoice 4410. Additionally, list the refunds",
			[]clause{{Verb: text.VerbGet, Has: []string{a.Stem("invoice")}, Lacks: []string{a.Stem("additionally")}},
				{Verb: text.VerbList, Has: []string{a.Stem("refund")}, Lacks: []string{a.Stem("additionally")}}}},
		{"a WordNet noun phrase is no verb", "find a picture book about cats",
			[]clause{{Verb: text.VerbSearch, Has: []string{a.Stem("picture"), a.Stem("book"), a.Stem("cat")}}}},
		{"a noun phrase of a verb's hypernym is no verb", "show my heart rate for today",
			[]clause{{Verb: text.VerbGet, Has: []string{a.Stem("heart"), a.Stem("rate")}}}},
		{"a typo is repaired", "schedule a meetnig with the vendor", []clause{{Verb: text.VerbSchedule, Has: []string{a.Stem("meeting")}}}},
		{"a step reference is no object", "Add a comment to the issue from the trigger created in step 2",
			[]clause{{Verb: text.VerbAdd, Has: []string{a.Stem("comment")}, Lacks: []string{a.Stem("trigger"), a.Stem("step"), a.Stem("create")}}}},
		{"a mixed identifier is an ID", "how many views has dQw4w9WgXcQ got", []clause{{Verb: text.VerbGet, HasID: true, Lacks: []string{"dqw4w9wgxcq"}}}},
		{"a plural inside a phrase asks for several", "check datadog for any monitors that are down",
			[]clause{{Verb: text.VerbList, Has: []string{a.Stem("monitor")}}}},
		{"an adjective after an article is no verb", "the new intern starts monday",
			[]clause{{Verb: "", Has: []string{a.Stem("intern")}}}},
		{"an app's name as a verb sends through it", "list tomorrow's meetings and slack each attendee a reminder",
			[]clause{{Verb: text.VerbList}, {Verb: text.VerbSend, Apps: []string{"slack"}}}},
		{"empty", "   ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := a.Prompt(tt.prompt, apps)
			if len(p.Clauses) != len(tt.want) {
				t.Fatalf("Prompt(%q) has %d clauses %+v, want %d", tt.prompt, len(p.Clauses), p.Clauses, len(tt.want))
			}
			for i, w := range tt.want {
				c := p.Clauses[i]
				verb := c.Verb
				if verb == text.VerbGet && c.Plural {
					verb = text.VerbList
				}
				if tt.name == "question reads" {
					verb = text.VerbList // a question reads; its exact class is left to ranking
					if !c.VerbImplied || c.Verb != text.VerbGet {
						t.Errorf("clause %d: verb %q implied %v, want implied get", i, c.Verb, c.VerbImplied)
					}
				}
				if verb != w.Verb {
					t.Errorf("clause %d: verb %q, want %q (%+v)", i, c.Verb, w.Verb, c)
				}
				if w.HasID && !c.HasID {
					t.Errorf("clause %d: no ID found", i)
				}
				if c.Destructive != w.Destructive {
					t.Errorf("clause %d: destructive %v, want %v", i, c.Destructive, w.Destructive)
				}
				var apps []string
				for _, m := range c.Apps {
					if m.Strength >= 1 {
						apps = append(apps, m.App)
					}
				}
				if w.Apps != nil {
					if diff := cmp.Diff(w.Apps, apps); diff != "" {
						t.Errorf("clause %d apps (-want +got):\n%s", i, diff)
					}
				}
				stems := make([]string, 0, len(c.Terms))
				for _, term := range c.Terms {
					if term.Role != text.RoleContent {
						stems = append(stems, term.Stem)
					}
				}
				for _, h := range w.Has {
					if !slices.Contains(stems, h) {
						t.Errorf("clause %d: terms %v lack %q", i, stems, h)
					}
				}
				for _, l := range w.Lacks {
					if slices.Contains(stems, l) {
						t.Errorf("clause %d: terms %v have %q", i, stems, l)
					}
				}
			}
		})
	}
}

func TestPromptExisting(t *testing.T) {
	a := text.New()
	tests := []struct {
		prompt string
		want   bool
	}{
		{"send out the draft I wrote yesterday", true},
		{"copy everything in /reports to the shared drive", true},
		{"forward my latest invoice email to accounting", true},
		{"send a message to #general", false},
		{"create an issue for the login bug", false},
		{"delete PROJ-12", false},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			p := a.Prompt(tt.prompt, nil)
			if len(p.Clauses) == 0 {
				t.Fatalf("Prompt(%q) has no clause", tt.prompt)
			}
			if got := p.Clauses[0].Existing; got != tt.want {
				t.Errorf("Existing = %v, want %v (%+v)", got, tt.want, p.Clauses[0])
			}
		})
	}
}

// TestPromptCompounds: two words in a row that the catalogue writes as one are also read
// as that word, in the clause and in the prompt's words; a phrasal verb is not joined, nor
// two words whose join the catalogue does not use.
func TestPromptCompounds(t *testing.T) {
	a := text.New()
	has := func(p text.Prompt, stem string) (inWords, inClause bool) {
		inWords = slices.Contains(p.Words, stem)
		for _, c := range p.Clauses {
			inClause = inClause || slices.ContainsFunc(c.Terms, func(t text.Term) bool { return t.Stem == stem && t.Source == text.SourceWord })
		}
		return inWords, inClause
	}
	for _, tt := range []struct {
		prompt, parts, joined string
		want                  bool
	}{
		{"add a web hook for new orders", "web hook", "webhook", true},
		{"change the time zone of my account", "time zone", "timezone", true},
		{"roll back the config to yesterday's version", "roll back", "rollback", true},
		{"look up everyone from globex.com", "look", "lookup", false},
		{"set up a new project", "set", "setup", false},
		{"paint the red car", "red car", "redcar", false},
		{"create a fitness plan for me", "fitness plan", "forme", false}, // two function words make no compound
		{"find travel vlogs on you tube", "tube", "youtube", true},       // one function word may open one
		{"how to delete a page", "page", "apage", false},                 // nor does an article
	} {
		t.Run(tt.prompt, func(t *testing.T) {
			p := a.Prompt(tt.prompt, nil)
			w, c := has(p, a.Stem(tt.joined))
			if w != tt.want || c != tt.want {
				t.Errorf("%q in the prompt's words %t, in a clause %t; want %t (%v)", tt.joined, w, c, tt.want, p)
			}
			for _, part := range text.Words(tt.parts) {
				if !slices.Contains(p.Words, a.Stem(part)) {
					t.Errorf("%q is not among the prompt's words %v", part, p.Words)
				}
			}
		})
	}
}

func TestPromptNeverPanics(t *testing.T) {
	a := text.New()
	for _, p := range []string{"'", "\"unterminated", "((((", "#", "@", "a/b/c/d", "ABC-", "\xff\xfe",
		"::::", "and and and then", "https://", "x@y.", ": : '", "‘’“”"} {
		t.Run(p, func(t *testing.T) {
			_ = a.Prompt(p, []string{"slack"})
		})
	}
}

// TestAppNamedByCommonWord: an app whose slug is a word of the language is named by it
// only as a name (capitalised, or after a preposition), not by the word's ordinary use.
func TestAppNamedByCommonWord(t *testing.T) {
	a := text.New()
	apps := []string{"search", "now", "location", "close"}
	for _, tc := range []struct {
		prompt string
		want   []string
	}{
		{"help me search for a piece of art", nil},
		{"which map is played right now", nil},
		{"list the race names, dates and locations", nil},
		{"log the call in close", []string{"close"}},
		{"open my workshops in Search", []string{"search"}},
		{"find the office with Location", []string{"location"}},
	} {
		var got []string
		for _, c := range a.Prompt(tc.prompt, apps).Clauses {
			for _, m := range c.Apps {
				got = append(got, m.App)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: apps named (-want +got):\n%s", tc.prompt, diff)
		}
	}
}

// TestPromptCompoundHead: a word that is also a verb, right after the object's noun, is
// the head of the noun phrase ("a fitness plan", "a team update") and weighs as the
// object; after "to" it is the verb of a purpose ("the doc to review") and weighs little.
func TestPromptCompoundHead(t *testing.T) {
	a := text.New()
	weight := func(prompt, stem string) (float64, text.Role) {
		for _, c := range a.Prompt(prompt, nil).Clauses {
			for _, term := range c.Terms {
				if term.Stem == a.Stem(stem) && term.Source == text.SourceWord {
					return term.Weight, term.Role
				}
			}
		}
		return 0, 0
	}
	for _, tt := range []struct {
		prompt, word string
		object       bool
	}{
		{"create a fitness plan", "plan", true},
		{"send a team update", "update", true},
		{"find the doc to review", "review", false},
	} {
		w, role := weight(tt.prompt, tt.word)
		if got := w == 1 && role == text.RoleObject; got != tt.object {
			t.Errorf("%q: %q weighs %v as role %v; want the object's weight: %t", tt.prompt, tt.word, w, role, tt.object)
		}
	}
}

// TestPromptHowTo: "how can I …", "how do I …" and "how to …" ask for what the next verb
// says, not to read something; "how many …" still asks to read.
func TestPromptHowTo(t *testing.T) {
	a := text.New()
	for prompt, want := range map[string]string{
		"how can i change the layout of my page": text.VerbUpdate,
		"how do i create a new page":             text.VerbCreate,
		"how to delete a page":                   text.VerbDelete,
		"how many open issues do we have":        text.VerbGet,
	} {
		p := a.Prompt(prompt, nil)
		if len(p.Clauses) != 1 || p.Clauses[0].Verb != want {
			t.Errorf("%q: clauses %+v, want one with verb %s", prompt, p.Clauses, want)
		}
	}
}

// TestPromptOtherVerbIsNoWord: a verb of no class ("translate") is the clause's verb word,
// but "other", the name of its class, is no word of the request.
func TestPromptOtherVerbIsNoWord(t *testing.T) {
	a := text.New()
	p := a.Prompt("translate this text to french", nil)
	if len(p.Clauses) != 1 || p.Clauses[0].Verb != text.VerbOther {
		t.Fatalf("clauses %+v: want one of verb class %s", p.Clauses, text.VerbOther)
	}
	for _, term := range p.Clauses[0].Terms {
		if term.Stem == a.Stem(text.VerbOther) {
			t.Errorf("term %+v: the class's name is a term", term)
		}
	}
}

// TestStemIrregular: WordNet's irregular forms stem to their base ("went" to go), but not
// where they would misread a common word: "range" (whose suffix stem is "rang", past of
// ring) and "offer" (listed as a comparative of "off").
func TestStemIrregular(t *testing.T) {
	a := text.New()
	for _, tt := range []struct {
		w1, w2 string
		same   bool
	}{
		{"went", "go", true},
		{"children", "child", true},
		{"offers", "offer", true},
		{"offer", "off", false},
		{"range", "ring", false},
		{"ranges", "range", true},
	} {
		if got := a.Stem(tt.w1) == a.Stem(tt.w2); got != tt.same {
			t.Errorf("%q stems to %q, %q to %q: same %t, want %t", tt.w1, a.Stem(tt.w1), tt.w2, a.Stem(tt.w2), got, tt.same)
		}
	}
}

// TestPromptItemID: a number or key right after what it identifies ("ticket 50112") names
// an item; one after a time word or a verb ("tonight 10-11pm", "show 10") is an ID only in
// the broad sense of HasID.
func TestPromptItemID(t *testing.T) {
	a := text.New()
	for prompt, want := range map[string]bool{
		"what's the latest on zendesk ticket 50112?":     true,
		"fetch confluence page 98765 with its body":      true,
		"tell our followers we're down tonight 10-11pm":  false,
		"show 10 of the newest issues in the repository": false,
	} {
		p := a.Prompt(prompt, []string{"zendesk", "confluence"})
		got := slices.ContainsFunc(p.Clauses, func(c text.Clause) bool { return c.ItemID })
		if got != want {
			t.Errorf("%q: an item's ID %t, want %t (%+v)", prompt, got, want, p.Clauses)
		}
	}
}
