package channel

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
)

type fixture struct {
	c        *Contracts
	net      *x402.Network
	req      *x402.Requirement
	terms    *Terms
	payerKey *ecdsa.PrivateKey
	cfg      Config
	id       [32]byte
	now      time.Time
}

func newFixture(t testing.TB) *fixture {
	payerKey, _ := crypto.GenerateKey()
	f := &fixture{payerKey: payerKey, now: time.Unix(1_800_000_000, 0)}
	f.c = NewContracts(big.NewInt(84532), common.HexToAddress("0xb5"), common.HexToAddress("0xc3"),
		common.HexToAddress("0xc2"), common.HexToAddress("0x22"))
	f.net = x402.NewNetwork("", "", big.NewInt(84532), common.HexToAddress("0x7070"), "USDC", "2")
	f.req = &x402.Requirement{Scheme: Scheme, Network: f.net, Amount: big.NewInt(1000),
		PayTo: common.HexToAddress("0xbeef"), MaxTimeoutSeconds: 300}
	f.terms = &Terms{ReceiverAuthorizer: common.HexToAddress("0xa0a0"), WithdrawDelay: 900}
	payer := crypto.PubkeyToAddress(payerKey.PublicKey)
	f.cfg = Config{Payer: payer, PayerAuthorizer: payer, Receiver: f.req.PayTo,
		ReceiverAuthorizer: f.terms.ReceiverAuthorizer, Token: f.net.Asset, WithdrawDelay: 900}
	f.id = refChannelID(t, f.c, &f.cfg)
	return f
}

// state is a funded channel: 100000 deposited, 3000 charged, 1000 claimed.
func (f *fixture) state() *State {
	s := NewState(f.id, f.cfg, Onchain{Balance: big.NewInt(100000), TotalClaimed: big.NewInt(1000)}, f.now)
	s.Charged = big.NewInt(3000)
	return s
}

// payloadJSON builds a payload the way @x402/evm's client serialises it.
func (f *fixture) payloadJSON(t testing.TB, typ string, max int64, deposit map[string]any) []byte {
	v := refVoucher(t, f.c, f.id, big.NewInt(max), f.payerKey)
	p := map[string]any{"type": typ, "channelConfig": f.cfg,
		"voucher": map[string]any{"channelId": common.Hash(f.id).Hex(), "maxClaimableAmount": big.NewInt(max).String(),
			"signature": hexutil.Encode(v.Signature)}}
	if deposit != nil {
		p["deposit"] = deposit
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (f *fixture) verifier() *Verifier {
	return &Verifier{Contracts: f.c, Now: func() time.Time { return f.now }, MaxStaleness: time.Minute}
}

func reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestVerifyVoucher(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name   string
		max    int64
		mutate func(*Payload, *State)
		want   string
	}{
		{"next cumulative", 4000, nil, ""},
		{"stale client base", 5000, nil, ReasonCumulativeAmountMismatch},
		{"replayed voucher", 3000, nil, ReasonCumulativeAmountMismatch},
		{"exceeds balance", 4000, func(_ *Payload, s *State) { s.Balance = big.NewInt(3500) }, ReasonCumulativeExceedsBalance},
		{"no balance", 4000, func(_ *Payload, s *State) { s.Balance = new(big.Int) }, ReasonChannelNotFound},
		{"below claimed", 4000, func(_ *Payload, s *State) { s.TotalClaimed = big.NewInt(4000) }, ReasonCumulativeBelowClaimed},
		{"signature for another amount", 4000, func(p *Payload, s *State) {
			p.Voucher.MaxClaimable = big.NewInt(5000)
			s.Charged = big.NewInt(4000)
		}, ReasonVoucherSignature},
		{"other receiver", 4000, func(p *Payload, _ *State) { p.Config.Receiver = common.HexToAddress("0x1") }, ReasonChannelIDMismatch},
		{"wrong token", 4000, func(_ *Payload, _ *State) {
			f.req.Network = x402.NewNetwork("", "", big.NewInt(84532), common.HexToAddress("0x9"), "USDC", "2")
		}, ReasonTokenMismatch},
		{"stale mirror", 4000, func(_ *Payload, s *State) { s.OnchainSyncedAt = f.now.Add(-time.Hour) }, ErrStale.Error()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func(n *x402.Network) { f.req.Network = n }(f.req.Network)
			p, err := DecodePayload(f.payloadJSON(t, TypeVoucher, tc.max, nil))
			if err != nil {
				t.Fatal(err)
			}
			st := f.state()
			if tc.mutate != nil {
				tc.mutate(p, st)
			}
			if got := reason(f.verifier().Verify(p, f.req, f.terms, st)); got != tc.want {
				t.Errorf("reason %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVerifyContractWalletNeedsChain(t *testing.T) {
	f := newFixture(t)
	f.cfg.PayerAuthorizer = common.Address{}
	f.id = refChannelID(t, f.c, &f.cfg)
	p, err := DecodePayload(f.payloadJSON(t, TypeVoucher, 4000, nil))
	if err != nil {
		t.Fatal(err)
	}
	st := f.state()
	if err := f.verifier().Verify(p, f.req, f.terms, st); err != ErrNeedsChain {
		t.Fatalf("err %v, want ErrNeedsChain", err)
	}
}

func TestVerifyERC3009Deposit(t *testing.T) {
	f := newFixture(t)
	salt := [32]byte{1, 2, 3}
	validBefore := f.now.Unix() + 300
	deposit := func(amount int64) map[string]any {
		sig := refReceive(t, f.c, f.net.Asset, "USDC", "2", f.cfg.Payer, big.NewInt(amount), validBefore,
			ERC3009Nonce(f.id, salt), f.payerKey)
		return map[string]any{"amount": big.NewInt(amount).String(), "authorization": map[string]any{"erc3009Authorization": map[string]any{
			"validAfter": "0", "validBefore": big.NewInt(validBefore).String(), "salt": common.Hash(salt).Hex(),
			"signature": hexutil.Encode(sig)}}}
	}
	dep := deposit(10000)
	fresh := NewState(f.id, f.cfg, Onchain{}, f.now)
	p, err := DecodePayload(f.payloadJSON(t, TypeDeposit, 1000, dep))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.verifier().Verify(p, f.req, f.terms, fresh); err != nil {
		t.Fatalf("deposit refused: %v", err)
	}
	// The same authorization for more than was signed is refused.
	p.Deposit.Amount = big.NewInt(20000)
	if got := reason(f.verifier().Verify(p, f.req, f.terms, fresh)); got != ReasonReceiveAuthorizationSignature {
		t.Errorf("inflated deposit: %q", got)
	}
	// A voucher above the deposit is refused.
	p, _ = DecodePayload(f.payloadJSON(t, TypeDeposit, 1000, deposit(500)))
	if got := reason(f.verifier().Verify(p, f.req, f.terms, fresh)); got != ReasonCumulativeExceedsBalance {
		t.Errorf("voucher above deposit: %q", got)
	}
	// An expired authorization is refused before its signature is looked at.
	f.now = f.now.Add(10 * time.Minute)
	p, _ = DecodePayload(f.payloadJSON(t, TypeDeposit, 1000, dep))
	if got := reason(f.verifier().Verify(p, f.req, f.terms, fresh)); got != ReasonValidBefore {
		t.Errorf("expired: %q", got)
	}
}

func TestVerifyRefund(t *testing.T) {
	f := newFixture(t)
	st := f.state()
	raw := f.payloadJSON(t, TypeRefund, 3000, nil)
	p, err := DecodePayload(raw)
	if err != nil {
		t.Fatal(err)
	}
	amt, err := f.verifier().VerifyRefund(p, f.req, f.terms, st)
	if err != nil || amt.Cmp(big.NewInt(97000)) != 0 {
		t.Fatalf("full refund = %v, %v; want 97000", amt, err)
	}
	p.RefundAmount = big.NewInt(1500)
	if amt, err = f.verifier().VerifyRefund(p, f.req, f.terms, st); err != nil || amt.Int64() != 1500 {
		t.Fatalf("partial refund = %v, %v", amt, err)
	}
	p, _ = DecodePayload(f.payloadJSON(t, TypeRefund, 4000, nil))
	if _, err := f.verifier().VerifyRefund(p, f.req, f.terms, st); reason(err) != ReasonCumulativeAmountMismatch {
		t.Errorf("refund voucher above charged: %v", err)
	}
	if _, err := DecodePayload([]byte(`{"type":"refund","channelConfig":{},"voucher":{},"amount":"-1"}`)); reason(err) == "" {
		t.Error("bad refund payload accepted")
	}
}

func TestDecodeRefusesMalformed(t *testing.T) {
	f := newFixture(t)
	good := f.payloadJSON(t, TypeVoucher, 4000, nil)
	for name, tc := range map[string]struct {
		raw  string
		want string
	}{
		"not json":     {`[`, ReasonPayloadType},
		"unknown type": {`{"type":"claim"}`, ReasonPayloadType},
		"no voucher":   {`{"type":"voucher","channelConfig":{}}`, ReasonVoucherPayload},
		"bad amount":   {string(replaceJSON(t, good, "voucher", "maxClaimableAmount", "1e3")), ReasonVoucherPayload},
		"uint128 overflow": {string(replaceJSON(t, good, "voucher", "maxClaimableAmount",
			new(big.Int).Lsh(big.NewInt(1), 128).String())), ReasonVoucherPayload},
		"deposit without authorization": {`{"type":"deposit","channelConfig":` + string(mustJSON(f.cfg)) +
			`,"voucher":{"channelId":"0x` + common.Bytes2Hex(f.id[:]) + `","maxClaimableAmount":"1","signature":"0x01"},"deposit":{"amount":"5","authorization":{}}}`, ReasonDepositPayload},
	} {
		if _, err := DecodePayload([]byte(tc.raw)); reason(err) != tc.want {
			t.Errorf("%s: %v, want %s", name, err, tc.want)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func replaceJSON(t testing.TB, raw []byte, obj, key, val string) []byte {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m[obj].(map[string]any)[key] = val
	return mustJSON(m)
}
