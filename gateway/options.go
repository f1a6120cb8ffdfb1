package gateway

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/farebox/farebox/x402"
)

// Options supplies what a config file cannot: in-process chains (farebox
// dev) and the parts tests replace.
type Options struct {
	// Logger defaults to JSON on stderr at cfg.LogLevel.
	Logger *slog.Logger
	// Networks are networks known beyond the built-in and configured ones.
	Networks []*x402.Network
	// Settler and Checker replace the ones the config would build.
	Settler x402.Settler
	Checker x402.Checker
	// Ready, when set, is part of /readyz (e.g. the relayer can pay gas).
	Ready func(ctx context.Context) error
	// Now is the clock for payment windows (tests).
	Now func() time.Time
	// Getenv reads secrets (API keys, the relayer key); default os.Getenv.
	Getenv func(string) string
}

func (o Options) getenv() func(string) string {
	if o.Getenv != nil {
		return o.Getenv
	}
	return os.Getenv
}

func (o Options) logger(level string) *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}
