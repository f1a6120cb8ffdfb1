package gateway

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written as "30s" in YAML.
type Duration time.Duration

// UnmarshalYAML reads "30s", "1m" or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes d as "30s", the form UnmarshalYAML reads back.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// parseDuration reads a Go duration or a number of seconds; negative, NaN
// and out-of-range values are refused rather than wrapped into a timer that
// fires at once.
func parseDuration(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if !(secs >= 0 && secs*float64(time.Second) < math.MaxInt64) {
			return 0, fmt.Errorf("duration %q: want a non-negative number of seconds or a duration like 30s", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d < 0 {
		return 0, fmt.Errorf("duration %q: must not be negative", s)
	}
	return d, err
}

// D returns d as a time.Duration, or def when unset.
func (d Duration) D(def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return time.Duration(d)
}

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
