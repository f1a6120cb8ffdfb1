package facilitator

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/farebox/farebox/x402"
)

// cannedAnswer is an http.RoundTripper that answers every request with one
// status and body, so the fuzzer reaches the decoding without a network.
type cannedAnswer struct {
	status int
	body   []byte
}

func (c *cannedAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	return &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(c.body)), Request: r}, nil
}

// FuzzFacilitatorAnswers feeds arbitrary /verify, /settle and /supported
// answers to the client: no panic; a verdict comes back only from a 2xx;
// every refusal is an *x402.Error whose reason is a short code and whose
// message is one short line (both reach the paying client); a settlement
// succeeds exactly when its receipt says success with a transaction; the
// receipt is never nil and carries the refusal's reason.
func FuzzFacilitatorAnswers(f *testing.F) {
	for _, seed := range []struct {
		status int
		body   string
	}{
		{200, `{"isValid":true,"payer":"0x3333333333333333333333333333333333333333"}`},
		{200, `{"isValid":false,"invalidReason":"insufficient_funds","invalidMessage":"not enough\nContract Call: ..."}`},
		{200, `{"success":true,"transaction":"0xabc","network":"eip155:84532","payer":"0x33"}`},
		{400, `{"success":false,"errorReason":"invalid_exact_evm_payload_signature","errorMessage":"bad"}`},
		{500, `{"error":"ContractFunctionExecutionError: reverted.\n\nContract Call:\n  address: 0x..."}`},
		{200, `{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:84532"}],"extensions":null}`},
		{502, `<html>bad gateway</html>`},
		{200, `{"isValid":null,"success":null,"kinds":null}`},
	} {
		f.Add(seed.status, []byte(seed.body))
	}
	r := requirement()
	payments := []*x402.Payment{payment(f, 1, r, 1000, payTo), payment(f, 2, r, 1000, payTo)}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			status = 100 + (status%500+500)%500
		}
		c, err := New("http://facilitator.invalid", WithHTTPClient(&http.Client{Transport: &cannedAnswer{status, body}}))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ok := status >= 200 && status < 300
		for _, p := range payments {
			v, err := c.Verify(ctx, p, r)
			if err == nil {
				if v == nil || !ok {
					t.Fatalf("HTTP %d: verdict %+v without an error", status, v)
				}
			} else {
				checkRefusal(t, "Verify", err)
			}
			if err := c.Check(ctx, p, r); err != nil {
				checkRefusal(t, "Check", err)
			} else if v == nil || !v.IsValid {
				t.Fatalf("Check passed a payment /verify did not find valid (%+v)", v)
			}
			rc, err := c.Settle(ctx, p, r)
			if rc == nil {
				t.Fatal("Settle returned no receipt")
			}
			if (err == nil) != (rc.Success && rc.Transaction != "" && ok) {
				t.Fatalf("HTTP %d: Settle error %v with receipt %+v", status, err, rc)
			}
			if err != nil {
				xe := checkRefusal(t, "Settle", err)
				if rc.ErrorReason != xe.Reason || rc.Success {
					t.Fatalf("receipt %+v for refusal %q", rc, xe.Reason)
				}
			}
		}
		if s, err := c.Supported(ctx); err == nil && (s.Kinds == nil || s.Extensions == nil || s.Signers == nil) {
			t.Fatalf("supported answer with nil parts: %+v", s)
		}
	})
}

// checkRefusal fails t unless err holds an *x402.Error fit for a client.
func checkRefusal(t *testing.T, op string, err error) *x402.Error {
	t.Helper()
	var xe *x402.Error
	if !errors.As(err, &xe) {
		t.Fatalf("%s: %v holds no *x402.Error", op, err)
	}
	if xe.Reason == "" || len(xe.Reason) > maxReasonBytes || strings.ContainsAny(xe.Reason, " \t\r\n\"") {
		t.Fatalf("%s: reason %q is not a short code", op, xe.Reason)
	}
	if xe.Message == "" || len(xe.Message) > 203 || strings.ContainsAny(xe.Message, "\r\n") {
		t.Fatalf("%s: message %q is not one short line", op, xe.Message)
	}
	return xe
}
