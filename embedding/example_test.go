package embedding_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/toolhint/toolhint/embedding"
)

// A client for a local Ollama server would use BaseURL "http://localhost:11434/v1" and no
// key; here a fake endpoint stands in for it.
func Example() {
	ts := httptest.NewServer(&server{})
	defer ts.Close()
	c, err := embedding.New(embedding.Config{BaseURL: ts.URL + "/v1", Model: "nomic-embed-text"})
	if err != nil {
		log.Fatal(err)
	}
	vs, err := c.Embed(context.Background(), []string{"send an email", "create a task"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Model(), len(vs), len(vs[0]))
	// Output: nomic-embed-text 2 3
}
