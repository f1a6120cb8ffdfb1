package facilitator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402"
)

var (
	payTo = common.HexToAddress("0x2222222222222222222222222222222222222222")
	payer = common.HexToAddress("0x3333333333333333333333333333333333333333")
)

func requirement() *x402.Requirement {
	return &x402.Requirement{Scheme: "exact", Network: x402.BaseSepolia, Amount: big.NewInt(1000),
		PayTo: payTo, MaxTimeoutSeconds: 300, Resource: "https://farebox.test/v1/responses",
		Description: "", MimeType: "application/json"}
}

// payment builds a client payment for r in the wire shape of the version,
// with value and recipient as given.
func payment(t testing.TB, version int, r *x402.Requirement, value int64, to common.Address) *x402.Payment {
	t.Helper()
	now := time.Now().Unix()
	auth := map[string]any{
		"from": payer.Hex(), "to": to.Hex(), "value": fmt.Sprint(value),
		"validAfter": "0", "validBefore": fmt.Sprint(now + 300),
		"nonce": "0x" + strings.Repeat("ab", 32),
	}
	inner := map[string]any{"signature": "0x" + strings.Repeat("11", 64) + "1b", "authorization": auth}
	var doc map[string]any
	if version == 2 {
		doc = map[string]any{"x402Version": 2, "resource": map[string]any{"url": r.Resource},
			"accepted": map[string]any{"scheme": "exact", "network": r.Network.CAIP2, "amount": r.Amount.String(),
				"asset": r.Network.Asset.Hex(), "payTo": r.PayTo.Hex(), "maxTimeoutSeconds": 300,
				"extra": map[string]any{"name": r.Network.Name, "version": r.Network.Version}},
			"payload": inner}
	} else {
		doc = map[string]any{"x402Version": 1, "scheme": "exact", "network": r.Network.V1Name, "payload": inner}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	net := r.Network.CAIP2
	if version == 1 {
		net = r.Network.V1Name
	}
	return &x402.Payment{Version: version, Scheme: "exact", Network: net, Raw: raw,
		Authorization: x402.Authorization{From: payer, To: to, Value: big.NewInt(value),
			ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(now + 300)}}
}

func newClient(t testing.TB, d *double, opts ...Option) *Client {
	t.Helper()
	c, err := New(d.url("/facilitator")+"/", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reason extracts the x402 reason from an error, or "".
func reason(err error) string {
	var xe *x402.Error
	if errors.As(err, &xe) {
		return xe.Reason
	}
	return ""
}

func TestSettleSendsTheReferenceShapeAndReturnsTheReceipt(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			d := newDouble(t, "/facilitator")
			c := newClient(t, d)
			r := requirement()
			p := payment(t, version, r, 1000, payTo)
			rc, err := c.Settle(context.Background(), p, r)
			if err != nil {
				t.Fatalf("Settle: %v", err)
			}
			wantNet := map[int]string{1: "base-sepolia", 2: "eip155:84532"}[version]
			if !rc.Success || rc.ErrorReason != "" || !strings.HasPrefix(rc.Transaction, "0x") || len(rc.Transaction) != 66 ||
				rc.Network != wantNet || !strings.EqualFold(rc.Payer, payer.Hex()) {
				t.Fatalf("receipt = %+v", rc)
			}
			seen := d.seen("settle")
			if len(seen) != 1 {
				t.Fatalf("double saw %d settle requests, want 1", len(seen))
			}
			in := seen[0]
			var sent map[string]any
			if err := json.Unmarshal(p.Raw, &sent); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(in.Payload, sent) {
				t.Errorf("paymentPayload = %v, want the client's payload %v", in.Payload, sent)
			}
			if got, want := in.Requirements["network"], wantNet; got != want {
				t.Errorf("requirements network = %v, want %v", got, want)
			}
			if got, want := in.Requirements["payTo"], payTo.Hex(); got != want {
				t.Errorf("payTo = %v, want %v", got, want)
			}
			if got, want := in.Requirements["asset"], x402.BaseSepolia.Asset.Hex(); got != want {
				t.Errorf("asset = %v, want %v", got, want)
			}
			amountField := map[int]string{1: "maxAmountRequired", 2: "amount"}[version]
			if got := in.Requirements[amountField]; got != "1000" {
				t.Errorf("%s = %v, want \"1000\"", amountField, got)
			}
			if extra := in.Requirements["extra"].(map[string]any); extra["name"] != "USDC" || extra["version"] != "2" {
				t.Errorf("extra = %v", extra)
			}
			if version == 1 && in.Requirements["resource"] != r.Resource {
				t.Errorf("v1 resource = %v", in.Requirements["resource"])
			}
		})
	}
}

func TestSettleFailureWithHTTP200IsAFailure(t *testing.T) {
	d := newDouble(t, "/facilitator")
	c := newClient(t, d)
	r := requirement()
	rc, err := c.Settle(context.Background(), payment(t, 2, r, 999, payTo), r)
	if got, want := reason(err), "invalid_exact_evm_payload_authorization_value"; got != want {
		t.Fatalf("reason = %q (err %v), want %q", got, err, want)
	}
	if rc == nil || rc.Success || rc.ErrorReason != "invalid_exact_evm_payload_authorization_value" ||
		rc.Transaction != "" || rc.Network != "eip155:84532" {
		t.Fatalf("receipt = %+v", rc)
	}
}

func TestVerifyVerdicts(t *testing.T) {
	d := newDouble(t, "/facilitator")
	c := newClient(t, d)
	r := requirement()
	if err := c.Check(context.Background(), payment(t, 2, r, 1000, payTo), r); err != nil {
		t.Fatalf("Check of a valid payment: %v", err)
	}
	other := common.HexToAddress("0x4444444444444444444444444444444444444444")
	bad := payment(t, 1, r, 1000, other)
	v, err := c.Verify(context.Background(), bad, r)
	if err != nil || v.IsValid || v.InvalidReason != "invalid_exact_evm_payload_recipient_mismatch" || !strings.EqualFold(v.Payer, payer.Hex()) {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
	err = c.Check(context.Background(), bad, r)
	var xe *x402.Error
	if !errors.As(err, &xe) || xe.Reason != "invalid_exact_evm_payload_recipient_mismatch" || xe.Malformed {
		t.Fatalf("Check = %v", err)
	}
	if got := len(d.seen("verify")); got != 3 {
		t.Errorf("double saw %d verify requests, want 3", got)
	}
}

func TestNon2xxWithABodyCarriesItsReason(t *testing.T) {
	d := newDouble(t, "/facilitator")
	c := newClient(t, d)
	r := requirement()
	p := payment(t, 2, r, 1000, payTo)

	d.set("500")
	rc, err := c.Settle(context.Background(), p, r)
	if reason(err) != "invalid_transaction_state" || rc.Success || rc.ErrorReason != "invalid_transaction_state" || rc.Transaction != "0xdead" {
		t.Errorf("settle 500: receipt %+v, err %v", rc, err)
	}
	if !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("settle 500 error %q does not name the status", err)
	}
	v, err := c.Verify(context.Background(), p, r)
	if reason(err) != "invalid_exact_evm_payload_signature" || v == nil || v.IsValid {
		t.Errorf("verify 500: %+v, %v", v, err)
	}
	if err := c.Check(context.Background(), p, r); reason(err) != "invalid_exact_evm_payload_signature" {
		t.Errorf("check 500: %v", err)
	}

	d.set("500-error")
	rc, err = c.Settle(context.Background(), p, r)
	if reason(err) != x402.ReasonUnexpectedSettleError || rc.Success || rc.ErrorReason != x402.ReasonUnexpectedSettleError {
		t.Errorf("settle 500 {error}: receipt %+v, err %v", rc, err)
	}
	if err := c.Check(context.Background(), p, r); reason(err) != x402.ReasonUnexpectedVerifyError || !strings.Contains(err.Error(), "internal failure") {
		t.Errorf("check 500 {error}: %v", err)
	}
}

func TestUnreadableAnswersAreUnexpectedErrors(t *testing.T) {
	for _, behaviour := range []string{"garbage", "no-flag", "no-tx"} {
		t.Run(behaviour, func(t *testing.T) {
			d := newDouble(t, "/facilitator")
			d.set(behaviour)
			c := newClient(t, d)
			r := requirement()
			p := payment(t, 2, r, 1000, payTo)
			rc, err := c.Settle(context.Background(), p, r)
			if reason(err) != x402.ReasonUnexpectedSettleError || rc == nil || rc.Success || rc.ErrorReason != x402.ReasonUnexpectedSettleError ||
				!strings.EqualFold(rc.Payer, payer.Hex()) || rc.Network != "eip155:84532" {
				t.Errorf("Settle: receipt %+v, err %v", rc, err)
			}
			if behaviour == "no-tx" {
				return // a verify answer has no transaction to miss
			}
			if err := c.Check(context.Background(), p, r); reason(err) != x402.ReasonUnexpectedVerifyError {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

func TestAHangingFacilitatorIsAContextError(t *testing.T) {
	d := newDouble(t, "/facilitator")
	d.set("hang")
	r := requirement()
	p := payment(t, 2, r, 1000, payTo)

	t.Run("client timeout", func(t *testing.T) {
		c := newClient(t, d, WithTimeout(100*time.Millisecond))
		rc, err := c.Settle(context.Background(), p, r)
		if !errors.Is(err, context.DeadlineExceeded) || reason(err) != x402.ReasonUnexpectedSettleError || rc.Success {
			t.Errorf("Settle: receipt %+v, err %v", rc, err)
		}
		// The facilitator got the request and may still settle it: the
		// outcome is unknown, not a refusal that frees the authorization.
		if !errors.Is(err, x402.ErrSettlementPending) {
			t.Errorf("Settle of a facilitator that never answered: %v, want it pending", err)
		}
		if err := c.Check(context.Background(), p, r); !errors.Is(err, context.DeadlineExceeded) || reason(err) != x402.ReasonUnexpectedVerifyError {
			t.Errorf("Check: %v", err)
		}
	})
	t.Run("caller deadline", func(t *testing.T) {
		c := newClient(t, d) // DefaultTimeout: the caller's shorter deadline wins
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if _, err := c.Settle(ctx, p, r); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Settle: %v", err)
		}
	})
	t.Run("caller cancels", func(t *testing.T) {
		c := newClient(t, d)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			for len(d.seen("verify")) == 0 {
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond):
				}
			}
			cancel()
		}()
		_, err := c.Verify(ctx, p, r)
		close(done)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Verify: %v", err)
		}
	})
}

func TestAuthHeadersArrivePerEndpoint(t *testing.T) {
	d := newDouble(t, "/facilitator")
	var mu sync.Mutex
	calls := map[string]int{}
	c := newClient(t, d, WithAuthHeaders(func(endpoint string) http.Header {
		mu.Lock()
		defer mu.Unlock()
		calls[endpoint]++
		return http.Header{"Authorization": {fmt.Sprintf("Bearer %s-%d", endpoint, calls[endpoint])}, "x-correlation": {endpoint}}
	}))
	r := requirement()
	p := payment(t, 2, r, 1000, payTo)
	ctx := context.Background()
	if err := c.Check(ctx, p, r); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Settle(ctx, p, r); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Settle(ctx, p, r); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Supported(ctx); err != nil {
		t.Fatal(err)
	}
	for endpoint, want := range map[string]string{"verify": "Bearer verify-1", "settle": "Bearer settle-2", "supported": "Bearer supported-1"} {
		h := d.header(endpoint)
		if got := h.Get("Authorization"); got != want {
			t.Errorf("%s Authorization = %q, want %q", endpoint, got, want)
		}
		if got := h.Get("X-Correlation"); got != endpoint {
			t.Errorf("%s X-Correlation = %q", endpoint, got)
		}
	}
}

func TestSupportedIsParsed(t *testing.T) {
	d := newDouble(t, "/facilitator")
	c := newClient(t, d)
	s, err := c.Supported(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Kinds) != 2 || !s.Supports(2, "exact", "eip155:84532") || !s.Supports(1, "exact", "base-sepolia") ||
		s.Supports(2, "exact", "eip155:8453") || s.Supports(1, "exact", "eip155:84532") {
		t.Errorf("kinds = %+v", s.Kinds)
	}
	if !reflect.DeepEqual(s.Extensions, []string{"bazaar"}) || len(s.Signers["eip155:*"]) != 1 {
		t.Errorf("extensions %v, signers %v", s.Extensions, s.Signers)
	}
	for _, behaviour := range []string{"garbage", "500"} {
		d.set(behaviour)
		if _, err := c.Supported(context.Background()); err == nil {
			t.Errorf("%s: Supported succeeded", behaviour)
		}
	}
}

func TestRequestsThatCannotBeFormedNeverLeave(t *testing.T) {
	d := newDouble(t, "/facilitator")
	c := newClient(t, d)
	r := requirement()
	noRaw := payment(t, 2, r, 1000, payTo)
	noRaw.Raw = nil
	if rc, err := c.Settle(context.Background(), noRaw, r); reason(err) != "invalid_payload" || rc.Success || rc.ErrorReason != "invalid_payload" {
		t.Errorf("payment without raw JSON: %+v, %v", rc, err)
	}
	dev := x402.NewNetwork("", "", big.NewInt(1337), common.HexToAddress("0x5555555555555555555555555555555555555555"), "Test USDC", "1")
	devReq := requirement()
	devReq.Network = dev
	if err := c.Check(context.Background(), payment(t, 1, devReq, 1000, payTo), devReq); reason(err) != "invalid_network" {
		t.Errorf("v1 payment on a network without a v1 name: %v", err)
	}
	three := payment(t, 2, r, 1000, payTo)
	three.Version = 3
	if err := c.Check(context.Background(), three, r); reason(err) != "invalid_x402_version" {
		t.Errorf("version 3: %v", err)
	}
	if n := len(d.seen("verify")) + len(d.seen("settle")); n != 0 {
		t.Errorf("%d requests reached the facilitator", n)
	}
}

func TestNewRefusesBadBaseURLs(t *testing.T) {
	for _, u := range []string{"", "x402.org/facilitator", "ftp://x402.org", "http://", "://bad"} {
		if _, err := New(u); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
	c, err := New("https://x402.org/facilitator/")
	if err != nil || c.BaseURL() != "https://x402.org/facilitator" {
		t.Errorf("New = %v, %v", c, err)
	}
}

func TestConcurrentSettlementsEachGetTheirOwnReceipt(t *testing.T) {
	d := newDouble(t, "/facilitator")
	c := newClient(t, d)
	r := requirement()
	const n = 32
	p := payment(t, 2, r, 1000, payTo)
	txs := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			rc, err := c.Settle(context.Background(), p, r)
			if err != nil {
				t.Error(err)
				return
			}
			txs <- rc.Transaction
		})
	}
	wg.Wait()
	close(txs)
	seen := map[string]bool{}
	for tx := range txs {
		seen[tx] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct transactions, want %d", len(seen), n)
	}
}

// A facilitator that cannot be reached was never asked: its Settle is a
// failure, not pending, so the authorization may be used again.
func TestAnUnreachableFacilitatorSettledNothing(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the dial is refused
	c, err := New("http://" + addr + "/facilitator/")
	if err != nil {
		t.Fatal(err)
	}
	r := requirement()
	p := payment(t, 2, r, 1000, payTo)
	rc, err := c.Settle(context.Background(), p, r)
	if err == nil || rc.Success || reason(err) != x402.ReasonUnexpectedSettleError {
		t.Fatalf("Settle: receipt %+v, err %v", rc, err)
	}
	if errors.Is(err, x402.ErrSettlementPending) {
		t.Errorf("Settle through a refused connection is pending: %v", err)
	}
}

// A facilitator that answers settlement_pending broadcast the transfer and
// did not see it mined: the outcome is unknown, not a refusal.
func TestAPendingAnswerIsPending(t *testing.T) {
	t.Parallel()
	d := newDouble(t, "/facilitator")
	d.set("pending")
	c := newClient(t, d)
	r := requirement()
	p := payment(t, 2, r, 1000, payTo)
	rc, err := c.Settle(context.Background(), p, r)
	if !errors.Is(err, x402.ErrSettlementPending) || rc.Success || rc.ErrorReason != x402.ReasonSettlementPending || rc.Transaction != "0x"+strings.Repeat("ab", 32) {
		t.Fatalf("Settle: receipt %+v, err %v", rc, err)
	}
}
