package gateway_test

import (
	"context"
	"crypto/rand"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/tidwall/gjson"
)

// stallingModel never answers: it waits until its call is cancelled, and
// counts the calls it saw cancelled.
type stallingModel struct {
	calls, cancelled atomic.Int64
}

func (m *stallingModel) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	m.calls.Add(1)
	<-ctx.Done()
	m.cancelled.Add(1)
	return ctx.Err()
}

// startOverlapFarebox is farebox settling on anvil with the chain check
// overlapping the model (payments.chain.overlap), serving model.
func startOverlapFarebox(t *testing.T, model fb.Model) *usdcFarebox {
	t.Helper()
	a := sharedAnvil(t)
	key, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv, Overlap: true}
	env := map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))}
	cfg := gateway.Config{
		Models:   []gateway.ModelConfig{{Name: usdcModel, Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(model), Price: price}},
		Payments: pc,
	}
	ts := startServer(t, cfg, gateway.Options{Getenv: func(k string) string { return env[k] }})
	return &usdcFarebox{testServer: ts, a: a, payTo: common.HexToAddress(pc.PayTo)}
}

// junkWalletPayment is an authorization naming from (anyone's funded
// address: no key is needed to name it) carrying a 132-byte "contract
// wallet" signature of random bytes.
func junkWalletPayment(t *testing.T, req *x402.Requirement, from common.Address) string {
	t.Helper()
	p := &x402.Payment{Version: 2, Scheme: x402.SchemeExact}
	au := &p.Authorization
	au.From, au.To, au.Value = from, req.PayTo, new(big.Int).Set(req.Amount)
	au.ValidAfter, au.ValidBefore = new(big.Int), big.NewInt(time.Now().Unix()+req.MaxTimeoutSeconds)
	p.Signature = make([]byte, 132)
	if _, err := rand.Read(au.Nonce[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := rand.Read(p.Signature); err != nil {
		t.Fatal(err)
	}
	value, err := x402.EncodePayment(p, req)
	if err != nil {
		t.Fatal(err)
	}
	return value
}

// With the chain check overlapping the model, a long (contract wallet)
// signature naming a funded address whose key the sender does not hold is
// not a free run of
// the model: it is checked before the model starts and refused with a 402,
// JSON and stream alike, and the model is never called.
func TestHostileOverlapLongSignatureIsCheckedFirst(t *testing.T) {
	m := &stallingModel{}
	f := startOverlapFarebox(t, m)
	req := f.offer(t, 2)
	for _, stream := range []string{"false", "true"} {
		body := `{"model":"` + usdcModel + `","input":"run me for free","stream":` + stream + `}`
		res, b := postBounded(t, f.URL+"/responses", body, x402.HeaderPaymentSignature, junkWalletPayment(t, req, f.a.Payer))
		if res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(b, "error.code").String() != x402.ReasonSignature {
			t.Fatalf("stream %s: %d %s, want 402 %s", stream, res.StatusCode, b, x402.ReasonSignature)
		}
	}
	if n := m.calls.Load(); n != 0 {
		t.Errorf("the model ran %d times for junk signatures", n)
	}
	if got := usdcBalance(t, f.a, f.payTo); got.Sign() != 0 {
		t.Errorf("payTo received %s", got)
	}
}

// A refusal the overlapped check finds while the model runs stops the
// model at once (its call is cancelled) and is answered with a 402 with
// nothing of the answer written, even from a model that would never end.
func TestHostileOverlapRefusalCancelsTheModel(t *testing.T) {
	m := &stallingModel{}
	f := startOverlapFarebox(t, m)
	req := f.offer(t, 2)
	for i, stream := range []string{"false", "true"} {
		value := usedPayment(t, f.a, req, 2) // its nonce is used on chain before farebox sees it
		body := `{"model":"` + usdcModel + `","input":"refuse me","stream":` + stream + `}`
		res, b := postBounded(t, f.URL+"/responses", body, x402.HeaderPaymentSignature, value)
		if res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(b, "error.code").String() != x402.ReasonNonceAlreadyUsed {
			t.Fatalf("stream %s: %d %s, want 402 %s", stream, res.StatusCode, b, x402.ReasonNonceAlreadyUsed)
		}
		if n := m.cancelled.Load(); n != int64(i+1) {
			t.Fatalf("stream %s: %d model calls cancelled, want %d", stream, n, i+1)
		}
	}
}

// postBounded is post with a client timeout: a server that never answers
// fails the test instead of hanging it.
func postBounded(t *testing.T, url, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}
