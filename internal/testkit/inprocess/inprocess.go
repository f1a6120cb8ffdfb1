// Package inprocess registers the test-only upstream kind "inprocess": a
// model the test builds in Go and hands over in the model's config, for
// tests that need a model no config file can describe (one that fails on
// purpose, a rogue emitter, a counting wrapper). The product never links
// it, so no config file can name it.
package inprocess

import (
	"errors"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
)

// Kind is the test kit's name in `upstream:`.
const Kind = "inprocess"

func init() {
	upstream.Register(Kind, upstream.KindFunc(func() upstream.Config { return new(Config) }))
}

// Config carries the model itself; it has no YAML key.
type Config struct {
	Model responses.Model `yaml:"-"`
}

// Use is the upstream config of model m.
func Use(m responses.Model) *Config { return &Config{Model: m} }

// Validate refuses a config without a model.
func (c *Config) Validate(p upstream.Problems) {
	if c.Model == nil {
		p.Add("upstream", "inprocess needs the model in Go (inprocess.Use)")
	}
}

// New is the model.
func (c *Config) New(upstream.Env) (responses.Model, error) {
	if c.Model == nil {
		return nil, errors.New("upstream inprocess: no model given")
	}
	return c.Model, nil
}
