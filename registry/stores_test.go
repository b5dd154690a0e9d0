package registry_test

import (
	"os"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

// storeKinds returns the stores the permission tests run against: memory always, PostgreSQL
// when TOOLHINT_TEST_POSTGRES_DSN names a database (skipped with a message when unset,
// failed when set but unreachable). Each call gives an empty store of its own.
func storeKinds(t *testing.T) map[string]func(t *testing.T) cache.Store {
	t.Helper()
	kinds := map[string]func(t *testing.T) cache.Store{
		"memory": func(*testing.T) cache.Store { return cache.NewMemory() },
	}
	if os.Getenv(cachetest.PostgresDSNEnv) == "" {
		t.Logf("PostgreSQL runs skipped: set %s to run them", cachetest.PostgresDSNEnv)
		return kinds
	}
	cachetest.PostgresDSN(t) // fails t when the database cannot be reached
	kinds["postgres"] = func(t *testing.T) cache.Store { return cachetest.OpenPostgres(t) }
	return kinds
}

// onFilledStores runs test on every store kind, each filled by fill.
func onFilledStores(t *testing.T, test func(t *testing.T, st cache.Store)) {
	t.Helper()
	for kind, open := range storeKinds(t) {
		t.Run(kind, func(t *testing.T) {
			st := open(t)
			fill(t, st)
			test(t, st)
		})
	}
}
