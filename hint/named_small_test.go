package hint_test

import (
	"fmt"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// TestNamedSmallAppPastTheGate: a small app the request names is searched though its
// action shares no word with the request (its description is in another language), and
// though many other apps' actions match the request's words better.
func TestNamedSmallAppPastTheGate(t *testing.T) {
	acts := []cache.Action{{App: "zorbit_maps", Slug: "ZORBIT_MAPS_RETORNA_DADOS_DO_ENDERECO_ATRAVES_DO_CEP",
		DisplayName: "Retorna dados do endereço através do CEP", Description: "Retorna dados endereço"}}
	apps := []string{"zorbit_maps"}
	for i := 0; i < 60; i++ {
		app := fmt.Sprintf("geo%02d", i)
		apps = append(apps, app)
		acts = append(acts, cache.Action{App: app, Slug: fmt.Sprintf("GEO%02d_GET_ADDRESS_DETAILS", i),
			DisplayName: "Get address details", Description: "Gets the details of an address of a new apartment."})
	}
	st := &fakeStore{metas: classifyAll(acts)}
	res := build(t, st, hint.Request{AgentID: 1, Apps: apps,
		Prompt: "Fetch the address details of the new apartment using the Zorbit Maps API."})
	if r := rank(res, "ZORBIT_MAPS_RETORNA_DADOS_DO_ENDERECO_ATRAVES_DO_CEP"); r == 0 || r > 3 {
		t.Errorf("the named app's action ranked %d, want 1..3: %v", r, res.MatchedActions)
	}
}
