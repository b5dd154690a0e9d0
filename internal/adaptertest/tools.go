package adaptertest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
)

// Executor returns an executor over a registry of two platform tools: get_weather (reads a
// city's weather: {"city":"Paris","temp_c":18,"sky":"clear"}) and get_time (the time in a
// city: {"city":"Paris","time":"14:05"}). Its Access is registry.AllowAll(), so children for
// any agent (WithScope) may call both. The caller closes it. It panics if executor.New
// refuses the configuration, which it cannot.
func Executor() *executor.Executor {
	reg := registry.New()
	reg.MustRegister(cityTool("get_weather", "Current weather in a city.", `"temp_c":18,"sky":"clear"`))
	reg.MustRegister(cityTool("get_time", "Local time in a city.", `"time":"14:05"`))
	ex, err := executor.New(executor.Config{Registry: reg, Access: registry.AllowAll()})
	if err != nil {
		panic(err)
	}
	return ex
}

// cityTool is a read-only tool taking a city and answering {"city":…,<fields>}.
func cityTool(name, description, fields string) registry.ToolSpec {
	return registry.ToolSpec{
		Name: name, Description: description, ReadOnly: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Paris."}},"required":["city"],"additionalProperties":false}`),
		Run: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ City string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return json.RawMessage(fmt.Sprintf(`{"city":%q,%s}`, in.City, fields)), nil
		},
	}
}
