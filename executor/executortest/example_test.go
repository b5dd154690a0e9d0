package executortest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
)

func ExampleScriptedLLM() {
	llm := executortest.NewScriptedLLM(
		executortest.CallTools(executortest.Call("c1", "get_weather", `{"city":"Paris"}`)),
		executortest.Say("It is 21°C in Paris."),
	)
	ctx := context.Background()
	req := executor.LLMRequest{Messages: []executor.Message{{Role: executor.RoleUser, Content: "Weather in Paris?"}}}
	for {
		msg, err := llm.Complete(ctx, req)
		if errors.Is(err, executortest.ErrScriptDone) {
			break
		}
		if len(msg.ToolCalls) > 0 {
			fmt.Println("call", msg.ToolCalls[0].Name, string(msg.ToolCalls[0].Arguments))
			continue
		}
		fmt.Println("say", msg.Content)
	}
	fmt.Println(len(llm.Requests()), llm.Remaining())
	// Output:
	// call get_weather {"city":"Paris"}
	// say It is 21°C in Paris.
	// 3 0
}
