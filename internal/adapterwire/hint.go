package adapterwire

import (
	"context"
	"fmt"

	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

// HintFunctions returns the definitions of the actions of h that sub may call, checked and
// rendered by r (registry.Resolver.Functions). A nil r is an error wrapping errConfig, the
// calling adapter's ErrConfig.
func HintFunctions(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result, errConfig error) (registry.Resolution, error) {
	if r == nil {
		return registry.Resolution{}, fmt.Errorf("%w: nil resolver", errConfig)
	}
	return r.Functions(ctx, sub, h.MatchedActions)
}
