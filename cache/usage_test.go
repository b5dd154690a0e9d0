package cache_test

import (
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

func TestMemoryUsageConformance(t *testing.T) {
	cachetest.RunUsage(t, func(*testing.T) cache.UsageStore { return cache.NewMemory() })
}

func TestPostgresUsageConformance(t *testing.T) {
	cachetest.RunUsage(t, func(t *testing.T) cache.UsageStore { return cachetest.OpenPostgres(t) })
}
