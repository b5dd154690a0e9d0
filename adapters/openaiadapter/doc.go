// Package openaiadapter connects toolhint to the official openai-go SDK, for the Chat
// Completions and the Responses APIs, so that a host passes toolhint's tools to the SDK and
// the model's calls to the executor without conversion code of its own.
//
// For a host that drives its own loop:
//
//   - [ChatTools] and [ResponseTools] turn schema.Function values (from a resolver, a
//     registry or schema.Convert) into the SDK's tool params, strict where the schema allows;
//   - [ChatCalls] and [ResponseCalls] turn the model's tool calls into executor.Call values;
//   - [ChatToolMessages] and [ResponseToolOutputs] turn executor results into the messages
//     or input items that carry them back; [ResponseInputs] turns a response's output into
//     input items for the next turn;
//   - [HintChatTools] and [HintResponseTools] go from a hint (chatbot mode) to the tools of
//     the request in one call, through a registry.Resolver that checks what the agent may
//     call and hides the identity keys.
//
// For executor.RunStep, [NewChat] and [NewResponses] return an executor.LLM over the SDK's
// client, with tool choice, parallel calls and a hook that sees every response (and so its
// token usage).
//
// Function names are schema.Function.Name (model-safe); the executor maps them back to
// action slugs, so calls built here can go straight to Execute or ExecuteBatch.
package openaiadapter
