// Package embedding is a client for the OpenAI-compatible embeddings endpoint
// (POST {BaseURL}/embeddings), which OpenAI, Ollama, vLLM, LM Studio and most local model
// servers offer. A *Client satisfies hint.Embedder, giving hint.Build its optional semantic
// tier; the package itself imports nothing of this module and only the standard library.
//
// The API key is optional (local servers take none) and is sent only in the Authorization
// header: it never appears in an error, even when the server echoes it back. Inputs are sent
// in batches of at most Config.MaxBatch texts; rate limits and server errors are retried a
// few times within the caller's context; responses are read through a size limit and
// checked (one finite vector per input, all of the same length) before they are returned.
package embedding
