package facilitator

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/cdpfake"
	"github.com/farebox/farebox/x402"
)

// cdpClient is a client of the CDP stand-in (in front of the double) that
// signs with key.
func cdpClient(t *testing.T, f *cdpfake.Fake, key cdpfake.Key) *Client {
	t.Helper()
	k, err := ParseCDPKey(key.ID, key.Secret)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(f.URL, WithCDPKey(k, nil))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every request through the stand-in, which verifies each token as CDP
// does (signature, alg, kid, iss, aud, sub, uris, window, fresh nonce),
// is accepted with an EC and with an Ed25519 key, twice over (a fresh
// nonce each time), and reaches the facilitator behind it.
func TestCDPKeysSignEveryRequest(t *testing.T) {
	for _, key := range []cdpfake.Key{cdpfake.ECKey(t, "organizations/o/apiKeys/ec"), cdpfake.Ed25519Key(t, "ed-key-id")} {
		t.Run(key.ID, func(t *testing.T) {
			d := newDouble(t, "/facilitator")
			f := cdpfake.New(t, d.url("/facilitator"), []cdpfake.Key{key})
			c := cdpClient(t, f, key)
			ctx := context.Background()
			for range 2 {
				if _, err := c.Supported(ctx); err != nil {
					t.Fatal(err)
				}
				r := requirement()
				if err := c.Check(ctx, payment(t, 2, r, 1000, payTo), r); err != nil {
					t.Fatal(err)
				}
				if rc, err := c.Settle(ctx, payment(t, 2, r, 1000, payTo), r); err != nil || !rc.Success {
					t.Fatalf("settle: %+v %v", rc, err)
				}
			}
			if refused := f.Refused(); len(refused) > 0 || f.Accepted("settle") != 2 || f.Accepted("verify") != 2 || f.Accepted("supported") != 2 {
				t.Fatalf("refused %v; accepted settle %d verify %d supported %d", refused, f.Accepted("settle"), f.Accepted("verify"), f.Accepted("supported"))
			}
			if h := d.header("settle"); h.Get("Authorization") != "" {
				t.Errorf("the stand-in forwarded CDP's credentials")
			}
		})
	}
}

// A key id CDP does not know and a token outside its window (the
// stand-in's clock ten minutes ahead) are refused: a settlement error
// naming the key id, not pending (nothing moved), never the secret.
func TestCDPRefusalsNameTheKeyNeverTheSecret(t *testing.T) {
	known := cdpfake.ECKey(t, "known-key")
	cases := map[string]struct {
		key  cdpfake.Key
		opts []cdpfake.Option
	}{
		"unknown key id": {cdpfake.Key{ID: "someone-else", Secret: known.Secret, Public: known.Public}, nil},
		"expired token":  {known, []cdpfake.Option{cdpfake.WithClock(func() time.Time { return time.Now().Add(10 * time.Minute) })}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := newDouble(t, "/facilitator")
			f := cdpfake.New(t, d.url("/facilitator"), []cdpfake.Key{known}, tc.opts...)
			c := cdpClient(t, f, tc.key)
			r := requirement()
			rc, err := c.Settle(context.Background(), payment(t, 2, r, 1000, payTo), r)
			var ae *AuthError
			if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || rc.Success || errors.Is(err, x402.ErrSettlementPending) {
				t.Fatalf("settle: %+v %v, want a 401 refusal, not pending", rc, err)
			}
			_, serr := c.Supported(context.Background())
			for _, e := range []error{err, serr} {
				msg := e.Error()
				if !strings.Contains(msg, tc.key.ID) || strings.Contains(msg, "\n") || strings.Contains(msg, secretBody(tc.key.Secret)) {
					t.Errorf("error %q: want one line naming %s, without the secret", msg, tc.key.ID)
				}
			}
			if len(d.seen("settle")) != 0 || len(f.Refused()) != 2 {
				t.Errorf("refused %v; the facilitator behind saw %d settlements", f.Refused(), len(d.seen("settle")))
			}
		})
	}
}

// secretBody is a distinctive part of a secret to look for in messages.
func secretBody(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "-----BEGIN EC PRIVATE KEY-----")
	return strings.TrimSpace(s)[:24]
}

// A 429 tells when to retry; a 403 says the key lacks the permission.
func TestCDPRateLimitSaysWhenToRetry(t *testing.T) {
	key := cdpfake.Ed25519Key(t, "busy-key")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/settle") {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	k, err := ParseCDPKey(key.ID, key.Secret)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(srv.URL, WithCDPKey(k, nil))
	if err != nil {
		t.Fatal(err)
	}
	r := requirement()
	_, err = c.Settle(context.Background(), payment(t, 2, r, 1000, payTo), r)
	var ae *AuthError
	if !errors.As(err, &ae) || ae.RetryAfter != 7*time.Second || !strings.Contains(err.Error(), "retry in 7s") || !strings.Contains(err.Error(), "busy-key") {
		t.Fatalf("settle: %v", err)
	}
	if _, err := c.Supported(context.Background()); err == nil || !strings.Contains(err.Error(), "HTTP 403") || !strings.Contains(err.Error(), "busy-key") {
		t.Fatalf("supported: %v", err)
	}
}

// Secrets that are not a CDP key are refused naming the key id and the
// forms expected, never echoing the secret.
func TestParseCDPKeyRefusesWithoutTheSecret(t *testing.T) {
	for _, secret := range []string{"not-a-key-at-all-but-a-long-secret-value", "-----BEGIN EC PRIVATE KEY-----\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n-----END EC PRIVATE KEY-----\n", "c2hvcnQtc2VjcmV0LXZhbHVlLW9mLWZldy1ieXRlcw=="} {
		_, err := ParseCDPKey("the-id", secret)
		if err == nil || !strings.Contains(err.Error(), "the-id") || strings.Contains(err.Error(), "secret-value") || strings.Contains(err.Error(), "QUJDREVG") || strings.Contains(err.Error(), "c2hvcnQ") {
			t.Errorf("ParseCDPKey: %v", err)
		}
	}
}

func TestIsCDP(t *testing.T) {
	if !IsCDP(CDPURL) || IsCDP("https://x402.org/facilitator") || IsCDP("https://api.cdp.coinbase.com.evil.example/x") {
		t.Error("IsCDP")
	}
}

// A facilitator that names another payer than the authorization's signer
// (here a spreadsheet formula) is refused at verify and at settle: the
// receipt and the books keep the signer, and nothing counts as settled.
func TestAPayerThatIsNotTheSignerIsRefused(t *testing.T) {
	d := newDouble(t, "/facilitator")
	d.set("other-payer")
	c := newClient(t, d)
	r := requirement()
	if err := c.Check(context.Background(), payment(t, 2, r, 1000, payTo), r); err == nil || !strings.Contains(err.Error(), "not the authorization's signer") {
		t.Fatalf("verify: %v", err)
	}
	rc, err := c.Settle(context.Background(), payment(t, 2, r, 1000, payTo), r)
	if err == nil || rc.Success || rc.Payer != payer.Hex() || errors.Is(err, x402.ErrSettlementPending) {
		t.Fatalf("settle: %+v %v", rc, err)
	}
}

// With a transaction check (payments.chain.rpc_url), a success whose
// transaction the chain does not show is not settled: pending, the
// authorization kept spent.
func TestAFacilitatorTransactionTheChainDoesNotShowIsNotSettled(t *testing.T) {
	d := newDouble(t, "/facilitator")
	var checked []string
	c := newClient(t, d, WithTransactionCheck(func(_ context.Context, _ *x402.Requirement, hash string) error {
		checked = append(checked, hash)
		return errors.New("transaction " + hash + " is not on the chain")
	}))
	r := requirement()
	rc, err := c.Settle(context.Background(), payment(t, 2, r, 1000, payTo), r)
	if err == nil || rc.Success || !errors.Is(err, x402.ErrSettlementPending) || len(checked) != 1 || checked[0] != rc.Transaction {
		t.Fatalf("settle: %+v %v, checked %v", rc, err, checked)
	}
}
