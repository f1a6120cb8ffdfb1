package payer_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/chaintest"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/upto"
	"github.com/tidwall/gjson"
)

// officialDir holds the official clients (@x402/evm 2.27) the channel
// package's interop tests drive; its install lock is shared with them.
var officialDir = filepath.Join("..", "channel", "testdata", "node")

// installOfficial finds the official clients of officialDir (chaintest.NodeClients).
func installOfficial(t *testing.T) {
	t.Helper()
	if err := chaintest.NodeClients(t, officialDir); err != nil {
		t.Fatal(err)
	}
}

// official asks @x402/evm's client for a payment payload.
func official(t *testing.T, request map[string]any) gjson.Result {
	t.Helper()
	in, _ := json.Marshal(request)
	cmd := exec.Command("node", "client.mjs")
	cmd.Dir = officialDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
	}
	return gjson.ParseBytes(out)
}

// shape lists the JSON paths of v with the kind of value at each.
func shape(v gjson.Result, prefix string, out map[string]string) map[string]string {
	if out == nil {
		out = map[string]string{}
	}
	if v.IsObject() {
		v.ForEach(func(k, e gjson.Result) bool { shape(e, prefix+"."+k.String(), out); return true })
		return out
	}
	out[prefix] = v.Type.String()
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// TestPayloadsMatchTheOfficialClient: the transport's deposit, voucher and
// upto payloads have exactly the shape @x402/evm 2.27 gives them, and for
// the same key, channel and cumulative amount the voucher is the official
// client's, signature included (both sign deterministically).
func TestPayloadsMatchTheOfficialClient(t *testing.T) {
	installOfficial(t)
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(640))
	key := payerKey(t)
	store := payer.NewMemoryChannels()
	// The official client's salt (zero), so both name the same channel.
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithChannelStore(store), payer.WithChannelSalt([32]byte{}))
	for _, body := range []string{`{"n":1}`, `{"n":2}`} {
		if code := pay(t, tr, srv.URL, body); code != 200 {
			t.Fatalf("status %d", code)
		}
	}
	upTr := payer.NewTransport(payer.NewSigner(key), payer.WithSchemes(upto.Scheme))
	if code := pay(t, upTr, srv.URL, `{"n":3}`); code != 200 {
		t.Fatalf("status %d", code)
	}
	s.Mu.Lock()
	ours := []gjson.Result{}
	for _, h := range s.Headers {
		ours = append(ours, gjson.Parse(decode(t, h)).Get("payload"))
	}
	s.Mu.Unlock()

	privateKey := hexutil.Encode(crypto.FromECDSA(key))
	var batchAccept, uptoAccept map[string]any
	json.Unmarshal(channel.Accept(s.Req(channel.Scheme), s.Terms, nil), &batchAccept)
	json.Unmarshal(upto.Accept(s.Req(upto.Scheme), s.Relayer), &uptoAccept)
	id := ours[1].Get("voucher.channelId").String()
	theirs := []gjson.Result{
		official(t, map[string]any{"scheme": channel.Scheme, "privateKey": privateKey, "requirements": batchAccept}),
		official(t, map[string]any{"scheme": channel.Scheme, "privateKey": privateKey, "requirements": batchAccept,
			"channels": map[string]any{id: map[string]string{"balance": "5000", "chargedCumulativeAmount": "640"}}}),
		official(t, map[string]any{"scheme": upto.Scheme, "privateKey": privateKey, "requirements": uptoAccept}),
	}
	for i, name := range []string{"deposit", "voucher", "upto"} {
		o, th := keys(shape(ours[i], "payload", nil)), keys(shape(theirs[i].Get("payload"), "payload", nil))
		if len(o) < 6 || !slices.Equal(o, th) {
			t.Errorf("%s payload shape:\nours     %v\nofficial %v", name, o, th)
		}
	}
	ov, tv := ours[1].Get("voucher"), theirs[1].Get("payload.voucher")
	for _, f := range []string{"channelId", "maxClaimableAmount", "signature"} {
		if !strings.EqualFold(ov.Get(f).String(), tv.Get(f).String()) {
			t.Errorf("voucher %s: ours %s, official %s", f, ov.Get(f), tv.Get(f))
		}
	}
	if tv.Get("maxClaimableAmount").String() != "1640" {
		t.Errorf("official voucher %s, want the cumulative 1640", tv.Raw)
	}
}
