package toolhint

import (
	"cmp"
	"log/slog"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/registry/platform"
)

// Telemetry is the one place to give every component the same logger and observer. A
// host fills it once and passes each component's configuration through it on the way to
// the constructor:
//
//	tel := toolhint.Telemetry{Logger: logger, Observer: obs}
//	b := hint.New(tel.Hint(hint.Config{}))
//	r, err := registry.NewResolver(tel.Resolver(registry.ResolverConfig{Store: st}))
//	ex, err := executor.New(tel.Executor(executor.Config{Catalog: st, Remote: client}))
//
// Each method returns its argument with the Logger and Observer fields it left nil set
// from Telemetry; a field the configuration sets itself wins, so one component can log
// elsewhere or be observed by something else. The per-component fields stay the way to
// configure one component alone. Telemetry is a plain value, safe to copy and share; the
// logger and observer it holds are used concurrently by the components.
type Telemetry struct {
	// Logger receives every component's structured records. Optional: nil leaves the
	// components silent, as they are by default.
	Logger *slog.Logger
	// Observer sees every hint build, resolver call and tool call. Optional: nil observes
	// nothing.
	Observer Observer
}

// Observer observes every component that takes an observer: hint builds
// (hint.Config.Observer), resolver calls (registry.ResolverConfig.Observer) and tool calls
// (executor.Config.Observer). *oteladapter.Telemetry is one. A host that observes only
// one of them sets that component's own field instead.
type Observer interface {
	hint.Observer
	registry.ResolveObserver
	executor.Observer
}

// Hint returns cfg with Telemetry's Logger and Observer where cfg has none.
func (t Telemetry) Hint(cfg hint.Config) hint.Config {
	cfg.Logger = cmp.Or(cfg.Logger, t.Logger)
	if cfg.Observer == nil {
		cfg.Observer = t.Observer // a nil Telemetry.Observer stays a nil interface
	}
	return cfg
}

// Resolver returns cfg with Telemetry's Logger and Observer where cfg has none.
func (t Telemetry) Resolver(cfg registry.ResolverConfig) registry.ResolverConfig {
	cfg.Logger = cmp.Or(cfg.Logger, t.Logger)
	if cfg.Observer == nil {
		cfg.Observer = t.Observer // a nil Telemetry.Observer stays a nil interface
	}
	return cfg
}

// Assembler returns cfg with Telemetry's Logger where cfg has none (the resolver it builds
// logs there too).
func (t Telemetry) Assembler(cfg registry.AssemblerConfig) registry.AssemblerConfig {
	cfg.Logger = cmp.Or(cfg.Logger, t.Logger)
	return cfg
}

// Executor returns cfg with Telemetry's Logger and Observer where cfg has none.
func (t Telemetry) Executor(cfg executor.Config) executor.Config {
	cfg.Logger = cmp.Or(cfg.Logger, t.Logger)
	if cfg.Observer == nil {
		cfg.Observer = t.Observer // a nil Telemetry.Observer stays a nil interface
	}
	return cfg
}

// Usage returns cfg with Telemetry's Logger where cfg has none.
func (t Telemetry) Usage(cfg executor.UsageConfig) executor.UsageConfig {
	cfg.Logger = cmp.Or(cfg.Logger, t.Logger)
	return cfg
}

// Composio returns cfg with Telemetry's Logger where cfg has none.
func (t Telemetry) Composio(cfg composio.Config) composio.Config {
	cfg.Logger = cmp.Or(cfg.Logger, t.Logger)
	return cfg
}

// Sync returns opts with Telemetry's Logger where opts has none.
func (t Telemetry) Sync(opts cache.SyncOptions) cache.SyncOptions {
	opts.Logger = cmp.Or(opts.Logger, t.Logger)
	return opts
}

// Refresh returns opts with Telemetry's Logger where opts has none.
func (t Telemetry) Refresh(opts cache.RefreshOptions) cache.RefreshOptions {
	opts.Logger = cmp.Or(opts.Logger, t.Logger)
	return opts
}

// HTTP returns cfg (the platform HTTP tool's) with Telemetry's Logger where cfg has none.
func (t Telemetry) HTTP(cfg platform.HTTPConfig) platform.HTTPConfig {
	cfg.Logger = cmp.Or(cfg.Logger, t.Logger)
	return cfg
}
