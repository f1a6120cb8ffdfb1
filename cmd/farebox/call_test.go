package main

import (
	"context"
	"encoding/hex"
	"io"
	"math/big"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// callWith runs `farebox call` with args and FAREBOX_PAYER_KEY=key ("" for
// the dev key) and returns its output and error.
func callWith(t *testing.T, key string, args ...string) (string, error) {
	t.Helper()
	var out syncBuffer
	env := func(name string) string {
		if name == "FAREBOX_PAYER_KEY" {
			return key
		}
		return ""
	}
	err := run(context.Background(), append([]string{"call"}, args...), &out, &syncBuffer{}, env)
	return out.String(), err
}

// TestFareboxCallExplainsRefusals: a refused call says what the server
// said (its OpenAI error message) and the x402 reason, not only the status.
func TestFareboxCallExplainsRefusals(t *testing.T) {
	_, banner := startDevCommand(t)
	base := field(t, banner, `base URL\s+(\S+)`)

	// The client refuses to pay above its cap: the server's offer comes back.
	_, err := callWith(t, "", "--base-url", base, "--max-price", "0.0001", "hello")
	if err == nil {
		t.Fatal("a call above --max-price succeeded")
	}
	for _, want := range []string{"402 Payment Required", "farebox-scripted costs 0.001 USDC per call", "x402 reason: payment_required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	// A payer without test dollars is refused by the chain's judgement.
	broke, _ := crypto.GenerateKey()
	_, err = callWith(t, hex.EncodeToString(crypto.FromECDSA(broke)), "--base-url", base, "hello")
	if err == nil {
		t.Fatal("an unfunded payer's call succeeded")
	}
	if !regexp.MustCompile(`402 Payment Required: .+ \(x402 reason: [a-z_]*insufficient_funds\)`).MatchString(err.Error()) {
		t.Errorf("error %q does not give the message and the insufficient-funds reason", err)
	}

	// Nobody there: the error says where it looked and what to change.
	_, err = callWith(t, "", "--base-url", "http://"+closedAddr(t)+"/v1", "hello")
	if err == nil || !strings.Contains(err.Error(), "--base-url") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("unreachable server: %v", err)
	}
}

// TestReadmeToolCall runs the README's tool example: the declared city
// parameter is filled in, and the call is paid.
func TestReadmeToolCall(t *testing.T) {
	_, banner := startDevCommand(t)
	base := field(t, banner, `base URL\s+(\S+)`)
	out, err := callWith(t, "", "--base-url", base, "--stream", "--tool", "get_weather(city)", "call get_weather for Paris")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`function call call_\S+ get_weather\(\{"city":"[^"]+"\}\)`).MatchString(out) {
		t.Errorf("no get_weather call with a city in:\n%s", out)
	}
	if !strings.Contains(out, "receipt: success=true") {
		t.Errorf("no receipt in:\n%s", out)
	}
	if _, err := parseTool("get_weather(city"); err == nil {
		t.Error("an unclosed parameter list was accepted")
	}
}

// TestDevOffersV1 pays the dev gateway the v1 way: the 402's v1 body
// offers the dev network (as "farebox-dev"), and an X-PAYMENT built from
// that offer is settled on the dev chain.
func TestDevOffersV1(t *testing.T) {
	_, banner := startDevCommand(t)
	base := field(t, banner, `base URL\s+(\S+)`)
	token := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	post := func(header, value string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, base+"/responses", strings.NewReader(`{"model":"farebox-scripted","input":"v1 pays"}`))
		req.Header.Set("Content-Type", "application/json")
		if header != "" {
			req.Header.Set(header, value)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := post("", "")
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	offers, err := x402.DecodeV1Offers(body)
	if err != nil || len(offers) != 1 || offers[0].Network != devV1Name {
		t.Fatalf("v1 offers %+v (%v) in %s, want one on %s", offers, err, body, devV1Name)
	}
	reg, _ := x402.NewRegistry(x402.NewNetwork("eip155:1337", devV1Name, big.NewInt(1337), token, "USDC", "2"))
	req, err := offers[0].Requirement(reg)
	if err != nil {
		t.Fatal(err)
	}
	name, value, err := payer.NewSigner(devPayerKey(t)).PaymentHeader(req, 1)
	if err != nil {
		t.Fatal(err)
	}
	res = post(name, value)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("v1 payment: %d %s", res.StatusCode, b)
	}
	r, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderXPaymentResponse))
	if err != nil || !r.Success || r.Network != devV1Name {
		t.Fatalf("X-PAYMENT-RESPONSE %+v (%v)", r, err)
	}
	rpc, err := ethclientDial(context.Background(), field(t, banner, `chain RPC\s+(\S+)`))
	if err != nil {
		t.Fatal(err)
	}
	defer rpc.Close()
	if mined := awaitMined(t, rpc, common.HexToHash(r.Transaction)); mined.Status != 1 {
		t.Fatalf("v1 settlement %s reverted", r.Transaction)
	}
}
