package facilitator

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// double is an HTTP facilitator that follows the documented contract of the
// @x402/core reference: it decodes /verify and /settle bodies strictly (the
// shape the reference reads, per protocol version), answers business
// failures with HTTP 200 and isValid/success false, and can be told to
// misbehave (fail with 500, answer garbage, hang).
type double struct {
	t       testing.TB
	srv     *httptest.Server
	release chan struct{} // closed at cleanup: frees hanging handlers

	mu        sync.Mutex
	behaviour string                 // "" (honest), "500", "500-error", "garbage", "no-flag", "no-tx", "hang", "pending"
	requests  map[string][]requestIn // by endpoint
	headers   map[string]http.Header // last request headers, by endpoint
	settled   int
}

// requestIn is a decoded, validated /verify or /settle body.
type requestIn struct {
	Version      int
	Payload      map[string]any
	Requirements map[string]any
}

// newDouble serves the facilitator API under prefix (e.g. "/facilitator").
func newDouble(t testing.TB, prefix string) *double {
	d := &double{t: t, release: make(chan struct{}),
		requests: map[string][]requestIn{}, headers: map[string]http.Header{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+prefix+"/verify", func(w http.ResponseWriter, r *http.Request) { d.serve(w, r, "verify") })
	mux.HandleFunc("POST "+prefix+"/settle", func(w http.ResponseWriter, r *http.Request) { d.serve(w, r, "settle") })
	mux.HandleFunc("GET "+prefix+"/supported", d.supported)
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	t.Cleanup(func() { close(d.release) }) // runs before Close: hung handlers return
	return d
}

// url is the base URL a Client is configured with.
func (d *double) url(prefix string) string { return d.srv.URL + prefix }

// set selects how the double behaves from now on.
func (d *double) set(behaviour string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.behaviour = behaviour
}

// seen returns the validated requests an endpoint received.
func (d *double) seen(endpoint string) []requestIn {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]requestIn(nil), d.requests[endpoint]...)
}

// header returns the headers of the last request to an endpoint.
func (d *double) header(endpoint string) http.Header {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.headers[endpoint]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (d *double) serve(w http.ResponseWriter, r *http.Request, endpoint string) {
	d.mu.Lock()
	behaviour := d.behaviour
	d.headers[endpoint] = r.Header.Clone()
	d.mu.Unlock()

	in, err := decodeRequest(r)
	if err != nil {
		d.t.Errorf("double: %s request does not follow the contract: %v", endpoint, err)
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
		return
	}
	d.mu.Lock()
	d.requests[endpoint] = append(d.requests[endpoint], in)
	d.mu.Unlock()

	switch behaviour {
	case "hang":
		select {
		case <-r.Context().Done():
		case <-d.release:
		}
		return
	case "garbage":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>502 Bad Gateway</html>")
		return
	case "no-flag":
		writeJSON(w, http.StatusOK, map[string]any{"payer": "0xabc"})
		return
	case "no-tx":
		writeJSON(w, http.StatusOK, map[string]any{"success": true, "transaction": "", "network": "eip155:84532"})
		return
	case "500":
		if endpoint == "verify" {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"isValid": false, "invalidReason": "invalid_exact_evm_payload_signature", "invalidMessage": "signature check crashed"})
		} else {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"success": false, "errorReason": "invalid_transaction_state", "transaction": "0xdead", "network": "eip155:84532"})
		}
		return
	case "pending":
		if endpoint == "settle" {
			writeJSON(w, http.StatusOK, map[string]any{"success": false, "errorReason": "settlement_pending", "errorMessage": "timed out waiting for the receipt", "transaction": "0x" + strings.Repeat("ab", 32), "network": "eip155:84532"})
			return
		}
	case "500-error":
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "internal failure"})
		return
	}
	reason := judge(in)
	auth := in.authorization()
	if behaviour == "other-payer" {
		auth = map[string]any{"from": `=HYPERLINK("http://evil.example","x")`}
	}
	if endpoint == "verify" {
		writeJSON(w, http.StatusOK, map[string]any{"isValid": reason == "", "invalidReason": reason, "payer": auth["from"]})
		return
	}
	net, _ := in.Requirements["network"].(string)
	if reason != "" {
		writeJSON(w, http.StatusOK, map[string]any{"success": false, "errorReason": reason, "transaction": "", "network": net, "payer": auth["from"]})
		return
	}
	d.mu.Lock()
	d.settled++
	tx := fmt.Sprintf("0x%064x", d.settled)
	d.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "transaction": tx, "network": net, "payer": auth["from"]})
}

// supported answers like the reference: kinds for v1 and v2, extensions,
// signers per CAIP family.
func (d *double) supported(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	d.headers["supported"] = r.Header.Clone()
	behaviour := d.behaviour
	d.mu.Unlock()
	switch behaviour {
	case "garbage":
		fmt.Fprint(w, "not json")
		return
	case "500", "500-error":
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "down"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"kinds": []map[string]any{
			{"x402Version": 2, "scheme": "exact", "network": "eip155:84532"},
			{"x402Version": 1, "scheme": "exact", "network": "base-sepolia"},
		},
		"extensions": []string{"bazaar"},
		"signers":    map[string][]string{"eip155:*": {"0x1111111111111111111111111111111111111111"}},
	})
}

// decodeRequest reads a body strictly: the three documented fields and
// nothing else, a payload whose version matches, and requirements carrying
// exactly the fields of the version's PaymentRequirements.
func decodeRequest(r *http.Request) (requestIn, error) {
	var in requestIn
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return in, fmt.Errorf("content type %q", ct)
	}
	var raw struct {
		X402Version         *int           `json:"x402Version"`
		PaymentPayload      map[string]any `json:"paymentPayload"`
		PaymentRequirements map[string]any `json:"paymentRequirements"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return in, err
	}
	if raw.X402Version == nil || raw.PaymentPayload == nil || raw.PaymentRequirements == nil {
		return in, fmt.Errorf("missing x402Version, paymentPayload or paymentRequirements")
	}
	in = requestIn{Version: *raw.X402Version, Payload: raw.PaymentPayload, Requirements: raw.PaymentRequirements}
	if v, _ := in.Payload["x402Version"].(float64); int(v) != in.Version {
		return in, fmt.Errorf("payload version %v != request version %d", in.Payload["x402Version"], in.Version)
	}
	var want []string
	switch in.Version {
	case 2:
		want = []string{"scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds", "extra"}
		if _, ok := in.Payload["accepted"].(map[string]any); !ok {
			return in, fmt.Errorf("v2 payload without accepted")
		}
	case 1:
		want = []string{"scheme", "network", "maxAmountRequired", "resource", "description", "mimeType", "payTo", "maxTimeoutSeconds", "asset", "extra"}
		if _, ok := in.Payload["network"].(string); !ok {
			return in, fmt.Errorf("v1 payload without network")
		}
	default:
		return in, fmt.Errorf("x402Version %d", in.Version)
	}
	if len(in.Requirements) != len(want) {
		return in, fmt.Errorf("v%d requirements have %d fields, want %v", in.Version, len(in.Requirements), want)
	}
	for _, k := range want {
		v, ok := in.Requirements[k]
		if !ok {
			return in, fmt.Errorf("v%d requirements lack %q", in.Version, k)
		}
		switch k {
		case "maxTimeoutSeconds":
			if _, ok := v.(float64); !ok {
				return in, fmt.Errorf("maxTimeoutSeconds is %T, want a number", v)
			}
		case "extra":
			e, _ := v.(map[string]any)
			if e["name"] == nil || e["version"] == nil {
				return in, fmt.Errorf("extra lacks name/version: %v", v)
			}
		case "amount", "maxAmountRequired":
			s, _ := v.(string)
			if _, ok := new(big.Int).SetString(s, 10); !ok {
				return in, fmt.Errorf("%s %v is not a decimal string", k, v)
			}
		default:
			if _, ok := v.(string); !ok {
				return in, fmt.Errorf("%s is %T, want a string", k, v)
			}
		}
	}
	if _, ok := in.authorization()["from"]; !ok {
		return in, fmt.Errorf("payload without payload.authorization.from")
	}
	return in, nil
}

// authorization is payload.payload.authorization.
func (in requestIn) authorization() map[string]any {
	p, _ := in.Payload["payload"].(map[string]any)
	a, _ := p["authorization"].(map[string]any)
	return a
}

// judge makes the reference's field checks that need no chain: scheme,
// network, recipient, exact value. "" means valid.
func judge(in requestIn) string {
	req, auth := in.Requirements, in.authorization()
	scheme, network := in.Payload["scheme"], in.Payload["network"]
	amount := req["maxAmountRequired"]
	if in.Version == 2 {
		acc := in.Payload["accepted"].(map[string]any)
		scheme, network, amount = acc["scheme"], acc["network"], req["amount"]
	}
	switch {
	case scheme != "exact" || req["scheme"] != "exact":
		return "unsupported_scheme"
	case network != req["network"]:
		return "invalid_network"
	case !strings.EqualFold(fmt.Sprint(auth["to"]), fmt.Sprint(req["payTo"])):
		return "invalid_exact_evm_payload_recipient_mismatch"
	case fmt.Sprint(auth["value"]) != fmt.Sprint(amount):
		return "invalid_exact_evm_payload_authorization_value"
	}
	return ""
}
