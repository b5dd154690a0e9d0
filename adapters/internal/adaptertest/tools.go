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
// city: {"city":"Paris","time":"14:05"}). The caller closes it.
func Executor() *executor.Executor {
	reg := registry.New()
	city := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Paris."}},"required":["city"],"additionalProperties":false}`)
	reg.MustRegister(registry.ToolSpec{
		Name: "get_weather", Description: "Current weather in a city.", Parameters: city, ReadOnly: true,
		Run: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ City string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return json.RawMessage(fmt.Sprintf(`{"city":%q,"temp_c":18,"sky":"clear"}`, in.City)), nil
		},
	})
	reg.MustRegister(registry.ToolSpec{
		Name: "get_time", Description: "Local time in a city.", Parameters: city, ReadOnly: true,
		Run: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ City string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return json.RawMessage(fmt.Sprintf(`{"city":%q,"time":"14:05"}`, in.City)), nil
		},
	})
	return executor.New(executor.Config{Registry: reg})
}
