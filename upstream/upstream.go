// Package upstream is the registry of upstream kinds: what `upstream:`
// may name under a model or a supplier. A kind is a package of its own
// (upstream/openai, upstream/chat, upstream/scripted, upstream/resell)
// that registers, when it is linked, its config type, the validation of
// that config and the constructor of its model, as database/sql drivers
// register themselves; the program's composition root links the built-in
// ones (package builtin), so the gateway names no kind.
package upstream

import (
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"sync"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
)

// Kind is one kind of upstream.
type Kind interface {
	// NewConfig is a fresh config of the kind, with nothing set, to decode
	// the kind's own keys into (strictly) or to validate and build as its
	// defaults when the model names the kind and no key of it.
	NewConfig() Config
}

// KindFunc is a Kind from the function that makes its fresh config.
type KindFunc func() Config

// NewConfig calls f.
func (f KindFunc) NewConfig() Config { return f() }

// Config is a kind's own keys, the ones written beside `upstream:` (a
// pointer to the kind's struct, which its YAML tags describe).
type Config interface {
	// Validate reports every problem of the keys, each naming its key,
	// before anything is dialled: pure and fast, as `serve --check` is.
	Validate(p Problems)
	// New builds the model from keys that passed Validate.
	New(env Env) (responses.Model, error)
}

// Problems collects what Validate finds; keys are the kind's own (the
// gateway prefixes them with the model's or the supplier's path).
type Problems interface {
	// Add reports a problem of key.
	Add(key, format string, args ...any)
	// Secret checks that the environment variable env (named by key)
	// holds a value, and a hex private key when isKey.
	Secret(key, env string, isKey bool)
	// URL checks that s (at key) is a URL with one of schemes.
	URL(key, s string, schemes ...string)
	// USDC checks that s (at key) is an amount of USDC and returns it (nil
	// when it is not).
	USDC(key, s string) *big.Int
}

// Env is what a kind's constructor gets from the gateway beside its keys.
type Env struct {
	// Model is the public model name clients send (the default upstream
	// model name).
	Model string
	// Getenv reads the secrets the keys name.
	Getenv func(string) string
	// Log is the gateway's logger.
	Log *slog.Logger
	// Networks is every x402 network the gateway knows (built in,
	// configured, supplied in process): what a resold seller may be paid on.
	Networks func() (*x402.Registry, error)
	// ChainRPCURL is payments.chain.rpc_url ("" = none).
	ChainRPCURL string
	// OnClose registers what to release when the gateway closes.
	OnClose func(func())
}

// KeyEnver is a Config whose upstream is reached with an API key: the
// name of the variable holding it, which also seeds how the provider sees
// each payer when nothing else does.
type KeyEnver interface {
	KeyEnv() string
}

var (
	mu    sync.RWMutex
	kinds = map[string]Kind{}
)

// Register makes kind k known by name; registering a name twice is a
// programming error and panics, as database/sql.Register does.
func Register(name string, k Kind) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || k == nil {
		panic("upstream: Register needs a name and a kind")
	}
	if _, dup := kinds[name]; dup {
		panic("upstream: kind " + name + " registered twice")
	}
	kinds[name] = k
}

// Lookup is the kind registered as name.
func Lookup(name string) (Kind, bool) {
	mu.RLock()
	defer mu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// Kinds lists the registered kinds' names, sorted.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Want is the list of kinds for a message: "chat, openai, scripted or x402".
func Want() string {
	names := Kinds()
	switch len(names) {
	case 0:
		return "none is registered"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Resolve is the config to validate and build for kind name given keys
// (nil: the kind's defaults), or why there is none: no kind, an unknown
// one, or keys of another kind.
func Resolve(name string, keys Config) (Config, error) {
	if name == "" {
		return nil, fmt.Errorf("required (%s)", Want())
	}
	k, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown upstream %q (want %s)", name, Want())
	}
	fresh := k.NewConfig()
	if keys == nil {
		return fresh, nil
	}
	if fmt.Sprintf("%T", keys) != fmt.Sprintf("%T", fresh) {
		return nil, fmt.Errorf("upstream %s takes %T, not %T", name, fresh, keys)
	}
	return keys, nil
}
