package platform_test

import (
	"os"
	"testing"

	"github.com/toolhint/toolhint/registry/platform"
)

// TestMain lets the test binary serve as its own confining child, as a host's main does.
func TestMain(m *testing.M) {
	platform.Main()
	os.Exit(m.Run())
}
