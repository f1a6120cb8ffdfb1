package gateway

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"

	"github.com/farebox/farebox/internal/yamlkeys"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
	"github.com/farebox/farebox/x402"
	"gopkg.in/yaml.v3"
)

// UnmarshalYAML reads a model's keys, and the keys beside `upstream:` into
// that kind's config (flat in YAML, nested in Go), refusing unknown keys
// as LoadConfig does everywhere else.
func (mc *ModelConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain ModelConfig
	p := plain(*mc)
	keys, problems, err := decodeWithUpstream(n, &p, "gateway.ModelConfig", func() string { return p.Upstream })
	p.UpstreamConfig, p.keyProblems = keys, problems
	*mc = ModelConfig(p)
	return err
}

// MarshalYAML writes the kind's keys back beside `upstream:`.
func (mc ModelConfig) MarshalYAML() (any, error) {
	type plain ModelConfig
	return encodeWithUpstream(plain(mc), mc.UpstreamConfig)
}

// UnmarshalYAML reads a supplier as a model's upstream is read.
func (sc *SupplierConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain SupplierConfig
	p := plain(*sc)
	keys, problems, err := decodeWithUpstream(n, &p, "gateway.SupplierConfig", func() string { return p.Upstream })
	p.UpstreamConfig, p.keyProblems = keys, problems
	*sc = SupplierConfig(p)
	return err
}

// MarshalYAML writes the kind's keys back beside `upstream:`.
func (sc SupplierConfig) MarshalYAML() (any, error) {
	type plain SupplierConfig
	return encodeWithUpstream(plain(sc), sc.UpstreamConfig)
}

// decodeWithUpstream decodes the keys of n that dst (a pointer to a struct
// without methods) takes into dst, and the others into a fresh config of
// the kind that kind() names once dst is decoded. Unknown keys (in dst's
// keys at any depth, or not the kind's) and mistyped values are returned
// as problems in yaml.v3's words under owner, not as an error: yaml.v3
// drops a list's element whose decoding failed, and the rest of a model
// must stay for Validate (LoadConfig reports them, keyProblems). The keys
// beside an unknown kind are left alone: the kind is what is wrong, and
// Validate says so.
func decodeWithUpstream(n *yaml.Node, dst any, owner string, kind func() string) (upstream.Config, []string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, n.Decode(dst)
	}
	t := reflect.TypeOf(dst)
	mine, rest := yamlkeys.Split(yamlkeys.Merged(n), yamlkeys.Fields(t))
	problems := yamlkeys.Unknown(mine, t, owner)
	var te *yaml.TypeError
	if err := mine.Decode(dst); errors.As(err, &te) {
		problems = append(problems, te.Errors...)
	} else if err != nil {
		return nil, nil, err
	}
	var keys upstream.Config
	if len(rest.Content) > 0 {
		k, ok := upstream.Lookup(kind())
		switch {
		case ok:
			keys = k.NewConfig()
			problems = append(problems, yamlkeys.Unknown(rest, reflect.TypeOf(keys), owner)...)
			if err := rest.Decode(keys); errors.As(err, &te) {
				problems = append(problems, te.Errors...)
			} else if err != nil {
				return nil, nil, err
			}
		case kind() == "":
			problems = append(problems, yamlkeys.Unknown(rest, reflect.TypeOf(struct{}{}), owner)...)
		}
	}
	return keys, problems, nil
}

// keyProblems gathers what decoding the models and their suppliers found
// wrong with their keys, in the order of the file.
func (c Config) keyProblems() []string {
	var out []string
	for _, mc := range c.Models {
		out = append(out, mc.keyProblems...)
		for _, sc := range mc.Suppliers {
			out = append(out, sc.keyProblems...)
		}
	}
	return out
}

// encodeWithUpstream is v as a YAML mapping with the kind's keys written
// right after `upstream:`, where an operator writes them.
func encodeWithUpstream(v any, keys upstream.Config) (*yaml.Node, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	if rv := reflect.ValueOf(keys); keys == nil || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return &n, nil
	}
	var k yaml.Node
	if err := k.Encode(keys); err != nil {
		return nil, err
	}
	at := len(n.Content)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "upstream" {
			at = i + 2
			break
		}
	}
	n.Content = append(n.Content[:at], append(k.Content, n.Content[at:]...)...)
	return &n, nil
}

// upstreamProblems is the validation of one model's (or supplier's)
// upstream keys, each named under the model's path.
type upstreamProblems struct {
	v   *validation
	key string // the model's or supplier's path; "" when building
}

func (p upstreamProblems) path(key string) string {
	if p.key == "" {
		return key
	}
	return p.key + "." + key
}

func (p upstreamProblems) Add(key, format string, args ...any) { p.v.add(p.path(key), format, args...) }
func (p upstreamProblems) Secret(key, env string, isKey bool)  { p.v.secret(p.path(key), env, isKey) }
func (p upstreamProblems) URL(key, s string, schemes ...string) {
	p.v.url(p.path(key), s, schemes...)
}
func (p upstreamProblems) USDC(key, s string) *big.Int { return p.v.usdc(p.path(key), s) }

// upstream validates the upstream of a model or supplier (key names it)
// through its kind.
func (v *validation) upstream(key string, mc ModelConfig) {
	cfg, err := upstream.Resolve(mc.Upstream, mc.UpstreamConfig)
	if err != nil {
		v.add(key+".upstream", "%v", err)
		return
	}
	cfg.Validate(upstreamProblems{v: v, key: key})
}

// newUpstream makes the model behind one public name (or one supplier of
// it): its kind's config, checked as Validate checks it, then built.
func (s *Server) newUpstream(mc ModelConfig, opts Options) (responses.Model, error) {
	cfg, err := upstream.Resolve(mc.Upstream, mc.UpstreamConfig)
	if err != nil {
		return nil, fmt.Errorf("upstream: %w", err)
	}
	v := &validation{getenv: opts.getenv()}
	cfg.Validate(upstreamProblems{v: v})
	if len(v.errs) > 0 {
		return nil, errors.Join(v.errs...)
	}
	return cfg.New(upstream.Env{Model: mc.Name, Getenv: opts.getenv(), Log: s.log,
		Networks:    func() (*x402.Registry, error) { return registry(s.cfg.Payments, opts.Networks) },
		ChainRPCURL: s.cfg.Payments.Chain.RPCURL,
		OnClose:     func(f func()) { s.pay.closers = append(s.pay.closers, f) }})
}

// upstreamKeyEnv is the variable holding a model's upstream API key, if
// its kind takes one.
func upstreamKeyEnv(mc ModelConfig) string {
	if k, ok := mc.UpstreamConfig.(upstream.KeyEnver); ok {
		return k.KeyEnv()
	}
	return ""
}
