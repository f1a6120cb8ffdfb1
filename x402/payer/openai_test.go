package payer_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

func TestOpenAIClientPaysThroughTheTransport(t *testing.T) {
	s, srv := newShop(t, 1000)
	var receipt *x402.Receipt
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.OnReceipt(func(r *x402.Receipt) { receipt = r }))
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("unused"),
		option.WithHTTPClient(&http.Client{Transport: tr}), option.WithMaxRetries(0))
	params := responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}}
	if _, err := client.Responses.New(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	if receipt == nil || !receipt.Success {
		t.Fatalf("receipt = %+v", receipt)
	}
	if len(s.bodies) != 2 || s.bodies[0] != s.bodies[1] || s.bodies[0] == "" {
		t.Fatalf("server saw bodies %q, want the SDK's body twice", s.bodies)
	}

	s.mu.Lock()
	s.amount.SetInt64(1_000_000) // over the default spend cap: the SDK sees the 402
	s.mu.Unlock()
	_, err := client.Responses.New(context.Background(), params)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusPaymentRequired || apiErr.Code != "payment_required" {
		t.Fatalf("unpaid call: %v, want an *openai.Error with status 402", err)
	}
}
