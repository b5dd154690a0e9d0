// Package texttest makes prompts for tests and benchmarks of prompt analysis: hostile shapes
// that a naive analysis pays for with time superlinear in their length, and natural long
// prompts to compare them with.
package texttest

import (
	"math/rand/v2"
	"strings"
)

// Shape is one prompt of a named shape.
type Shape struct {
	Name   string
	Prompt string
	// Natural says the prompt is something a person might write (a pasted email and an
	// instruction); the others are made to cost as much as possible.
	Natural bool
}

// instruction ends most shapes, so that the analysis has something to find after the
// hostile part.
const instruction = " send email"

// Normal is an everyday request: the yardstick the shapes' analysis is compared with. It
// holds one typo ("mesage"), as everyday requests often do.
const Normal = "please send a mesage to #eng that the deploy of the billing service finished"

// Shapes returns prompts of each shape, size bytes long at most (size is at least 64).
// vocab is a list of known words the shape of many distinct known words draws from; with
// none, that shape is left out. The shapes are the same for the same arguments.
func Shapes(size int, vocab []string) []Shape {
	rnd := rand.New(rand.NewPCG(1, 2))
	word := func(min, max int) string {
		b := make([]byte, min+rnd.IntN(max-min+1))
		for i := range b {
			b[i] = byte('a' + rnd.IntN(26))
		}
		return string(b)
	}
	// fillFunc repeats a unit made afresh each time until the prompt holds size bytes less
	// the tail, then adds the tail.
	fillFunc := func(head string, unit func() string, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for {
			u := unit()
			if b.Len()+len(u)+len(tail) > size {
				break
			}
			b.WriteString(u)
		}
		b.WriteString(tail)
		return b.String()
	}
	// fill is fillFunc with the same unit every time.
	fill := func(head, unit, tail string) string {
		return fillFunc(head, func() string { return unit }, tail)
	}
	const zalgoMarks = "\u0301\u0316\u0334\u0358\u0362\u036f"
	zalgo := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(r)
			if r != ' ' {
				b.WriteString(zalgoMarks)
			}
		}
		return b.String()
	}
	shapes := []Shape{
		{Name: "one-letter-word", Prompt: fill("", "a", instruction)},
		{Name: "random-letters-word", Prompt: fillFunc("", func() string { return word(1, 1) }, instruction)},
		{Name: "capitalised-word", Prompt: fill("Z", "z", instruction)},
		{Name: "digit-run", Prompt: fill("send email to ", "7", "")},
		{Name: "letters-and-digits", Prompt: fill("send email ", "a1", "")},
		{Name: "repeated-word", Prompt: fill("", "email ", "send")},
		{Name: "repeated-clause", Prompt: fill("", "send the report and ", "email")},
		{Name: "repeated-sentence", Prompt: fill("", "Send the report. ", "")},
		{Name: "joiners", Prompt: fill("send email", " and", " send email")},
		{Name: "commas", Prompt: fill("send email", ",", " send email")},
		{Name: "stop-words", Prompt: fill("send", " the", " email")},
		{Name: "open-parens", Prompt: fill("send email ", "(", "")},
		{Name: "open-quotes", Prompt: fill("send email ", " “", "")},
		{Name: "app-colons", Prompt: fill("", "gmail: ", "send email")},
		{Name: "app-sentences", Prompt: fill("send email.", " Gmail.", "")},
		{Name: "phrase-openers", Prompt: fill("send email", " set look get", "")},
		{Name: "zalgo", Prompt: fill("", zalgo("send email "), "")},
		{Name: "combining-marks", Prompt: fill("send email a", "\u0301", "")},
		{Name: "emoji-run", Prompt: fill("send email ", "🚀", "")},
		{Name: "emoji-joined-words", Prompt: fill("", "send🚀email🚀", "")},
		{Name: "distinct-typos", Prompt: fillFunc("", func() string { return word(5, 9) + " " }, "send email")},
		{Name: "distinct-names", Prompt: fillFunc("send email to", func() string {
			w := word(4, 8)
			return " " + strings.ToUpper(w[:1]) + w[1:]
		}, "")},
		{Name: "distinct-clauses", Prompt: fillFunc("", func() string { return "send the " + word(5, 9) + " and " }, "email")},
		{Name: "action-slugs", Prompt: fill("", "GMAIL_SEND_EMAIL ", "send email")},
		{Name: "pasted-email", Prompt: pastedEmail(rnd, size), Natural: true},
		{Name: "long-request", Prompt: longRequest(size), Natural: true},
	}
	if len(vocab) > 0 {
		shapes = append(shapes, Shape{Name: "distinct-known-words", Prompt: fillFunc("send", func() string {
			return " " + vocab[rnd.IntN(len(vocab))]
		}, "")})
	}
	return shapes
}

// emailLines are sentences of an everyday work email.
var emailLines = []string{
	"Thanks for the update on the migration, the numbers look better than last week.",
	"Could you double check the invoice for March before it goes out to the customer?",
	"The staging deploy failed twice yesterday because the database ran out of connections.",
	"I moved our sync to Thursday at 3pm so that Priya can join after her flight lands.",
	"Attached are the slides from the quarterly review, with the revenue chart fixed.",
	"We still need a decision on the vendor contract, legal wants an answer by Friday.",
	"Support tickets about the login page went down by a third since the fix shipped.",
	"Let me know if the new onboarding checklist works for the two hires starting Monday.",
}

// pastedEmail is a long email pasted into the chat, then an instruction about it.
func pastedEmail(rnd *rand.Rand, size int) string {
	const ask = "\n\nSummarise the email above and send it to #leads on Slack."
	var b strings.Builder
	b.WriteString("Hi team,\n\n")
	for {
		l := emailLines[rnd.IntN(len(emailLines))]
		if b.Len()+len(l)+1+len(ask) > size {
			break
		}
		b.WriteString(l)
		b.WriteByte(' ')
	}
	b.WriteString(ask)
	return b.String()
}

// requestSteps are the steps of a long request written by a person.
var requestSteps = []string{
	"find the latest email from the accountant about taxes",
	"create a jira ticket for the flaky login test",
	"add a row to the hiring spreadsheet with today's candidates",
	"share the Q3 deck in drive with the board",
	"then post a summary in #eng",
	"update the deal stage for Globex to closed won",
}

// longRequest is a request of many steps, each a sentence.
func longRequest(size int) string {
	var b strings.Builder
	for i := 0; ; i++ {
		s := requestSteps[i%len(requestSteps)] + ". "
		if b.Len()+len(s) > size {
			break
		}
		b.WriteString(s)
	}
	return b.String()
}
