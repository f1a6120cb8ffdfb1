package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/upstream"
	"gopkg.in/yaml.v3"
)

// runInit is `farebox init`: a minimal working farebox.yaml for one
// upstream, validated before it is written.
func runInit(args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("init", "--upstream URL --pay-to 0xADDRESS [flags]", "Write a minimal farebox.yaml: one priced model in front of an upstream, paid on\nBase Sepolia through the x402.org facilitator by default; on a mainnet (--network\nbase) through Coinbase's CDP facilitator or, with --settler chain, your own\nrelayer. farebox.example.yaml documents every other key.", stderr)
	upstream := fs.String("upstream", "", "base URL of the upstream API, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 (required)")
	payTo := fs.String("pay-to", "", "the address that receives the payments (required)")
	model := fs.String("model", "", "the model name clients send, and the upstream's (default gpt-4.1-mini; "+defaultClaude+" for api.anthropic.com)")
	kind := fs.String("kind", "", "the upstream's API: openai (Responses), chat (Chat Completions) or anthropic (Messages); default openai for api.openai.com, anthropic for api.anthropic.com, else chat")
	price := fs.String("price", "0.001", "USDC per call (an anthropic model is priced per token unless this is given)")
	keyEnv := fs.String("api-key-env", "", "the environment variable holding the upstream's API key (default OPENAI_API_KEY for api.openai.com, ANTHROPIC_API_KEY for api.anthropic.com, else none)")
	pay := addInitPayments(fs.FlagSet)
	out := fs.String("config", "farebox.yaml", "the file to write")
	force := fs.Bool("force", false, "overwrite the file when it exists")
	if err := fs.parse(args); err != nil {
		return err
	}
	var missing []string
	if *upstream == "" {
		missing = append(missing, "--upstream URL")
	}
	if *payTo == "" {
		missing = append(missing, "--pay-to 0xADDRESS")
	}
	if len(missing) > 0 {
		return fmt.Errorf("farebox init needs %s (farebox init -h lists the flags)", strings.Join(missing, " and "))
	}
	if err := pay.resolve(); err != nil {
		return err
	}
	if !common.IsHexAddress(*payTo) {
		return fmt.Errorf("--pay-to %q is not an address", *payTo)
	}
	u, err := url.Parse(*upstream)
	if err != nil || u.Host == "" {
		return fmt.Errorf("--upstream %q: want the API's base URL, e.g. https://api.openai.com/v1", *upstream)
	}
	*kind, *keyEnv, *model = detectUpstream(u.Host, *kind, *keyEnv, *model)
	cfg := initConfig(*upstream, *model, *kind, *price, *keyEnv, pay.config(*payTo))
	perToken := *kind == anthropicKind && !fs.given("price")
	if *kind == anthropicKind {
		priceAnthropic(&cfg.Models[0], *model, perToken)
	}
	later := append(pay.laterEnv(), *keyEnv)
	if err := startsOnceSet(cfg.Validate(getenv), later, getenv); err != nil {
		return fmt.Errorf("the config would not start: %s", oneLine(err))
	}
	b, err := encodeInit(cfg)
	if err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if *force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(*out, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists: pass --force to overwrite it, or --config to write elsewhere", *out)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	priced := *price + " USDC per call"
	if perToken {
		priced = tokenPriceLine(cfg.Models[0].PricePerMTok)
	}
	fmt.Fprintf(stdout, "wrote %s: %s (%s at %s) for %s, paid to %s on %s.\n", *out, *model, *kind, *upstream, priced, *payTo, pay.network)
	pay.nextSteps(stdout, getenv)
	if *keyEnv != "" && getenv(*keyEnv) == "" {
		fmt.Fprintf(stdout, "Set %s in the environment, then: ", *keyEnv)
	} else {
		fmt.Fprint(stdout, "Next: ")
	}
	fmt.Fprintf(stdout, "farebox serve --check --config %s && farebox serve --config %s\n", *out, *out)
	return nil
}

// initConfig is the smallest config that serves one priced model, with
// the per-call limits written out so the operator sees what a call may
// cost upstream.
func initConfig(upstream, model, kind, price, keyEnv string, pc gateway.PaymentsConfig) gateway.Config {
	limits := gateway.DefaultLimits()
	return gateway.Config{
		Addr:     "127.0.0.1:8402",
		DataDir:  "farebox-data",
		Payments: pc,
		Models: []gateway.ModelConfig{{Name: model, Upstream: kind, UpstreamConfig: endpointKeys(kind, upstream, keyEnv),
			Price: price, Limits: &limits}},
	}
}

// endpointKeys is the kind's config with base_url and api_key_env set as
// an operator writes them, whichever HTTP kind it is; nil for a kind
// farebox does not know, which Validate then names.
func endpointKeys(kind, baseURL, keyEnv string) upstream.Config {
	k, ok := upstream.Lookup(kind)
	if !ok {
		return nil
	}
	keys := map[string]string{"base_url": baseURL}
	if keyEnv != "" {
		keys["api_key_env"] = keyEnv
	}
	cfg := k.NewConfig()
	var n yaml.Node
	if n.Encode(keys) != nil || n.Decode(cfg) != nil {
		return nil
	}
	return cfg
}

// startsOnceSet is err without the problems that are only variables the
// operator sets after init (the API key, a facilitator's or relayer's
// keys): those are for the environment, not the file.
func startsOnceSet(err error, later []string, getenv func(string) string) error {
	if err == nil {
		return nil
	}
	var left []string
	for _, line := range strings.Split(err.Error(), "\n") {
		pending := false
		for _, env := range later {
			if env != "" && getenv(env) == "" && strings.Contains(line, "$"+env) {
				pending = true
			}
		}
		if !pending && strings.TrimSpace(line) != "" {
			left = append(left, line)
		}
	}
	if len(left) == 0 {
		return nil
	}
	return errors.New(strings.Join(left, "\n"))
}

// encodeInit writes cfg as YAML without the keys left at their zero value.
func encodeInit(cfg gateway.Config) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("# Written by farebox init; farebox.example.yaml documents every key.\n")
	buf.WriteString("# Secrets are never in this file: only the names of the variables holding them.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(pruned(cfg)); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// pruned is cfg as a YAML tree with every empty value dropped.
func pruned(cfg gateway.Config) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(cfg); err != nil {
		return &n
	}
	prune(&n)
	return &n
}

func prune(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode:
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !prune(n.Content[i+1]) {
				kept = append(kept, n.Content[i], n.Content[i+1])
			}
		}
		n.Content = kept
		return len(kept) == 0
	case yaml.SequenceNode:
		for _, c := range n.Content {
			prune(c)
		}
		return len(n.Content) == 0
	case yaml.ScalarNode:
		return n.Value == "" || n.Value == "0" && n.Tag == "!!int" || n.Value == "false" || n.Value == "0s" || n.Tag == "!!null"
	}
	return false
}
