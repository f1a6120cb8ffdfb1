package gateway

import (
	"fmt"
	"strings"

	"github.com/farebox/farebox/upstream"
	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written as "30s" in YAML: the one type of
// every duration key, an upstream kind's included.
type Duration = upstream.Duration

// SimulateMode is payments.chain.simulate: true (every payment), false, or
// payer (a payer's payments until one passes; again after one fails).
type SimulateMode struct {
	set, on, perPayer bool
}

// SimulateEach, SimulateOff and SimulatePerPayer are the modes, for
// configs built in Go.
var (
	SimulateEach     = SimulateMode{set: true, on: true}
	SimulateOff      = SimulateMode{set: true}
	SimulatePerPayer = SimulateMode{set: true, on: true, perPayer: true}
)

// MarshalYAML writes the mode back as it is read: nothing when unset,
// true, false or payer.
func (m SimulateMode) MarshalYAML() (any, error) {
	switch {
	case !m.set:
		return nil, nil
	case m.perPayer:
		return "payer", nil
	}
	return m.on, nil
}

// UnmarshalYAML reads true, false or "payer".
func (m *SimulateMode) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		*m = SimulateMode{}
		return nil
	}
	var b bool
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && n.Decode(&b) == nil {
		*m = SimulateOff
		if b {
			*m = SimulateEach
		}
		return nil
	}
	var s string
	if err := n.Decode(&s); err != nil {
		return fmt.Errorf("payments.chain.simulate: want true, false or payer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "each":
		*m = SimulateEach
	case "false", "off":
		*m = SimulateOff
	case "payer":
		*m = SimulatePerPayer
	default:
		return fmt.Errorf("payments.chain.simulate: %q is not true, false or payer", s)
	}
	return nil
}
