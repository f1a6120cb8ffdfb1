package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402/facilitator"
	"gopkg.in/yaml.v3"
)

// listenError says which address could not be listened on and what moves it.
func listenError(addr, flag string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%s is already in use (another farebox?): choose another address with %s", addr, flag)
	}
	return fmt.Errorf("cannot listen on %s (%s): %w", addr, flag, err)
}

// unknownField is how yaml.v3 words an unknown key under KnownFields.
var unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type (?:gateway|upstream)\.(\w+)$`)

// configError rewords a config file's YAML errors for the person fixing
// it: an unknown key is named as such, with where the keys are documented.
func configError(path string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("config %s: %w", path, unwrapPath(err, path))
	}
	return fmt.Errorf("config %s: %s (farebox.example.yaml documents every key)", path, strings.Join(keyProblems(te), "; "))
}

// keyProblems rewords each of a YAML type error's problems: an unknown key
// is named as such, with its line and section.
func keyProblems(te *yaml.TypeError) []string {
	var parts []string
	for _, e := range te.Errors {
		if m := unknownField.FindStringSubmatch(e); m != nil {
			parts = append(parts, fmt.Sprintf("line %s: unknown key %q in %s", m[1], m[2], sectionOf(m[3])))
			continue
		}
		parts = append(parts, e)
	}
	return parts
}

// sectionOf names the YAML section a Go config type is read from.
func sectionOf(goType string) string {
	switch goType {
	case "Config":
		return "the top level"
	case "PaymentsConfig":
		return "payments"
	case "ModelConfig":
		return "a model"
	case "SupplierConfig":
		return "a supplier"
	case "ChainConfig":
		return "payments.chain"
	case "FacilitatorConfig":
		return "payments.facilitator"
	case "NetworkConfig":
		return "a custom network"
	case "Timeouts":
		return "a model's timeouts"
	}
	return goType
}

// unwrapPath drops LoadConfig's own "path: " prefix, which configError adds.
func unwrapPath(err error, path string) error {
	if s, ok := strings.CutPrefix(err.Error(), path+": "); ok {
		return errors.New(s)
	}
	return err
}

// gatewayError names the config file, and the key when the gateway could
// not reach the chain it was given (its own message names the call).
func gatewayError(path string, cfg gateway.Config, err error) error {
	rpc := cfg.Payments.Chain.RPCURL
	if rpc != "" && !strings.Contains(err.Error(), "payments.") && strings.Contains(err.Error(), strings.TrimSuffix(rpc, "/")) {
		return fmt.Errorf("payments.chain.rpc_url %s is unreachable (%s): fix the key or FAREBOX_RPC_URL", rpc, rootCause(err))
	}
	return fmt.Errorf("config %s: %w", path, err)
}

// probeFacilitator makes sure the facilitator answers HTTP at all before
// farebox takes traffic it could not settle; any status counts as an answer.
func probeFacilitator(ctx context.Context, cfg gateway.Config) error {
	pc := cfg.Payments
	if pc.Settler != "facilitator" || pc.Facilitator.URL == "" {
		return nil
	}
	if fc := pc.Facilitator; fc.Kind == "cdp" || (fc.Kind == "" && facilitator.IsCDP(fc.URL)) {
		// CDP takes only requests signed with the API key: an unsigned
		// probe is a 401 against the key's host and rate. The start-up
		// proof asks its /supported signed, and names the URL when it
		// cannot reach it.
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	url := strings.TrimSuffix(pc.Facilitator.URL, "/") + "/supported"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("payments.facilitator.url %q: %w", pc.Facilitator.URL, err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("payments.facilitator.url %s is unreachable (%s): fix the key or FAREBOX_FACILITATOR_URL", pc.Facilitator.URL, rootCause(err))
	}
	res.Body.Close()
	return nil
}

// rootCause is the innermost message of a chain of wrapped errors
// ("connection refused" rather than the whole dial chain).
func rootCause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// oneLine makes any error a single line for the terminal: wrapped errors
// from YAML or JSON-RPC can span several.
func oneLine(err error) string {
	lines := strings.FieldsFunc(err.Error(), func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}
