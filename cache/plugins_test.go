package cache_test

import (
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

func TestMemoryPluginConformance(t *testing.T) {
	cachetest.RunPlugins(t, func(*testing.T) cache.PluginStore { return cache.NewMemory() })
}

func TestPostgresPluginConformance(t *testing.T) {
	cachetest.RunPlugins(t, func(t *testing.T) cache.PluginStore { return cachetest.OpenPostgres(t) })
}
