package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhint/toolhint/schema"
)

// An action's parameter schema as Composio sends it: Pydantic-style, with type arrays,
// null defaults and a runtime-context parameter the host fills itself.
const createEventParams = `{
  "type": "object",
  "properties": {
    "summary": {"title": "Summary", "type": "string", "description": "Event title."},
    "start": {"title": "Start", "type": "string", "format": "date-time"},
    "attendees": {"title": "Attendees", "type": ["array", "null"], "items": {"type": "string"}, "default": null},
    "user_id": {"type": "string"}
  },
  "required": ["summary", "start", "user_id"]
}`

func ExampleConvert() {
	f, err := schema.Convert("CALENDAR_CREATE_EVENT", "Create a calendar event.",
		json.RawMessage(createEventParams), schema.ConvertOptions{Hidden: []string{"user_id"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	openai, _ := f.OpenAI(true)
	fmt.Println(string(openai))
	anthropic, _ := f.Anthropic()
	fmt.Println(string(anthropic))
	gemini, _ := f.Gemini()
	fmt.Println(string(gemini))
	fmt.Println("hidden:", f.Hidden)
	// Output:
	// {"function":{"description":"Create a calendar event.","name":"CALENDAR_CREATE_EVENT","parameters":{"additionalProperties":false,"properties":{"attendees":{"items":{"type":"string"},"type":["array","null"]},"start":{"format":"date-time","type":"string"},"summary":{"description":"Event title.","type":"string"}},"required":["attendees","start","summary"],"type":"object"},"strict":true},"type":"function"}
	// {"description":"Create a calendar event.","input_schema":{"properties":{"attendees":{"default":null,"items":{"type":"string"},"type":["array","null"]},"start":{"format":"date-time","type":"string"},"summary":{"description":"Event title.","type":"string"}},"required":["start","summary"],"type":"object"},"name":"CALENDAR_CREATE_EVENT"}
	// {"description":"Create a calendar event.","name":"CALENDAR_CREATE_EVENT","parameters":{"properties":{"attendees":{"items":{"type":"STRING"},"nullable":true,"type":"ARRAY"},"start":{"format":"date-time","type":"STRING"},"summary":{"description":"Event title.","type":"STRING"}},"required":["start","summary"],"type":"OBJECT"}}
	// hidden: [user_id]
}

func ExampleFunction_OpenAI_fallback() {
	// An array whose items are unconstrained cannot be made strict; that function alone
	// goes out non-strict, and the caller can see why.
	f, _ := schema.Convert("SHEETS_APPEND", "Append a row.",
		json.RawMessage(`{"type":"object","properties":{"row":{"type":"array","minItems":1}},"required":["row"]}`))
	def, _ := f.OpenAI(true)
	fmt.Println(string(def))
	fmt.Println(f.StrictReason)
	// Output:
	// {"function":{"description":"Append a row.","name":"SHEETS_APPEND","parameters":{"properties":{"row":{"minItems":1,"type":"array"}},"required":["row"],"type":"object"},"strict":false},"type":"function"}
	// array without item schema at /properties/row
}

func ExampleValidator_CoerceAndValidate() {
	v, err := schema.Compile(json.RawMessage(`{
	  "type": "object",
	  "properties": {
	    "repo": {"type": "string"},
	    "issue_number": {"type": "integer"},
	    "labels": {"type": "array", "items": {"type": "string"}},
	    "state": {"type": "string", "enum": ["open", "closed"], "default": "open"}
	  },
	  "required": ["repo", "issue_number"]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The model quoted a number and gave one label where a list is wanted. The state it
	// left out stays out: the server applies its own default.
	args, coercions, err := v.CoerceAndValidate(json.RawMessage(`{"repo":"toolhint","issue_number":"42","labels":"bug"}`))
	fmt.Println(string(args), err)
	for _, c := range coercions {
		fmt.Println(c.Path, c.Kind)
	}
	// Arguments that cannot be repaired come back with every failing path.
	err = v.Validate(json.RawMessage(`{"issue_number":"soon","state":"merged"}`))
	var ve *schema.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve)
	}
	// Output:
	// {"issue_number":42,"labels":["bug"],"repo":"toolhint"} <nil>
	// /issue_number integer
	// /labels wrap
	// schema: invalid arguments:
	// - (root): missing required properties: 'repo'; add them
	// - /issue_number: wrong type: expected integer, but got string
	// - /state: value must be one of "open", "closed"
}

func ExampleNames() {
	var names schema.Names
	long := "ENTERPRISE_ADMIN_DIRECTORY_LIST_ORGANIZATIONAL_UNIT_MEMBERSHIPS_FOR_ACCOUNT"
	name, _ := names.Add(long)
	fmt.Println(name, len(name))
	slug, ok := names.Slug(name)
	fmt.Println(slug == long, ok)
	// Output:
	// ENTERPRISE_ADMIN_DIRECTORY_LIST_ORGANIZATIONAL_UNIT_MEM_ef99d077 64
	// true true
}

func ExampleFromType() {
	type lookup struct {
		Email string `json:"email" jsonschema:"description=Address to look up."`
		Limit int    `json:"limit,omitempty"`
	}
	s, _ := schema.FromType[lookup]()
	fmt.Println(string(s))
	// Output:
	// {"additionalProperties":false,"properties":{"email":{"description":"Address to look up.","type":"string"},"limit":{"type":"integer"}},"required":["email"],"type":"object"}
}

func ExampleCompiler() {
	// A Compiler caches validators by schema digest; share one per process.
	c := schema.NewCompiler(schema.CompilerConfig{})
	params := json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)
	v1, _ := c.Compile(params)
	v2, _ := c.Compile(params)
	fmt.Println(v1 == v2, c.Len())
	fmt.Println(v1.Validate(json.RawMessage(`{"id":7}`)))
	_, err := c.Compile(json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"file:///etc/passwd"}}}`))
	fmt.Println(errors.Is(err, schema.ErrRefRefused))
	// Output:
	// true 1
	// <nil>
	// true
}

func ExampleGenerateGo() {
	src, err := schema.GenerateGo(schema.GoConfig{Package: "tools", Types: []schema.GoType{{
		Slug:        "TASKS_CREATE",
		Description: "Create a task.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
		  "title":{"type":"string","description":"Task title."},
		  "priority":{"type":"string","enum":["low","high"],"default":"low"},
		  "due":{"type":["string","null"],"default":null}
		},"required":["title"]}`),
	}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(src))
	// Output:
	// // Code generated by toolhint schema.GenerateGo. DO NOT EDIT.
	//
	// package tools
	//
	// // TasksCreateParamsPriority is one of the values listed below.
	// type TasksCreateParamsPriority string
	//
	// // The values of TasksCreateParamsPriority.
	// const (
	// 	TasksCreateParamsPriorityLow  TasksCreateParamsPriority = "low"
	// 	TasksCreateParamsPriorityHigh TasksCreateParamsPriority = "high"
	// )
	//
	// // TasksCreateParams holds the parameters of TASKS_CREATE. Create a task.
	// type TasksCreateParams struct {
	// 	Due      *string                    `json:"due,omitempty"`
	// 	Priority *TasksCreateParamsPriority `json:"priority,omitempty"`
	// 	// Title: Task title.
	// 	Title string `json:"title"`
	// }
}

func ExampleCompile() {
	// A send-email schema as catalogues carry it: the attachment is listed as required
	// although its description says to leave it out.
	params := json.RawMessage(`{
	  "type": "object",
	  "properties": {
	    "to": {"type": "string"},
	    "body": {"type": "string"},
	    "attachment": {"type": "object", "description": "File to attach. Omit it for no attachment.",
	      "properties": {"key": {"type": "string"}}, "required": ["key"]}
	  },
	  "required": ["to", "body", "attachment"]
	}`)
	args := json.RawMessage(`{"to":"jay@acme.com","body":"hi","attachment":null}`)
	for _, mode := range []schema.Mode{schema.Lenient, schema.Strict, schema.Off} {
		v, err := schema.Compile(params, schema.CompileOptions{Mode: mode})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %v\n", mode, v.Validate(args))
	}
	v, _ := schema.Compile(params)
	for _, r := range v.Relaxations() {
		fmt.Printf("relaxed %s: %s\n", r.Property, r.Rule)
	}
	// Output:
	// lenient: <nil>
	// strict: schema: invalid arguments:
	// - /attachment: wrong type: expected object, but got null
	// off: <nil>
	// relaxed attachment: described-optional
}

func ExampleOverrides() {
	// The host knows better than the catalogue: this action needs a subject.
	overrides := schema.Overrides{
		"MAIL_SEND": {Patch: json.RawMessage(`{"required":["to","subject"]}`)},
	}
	params := json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"}},"required":["to"]}`)
	c := schema.NewCompiler(schema.CompilerConfig{})
	v, err := c.Compile(params, schema.CompileOptions{Action: "MAIL_SEND", Overrides: overrides})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Validate(json.RawMessage(`{"to":"jay@acme.com"}`)))
	f, _ := schema.Convert("MAIL_SEND", "Send mail.", params, schema.ConvertOptions{Overrides: overrides})
	fmt.Println(string(f.Parameters))
	// Output:
	// schema: invalid arguments:
	// - (root): missing required properties: 'subject'; add them
	// {"properties":{"subject":{"type":"string"},"to":{"type":"string"}},"required":["subject","to"],"type":"object"}
}
