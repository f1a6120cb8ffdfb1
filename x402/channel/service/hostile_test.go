package service_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// walletChannel is a channel whose payer is chaintest's HostileWallet: it
// accepts any signature unless the address it refuses asks, so its
// payloads carry junk signatures.
type walletChannel struct {
	wallet common.Address
	cfg    channel.Config
	id     [32]byte
}

func (r *rig) walletChannel(t *testing.T, ctx context.Context, s *service.Service, refused common.Address) *walletChannel {
	t.Helper()
	wallet, err := r.a.DeployHostileWallet(ctx, refused)
	if err != nil {
		t.Fatal(err)
	}
	cfg := channel.Config{Payer: wallet, Receiver: r.receiver, ReceiverAuthorizer: s.Terms().ReceiverAuthorizer,
		Token: r.a.Network.Asset, WithdrawDelay: channel.MinWithdrawDelay}
	_, _ = rand.Read(cfg.Salt[:])
	return &walletChannel{wallet: wallet, cfg: cfg, id: r.c.ChannelID(&cfg)}
}

// junk is a signature no key made.
func junk() []byte { return bytes.Repeat([]byte{0x11}, 65) }

// payload is a voucher (deposit 0) or deposit payload of the channel
// with junk signatures.
func (w *walletChannel) payload(t *testing.T, max, deposit int64) *channel.Payload {
	t.Helper()
	m := map[string]any{"type": channel.TypeVoucher, "channelConfig": w.cfg,
		"voucher": map[string]any{"channelId": common.Hash(w.id).Hex(), "maxClaimableAmount": dec(max), "signature": hexutil.Encode(junk())}}
	if deposit > 0 {
		var salt common.Hash
		_, _ = rand.Read(salt[:])
		m["type"] = channel.TypeDeposit
		m["deposit"] = map[string]any{"amount": dec(deposit), "authorization": map[string]any{"erc3009Authorization": map[string]any{
			"validAfter": "0", "validBefore": dec(time.Now().Unix() + 300), "salt": salt.Hex(), "signature": hexutil.Encode(junk())}}}
	}
	return decode(t, string(mustMarshal(t, m)))
}

// charge runs one request paid by p and commits charge.
func charge(t *testing.T, ctx context.Context, s *service.Service, p *channel.Payload, r *rig, amount int64) {
	t.Helper()
	call, err := s.Begin(ctx, p, r.req, nil)
	if err != nil {
		t.Fatalf("Begin (%s): %v", p.Type, err)
	}
	defer call.Abort(ctx)
	if _, err := call.Commit(ctx, big.NewInt(amount)); err != nil {
		t.Fatal(err)
	}
}

// onchain is the channel's balance and totalClaimed on chain.
func (r *rig) onchain(t *testing.T, ctx context.Context, id [32]byte) (balance, claimed int64) {
	t.Helper()
	o, err := r.c.ReadOnchain(ctx, r.a.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	return o.Balance.Int64(), o.TotalClaimed.Int64()
}

// relayerTxs is how many transactions the relayer has sent.
func (r *rig) relayerTxs(t *testing.T, ctx context.Context) uint64 {
	t.Helper()
	n, err := r.a.Client.NonceAt(ctx, r.settler.Relayer(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func reasonOf(err error) string {
	var ce *channel.Error
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return ""
}

// honestChannel opens a channel for a fresh payer with the official
// client and charges it 1000 then 700; it returns its id.
func honestChannel(t *testing.T, ctx context.Context, r *rig, s *service.Service) ([32]byte, *client, *ecdsa.PrivateKey) {
	t.Helper()
	key := r.payer(t, ctx, 1_000_000)
	cl := newClient(t, key, r.a.RPCURL)
	accept := r.accept(s)
	_, p := paid(t, ctx, s, cl, accept, r.req, 1000)
	paid(t, ctx, s, cl, accept, r.req, 700)
	return p.Voucher.ChannelID, cl, key
}

// TestHostileWalletClaim: a contract wallet that accepts every signature
// except when the settlement contract asks pays two requests with junk
// signatures next to two honest channels. One claim round claims both
// honest channels on chain and quarantines the wallet's: it is served no
// more, with its own reason, and named in the stats.
func TestHostileWalletClaim(t *testing.T) {
	ctx := withTimeout(t, 5*time.Minute)
	r := newRig(t, ctx)
	s := r.service(t, service.NewMemoryStore(), nil)
	a, _, _ := honestChannel(t, ctx, r, s)
	w := r.walletChannel(t, ctx, s, common.Address{})
	charge(t, ctx, s, w.payload(t, 2500, 100_000), r, 2000)
	charge(t, ctx, s, w.payload(t, 4500, 0), r, 2500)
	b, _, _ := honestChannel(t, ctx, r, s)
	// Now the wallet refuses what the contract asks it.
	if err := r.a.SetHostileWalletRefused(ctx, w.wallet, r.c.Settlement); err != nil {
		t.Fatal(err)
	}
	res, err := s.ClaimNow(ctx)
	if err != nil {
		t.Fatalf("claim round: %v", err)
	}
	for _, id := range [][32]byte{a, b} {
		if _, claimed := r.onchain(t, ctx, id); claimed != 1700 {
			t.Fatalf("honest channel claimed %d on chain, want 1700 (%+v)", claimed, res)
		}
	}
	if got := r.usdc(t, ctx, r.receiver); got != 3400 {
		t.Fatalf("receiver holds %d, want 3400", got)
	}
	if bal, claimed := r.onchain(t, ctx, w.id); bal != 100_000 || claimed != 0 {
		t.Fatalf("hostile channel on chain: balance %d claimed %d", bal, claimed)
	}
	if _, err := s.Begin(ctx, w.payload(t, 7000, 0), r.req, nil); reasonOf(err) != channel.ReasonChannelQuarantined {
		t.Fatalf("a voucher on the quarantined channel: %v", err)
	}
	if st := s.Stats(); st.Quarantined != 1 || st.ClaimTxs != 1 {
		t.Fatalf("stats: %+v", st)
	}
	// The operator's view: the claimer leaves it out, and nothing else waits.
	if nc, err := s.NextClaim(ctx); err != nil || nc.Left[w.id] != service.NotClaimedQuarantined || nc.Channels != 0 || !nc.At.IsZero() {
		t.Fatalf("next claim with the wallet quarantined: %+v %v", nc, err)
	}
	// The next round leaves it alone: nothing is claimed, nothing fails.
	if res, err := s.ClaimNow(ctx); err != nil || res.Channels != 0 {
		t.Fatalf("second round: %+v %v", res, err)
	}
}

// TestHostileWalletRefusedAtPayment: when the wallet already refuses the
// settlement contract, its voucher is refused at payment, asked as the
// contract asks (not from the zero address), and its deposit is never sent.
func TestHostileWalletRefusedAtPayment(t *testing.T) {
	ctx := withTimeout(t, 3*time.Minute)
	r := newRig(t, ctx)
	s := r.service(t, service.NewMemoryStore(), nil)
	w := r.walletChannel(t, ctx, s, r.c.Settlement)
	sent := r.relayerTxs(t, ctx)
	if _, err := s.Begin(ctx, w.payload(t, 2500, 100_000), r.req, nil); reasonOf(err) != channel.ReasonVoucherSignature {
		t.Fatalf("the hostile wallet's deposit: %v, want %s", err, channel.ReasonVoucherSignature)
	}
	if bal, _ := r.onchain(t, ctx, w.id); bal != 0 || r.relayerTxs(t, ctx) != sent {
		t.Fatalf("a deposit was sent: balance %d", bal)
	}
}

// withdrawRace sends a payer's finalizeWithdraw just before the claimer's
// claim transaction: the race the contract documents (a withdrawal
// finalized between the claimer's read and its claim).
type withdrawRace struct {
	*evm.Settler
	finalize func()
}

func (w *withdrawRace) Call(ctx context.Context, to common.Address, data []byte, onSigned func(common.Hash) error) (common.Hash, error) {
	if w.finalize != nil {
		w.finalize()
		w.finalize = nil
	}
	return w.Settler.Call(ctx, to, data, onSigned)
}

// TestHostileWithdrawalRace: a payer finalizes its withdrawal between the
// claimer's read of the channels and its claim: that row drops and the
// other channel is claimed in the same round.
func TestHostileWithdrawalRace(t *testing.T) {
	ctx := withTimeout(t, 5*time.Minute)
	r := newRig(t, ctx)
	race := &withdrawRace{Settler: r.settler}
	store := service.NewMemoryStore()
	s := r.service(t, store, func(c *service.Config) { c.Relayer = race })
	a, _, keyA := honestChannel(t, ctx, r, s)
	b, _, _ := honestChannel(t, ctx, r, s)
	cfgA := recordConfig(t, ctx, store, a)
	payerA := crypto.PubkeyToAddress(keyA.PublicKey)
	if err := r.a.Client.Client().CallContext(ctx, nil, "anvil_setBalance", payerA, hexutil.EncodeBig(big.NewInt(1e18))); err != nil {
		t.Fatal(err)
	}
	tx, err := evm.NewTransactor(ctx, r.a.Client, keyA)
	if err != nil {
		t.Fatal(err)
	}
	abi := contracts.NewBatchSettlement()
	bind := contracts.X402BatchSettlementChannelConfig{Payer: cfgA.Payer, PayerAuthorizer: cfgA.PayerAuthorizer, Receiver: cfgA.Receiver,
		ReceiverAuthorizer: cfgA.ReceiverAuthorizer, Token: cfgA.Token, WithdrawDelay: new(big.Int).SetUint64(cfgA.WithdrawDelay), Salt: cfgA.Salt}
	if _, err := tx.Send(ctx, &r.c.Settlement, abi.PackInitiateWithdraw(bind, big.NewInt(100_000)), nil); err != nil {
		t.Fatal(err)
	}
	if err := r.a.Client.Client().CallContext(ctx, nil, "evm_increaseTime", channel.MinWithdrawDelay+1); err != nil {
		t.Fatal(err)
	}
	if err := r.a.Client.Client().CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	race.finalize = func() {
		if _, err := tx.Send(ctx, &r.c.Settlement, abi.PackFinalizeWithdraw(bind), nil); err != nil {
			t.Errorf("finalizeWithdraw: %v", err)
		}
	}
	before := r.usdc(t, ctx, payerA)
	if _, err := s.ClaimNow(ctx); err != nil {
		t.Fatalf("claim round: %v", err)
	}
	if race.finalize != nil {
		t.Fatal("the race did not run")
	}
	if _, claimed := r.onchain(t, ctx, b); claimed != 1700 {
		t.Fatalf("the other channel claimed %d on chain, want 1700", claimed)
	}
	if bal, claimed := r.onchain(t, ctx, a); bal != 0 || claimed != 0 {
		t.Fatalf("the withdrawn channel: balance %d claimed %d", bal, claimed)
	}
	if got := r.usdc(t, ctx, payerA); got != before+100_000 {
		t.Fatalf("payer A holds %d, want %d after withdrawing", got, before+100_000)
	}
	if got := r.usdc(t, ctx, r.receiver); got != 1700 {
		t.Fatalf("receiver holds %d, want 1700", got)
	}
}

// recordConfig is the channel config the service recorded for id.
func recordConfig(t *testing.T, ctx context.Context, store service.Store, id [32]byte) channel.Config {
	t.Helper()
	rec, err := store.Get(ctx, id)
	if err != nil || rec == nil {
		t.Fatalf("no record of the channel: %v", err)
	}
	return rec.State.Config
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostileRefundReplay: one signed refund of 1 unit sent twenty times
// costs one relayer transaction; the replays are refused as too soon and
// the payer gets back exactly 1.
func TestHostileRefundReplay(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	s := r.service(t, service.NewMemoryStore(), nil)
	_, cl, key := honestChannel(t, ctx, r, s)
	payer := crypto.PubkeyToAddress(key.PublicKey)
	cl.write(map[string]any{"op": "refund", "requirements": r.accept(s), "amount": "1"})
	p := decode(t, cl.read().Get("refundPayload").Raw)
	before, sent := r.usdc(t, ctx, payer), r.relayerTxs(t, ctx)
	for i := range 20 {
		_, err := s.Refund(ctx, p, r.req)
		if i == 0 && err != nil {
			t.Fatalf("the first refund: %v", err)
		}
		if i > 0 && reasonOf(err) != channel.ReasonRefundTooSoon {
			t.Fatalf("replay %d: %v, want %s", i, err, channel.ReasonRefundTooSoon)
		}
	}
	if got := r.relayerTxs(t, ctx) - sent; got != 1 {
		t.Fatalf("twenty refunds sent %d transactions, want 1", got)
	}
	if got := r.usdc(t, ctx, payer); got != before+1 {
		t.Fatalf("payer got %d back, want 1", got-before)
	}
}

// TestHostileTinyDeposits: deposits below the configured minimum are
// refused before anything is sent, and a deposit on a channel that already
// covers the voucher is not sent: ten such calls cost no transaction.
func TestHostileTinyDeposits(t *testing.T) {
	ctx := withTimeout(t, 4*time.Minute)
	r := newRig(t, ctx)
	s := r.service(t, service.NewMemoryStore(), nil) // minDeposit 100000
	w := r.walletChannel(t, ctx, s, common.Address{})
	if _, err := s.Begin(ctx, w.payload(t, 2500, 1), r.req, nil); reasonOf(err) != channel.ReasonDepositBelowMinDeposit {
		t.Fatalf("a 1-unit deposit opening a channel: %v", err)
	}
	charge(t, ctx, s, w.payload(t, 2500, 100_000), r, 7)
	sent := r.relayerTxs(t, ctx)
	charged := int64(7)
	for range 10 {
		_, err := s.Begin(ctx, w.payload(t, charged+2500, 1), r.req, nil)
		if reasonOf(err) != channel.ReasonDepositBelowMinDeposit {
			t.Fatalf("a 1-unit deposit: %v", err)
		}
		charge(t, ctx, s, w.payload(t, charged+2500, 100_000), r, 7) // covered: served, not sent
		charged += 7
	}
	if got := r.relayerTxs(t, ctx) - sent; got != 0 {
		t.Fatalf("%d deposit transactions sent for covered channels", got)
	}
	if bal, _ := r.onchain(t, ctx, w.id); bal != 100_000 {
		t.Fatalf("channel balance %d, want the one 100000 deposit", bal)
	}
	if st := s.Stats(); st.Deposits != 1 || st.DepositsSkipped != 10 {
		t.Fatalf("stats: %+v", st)
	}
}

// TestHostileZeroSignatureVoucher: a stranger who copies a channel's
// config and sends a voucher at the wrong amount with an all-zero
// signature learns nothing: a plain invalid-signature refusal, no
// corrective state.
func TestHostileZeroSignatureVoucher(t *testing.T) {
	ctx := withTimeout(t, 3*time.Minute)
	r := newRig(t, ctx)
	store := service.NewMemoryStore()
	s := r.service(t, store, nil)
	id, _, _ := honestChannel(t, ctx, r, s)
	cfg := recordConfig(t, ctx, store, id)
	p := decode(t, string(mustMarshal(t, map[string]any{"type": channel.TypeVoucher, "channelConfig": cfg,
		"voucher": map[string]any{"channelId": common.Hash(id).Hex(), "maxClaimableAmount": "1", "signature": hexutil.Encode(make([]byte, 65))}})))
	_, err := s.Begin(ctx, p, r.req, nil)
	var me *service.MismatchError
	if errors.As(err, &me) || reasonOf(err) != channel.ReasonVoucherSignature {
		t.Fatalf("zero-signature voucher: %v, want a plain %s", err, channel.ReasonVoucherSignature)
	}
	if strings.Contains(err.Error(), "1700") || strings.Contains(err.Error(), "4200") {
		t.Fatalf("the refusal names the channel's state: %v", err)
	}
	if st := s.Stats(); st.Mismatches != 0 {
		t.Fatalf("stats: %+v", st)
	}
}
