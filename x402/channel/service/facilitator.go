package service

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
)

// FacilitatorCaller posts one JSON body to a facilitator endpoint
// ("verify", "settle"): *facilitator.Client's Exchange.
type FacilitatorCaller interface {
	Exchange(ctx context.Context, endpoint string, body []byte) (int, []byte, error)
}

// reasonSettlementPending is the spec's non-terminal answer: broadcast,
// confirmation unknown.
const reasonSettlementPending = "settlement_pending"

// reasonNothingToSettle is settle's answer when the receiver has nothing
// claimed and unsettled: not a failure for a claim round.
const reasonNothingToSettle = "invalid_batch_settlement_evm_nothing_to_settle"

// FacilitatorBackend delegates the service's transactions to a remote
// x402 facilitator's /settle (the spec's "Facilitator Interface"): the
// deposit payload as the client sent it, and claim, settle and enriched
// refund payloads the service writes. With Key nil the receiver
// authorization is delegated: the facilitator signs the ClaimBatch and
// Refund itself (its /supported extra.receiverAuthorizer is Authorizer);
// with Key set farebox signs them and the facilitator only relays.
type FacilitatorBackend struct {
	Facilitator FacilitatorCaller
	Contracts   *channel.Contracts
	// Network is the CAIP-2 network of the requirements ("eip155:8453").
	Network string
	// Authorizer is the channels' receiverAuthorizer: the facilitator's
	// advertised one, or Key's address.
	Authorizer common.Address
	// Key, when set, is the receiver authorizer's key, held by farebox.
	Key *ecdsa.PrivateKey
	// Receipts reads receipts for Await (a journaled or pending
	// transaction); nil makes Await report the outcome unknown.
	Receipts ethereum.TransactionReader
	// AwaitPoll is how often Await polls for a receipt (default 500 ms).
	AwaitPoll time.Duration
	// Available, when set, is nil unless the facilitator was seen
	// unreachable (*facilitator.Client's Available): a payment that needs
	// it now (a deposit, a refund) is then refused before anything runs
	// for it, with its error (an *x402.Error the server answers 503).
	Available func(ctx context.Context) error

	mu sync.Mutex
	// unswept are the (receiver, token) pairs holding claimed funds a
	// sweep has not moved yet: a failed sweep, or a refund's claim.
	unswept map[[2]common.Address]bool
}

var _ Backend = (*FacilitatorBackend)(nil)

// ReceiverAuthorizer is Authorizer.
func (b *FacilitatorBackend) ReceiverAuthorizer() common.Address { return b.Authorizer }

// envelope is a PaymentPayload wrapped in a /verify or /settle request.
type envelope struct {
	X402Version  int             `json:"x402Version"`
	Payload      paymentPayload  `json:"paymentPayload"`
	Requirements json.RawMessage `json:"paymentRequirements"`
}

type paymentPayload struct {
	X402Version int             `json:"x402Version"`
	Accepted    json.RawMessage `json:"accepted"`
	Payload     any             `json:"payload"`
}

// settleAnswer is /settle's answer with batch-settlement's channel state.
type settleAnswer struct {
	Success      *bool  `json:"success"`
	ErrorReason  string `json:"errorReason"`
	ErrorMessage string `json:"errorMessage"`
	Transaction  string `json:"transaction"`
	Amount       string `json:"amount"`
}

// settle posts payload to /settle under requirement and reads the answer:
// a refusal before any broadcast is a *channel.Error with the
// facilitator's reason; a broadcast it could not confirm is a StageWait
// *TxError with the hash; a mined revert a StageMined one.
func (b *FacilitatorBackend) settle(ctx context.Context, requirement json.RawMessage, payload any) (common.Hash, *settleAnswer, error) {
	body, err := json.Marshal(envelope{X402Version: 2, Requirements: requirement,
		Payload: paymentPayload{X402Version: 2, Accepted: requirement, Payload: payload}})
	if err != nil {
		return common.Hash{}, nil, err
	}
	status, raw, err := b.Facilitator.Exchange(ctx, "settle", body)
	if err != nil {
		// The request may have reached it: the outcome is unknown.
		return common.Hash{}, nil, &TxError{Stage: StageWait, Err: fmt.Errorf("facilitator settle: %w", err)}
	}
	var a settleAnswer
	if json.Unmarshal(raw, &a) != nil || (a.Success == nil && a.ErrorReason == "") {
		return common.Hash{}, nil, &TxError{Stage: StageWait, Err: fmt.Errorf("facilitator settle: HTTP %d, not a settle answer", status)}
	}
	var tx common.Hash
	if a.Transaction != "" {
		if h, err := hexutil.Decode(a.Transaction); err == nil && len(h) == 32 {
			tx = common.BytesToHash(h)
		}
	}
	if *orFalse(a.Success) {
		if tx == (common.Hash{}) {
			return tx, &a, &TxError{Stage: StageWait, Err: errors.New("facilitator settle: success without a transaction")}
		}
		return tx, &a, nil
	}
	cause := fmt.Errorf("facilitator settle: %s: %s", a.ErrorReason, a.ErrorMessage)
	switch {
	case a.ErrorReason == reasonSettlementPending:
		return tx, &a, &TxError{Stage: StageWait, Tx: tx, Reason: a.ErrorReason, Err: cause}
	case tx != (common.Hash{}):
		// A refusal naming a transaction: it was mined and failed.
		return tx, &a, &TxError{Stage: StageMined, Tx: tx, Reason: a.ErrorReason, Err: cause}
	}
	return tx, &a, &channel.Error{Reason: a.ErrorReason, Message: "the facilitator refused: " + firstNonEmpty(a.ErrorMessage, a.ErrorReason)}
}

func orFalse(b *bool) *bool {
	if b == nil {
		return new(bool)
	}
	return b
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Deposit forwards the client's deposit payload. The facilitator learns
// the hash only when it answers, so the intent is journaled with the zero
// hash first (the next request on the channel then reads the chain).
func (b *FacilitatorBackend) Deposit(ctx context.Context, op DepositOp, journal func(common.Hash) error) (common.Hash, error) {
	if op.Collector != nil {
		// The sponsoring extension would have to be forwarded too; not yet.
		return common.Hash{}, &channel.Error{Reason: channel.ReasonPermit2AllowanceRequired,
			Message: "a gas-sponsored Permit2 deposit is not relayed through the facilitator: approve Permit2 or deposit with eip3009"}
	}
	if len(op.Payload.Raw) == 0 {
		return common.Hash{}, &channel.Error{Reason: channel.ReasonDepositPayload, Message: "no deposit payload to forward"}
	}
	if err := journal(common.Hash{}); err != nil {
		return common.Hash{}, &TxError{Stage: StageSend, Err: err}
	}
	tx, _, err := b.settle(ctx, op.Accepted, op.Payload.Raw)
	return tx, err
}

// claimJSON is one row of a claim payload.
type claimJSON struct {
	Voucher struct {
		Channel            channel.Config `json:"channel"`
		MaxClaimableAmount string         `json:"maxClaimableAmount"`
	} `json:"voucher"`
	Signature    string `json:"signature"`
	TotalClaimed string `json:"totalClaimed"`
}

func claimRows(rows []channel.Claim) []claimJSON {
	out := make([]claimJSON, len(rows))
	for i, r := range rows {
		out[i].Voucher.Channel = r.Config
		out[i].Voucher.MaxClaimableAmount = r.MaxClaimable.String()
		out[i].Signature = hexutil.Encode(r.Signature)
		out[i].TotalClaimed = r.TotalClaimed.String()
	}
	return out
}

// claimSignature is farebox's ClaimBatch signature, or "" when the
// facilitator signs.
func (b *FacilitatorBackend) claimSignature(rows []channel.Claim) (string, error) {
	if b.Key == nil {
		return "", nil
	}
	entries := make([]channel.ClaimEntry, len(rows))
	for i := range rows {
		entries[i] = channel.ClaimEntry{ChannelID: b.Contracts.ChannelID(&rows[i].Config),
			MaxClaimable: rows[i].MaxClaimable, TotalClaimed: rows[i].TotalClaimed}
	}
	return signDigest(b.Contracts.ClaimBatchDigest(entries), b.Key)
}

func signDigest(digest [32]byte, key *ecdsa.PrivateKey) (string, error) {
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return "", err
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}

// minimalRequirement is what the reference server sends with its own
// claim and settle payloads: the facilitator routes on scheme and network.
func (b *FacilitatorBackend) minimalRequirement(receiver, token common.Address) json.RawMessage {
	r, _ := json.Marshal(map[string]any{"scheme": channel.Scheme, "network": b.Network, "asset": token.Hex(),
		"amount": "0", "payTo": receiver.Hex(), "maxTimeoutSeconds": 0, "extra": map[string]any{}})
	return r
}

// Claim sends a claim payload (claimWithSignature, from a facilitator
// signer), then a settle payload sweeping the receiver: two transactions,
// as the reference facilitator has no claim-and-settle. The claim's hash
// is returned; a failed sweep is only logged by the next round's sweep.
func (b *FacilitatorBackend) Claim(ctx context.Context, rows []channel.Claim, receiver, token common.Address, journal func(common.Hash) error) (common.Hash, error) {
	sig, err := b.claimSignature(rows)
	if err != nil {
		return common.Hash{}, err
	}
	payload := map[string]any{"type": "claim", "claims": claimRows(rows)}
	if sig != "" {
		payload["claimAuthorizerSignature"] = sig
	}
	if err := b.available(ctx); err != nil {
		return common.Hash{}, err // the claimer sends it again at its next look
	}
	if err := journal(common.Hash{}); err != nil {
		return common.Hash{}, &TxError{Stage: StageSend, Err: err}
	}
	req := b.minimalRequirement(receiver, token)
	tx, _, err := b.settle(ctx, req, payload)
	if err != nil {
		var ce *channel.Error
		if errors.As(err, &ce) {
			return tx, &TxError{Stage: StageSimulate, Reason: ce.Reason, Err: err}
		}
		return tx, err
	}
	// The claim is mined: a failed sweep is retried by SweepPending, the
	// claimed funds wait in the contract for the receiver meanwhile.
	b.markUnswept(receiver, token, true)
	if err := b.Sweep(ctx, receiver, token); err == nil {
		b.markUnswept(receiver, token, false)
	}
	return tx, nil
}

func (b *FacilitatorBackend) markUnswept(receiver, token common.Address, on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.unswept == nil {
		b.unswept = map[[2]common.Address]bool{}
	}
	if on {
		b.unswept[[2]common.Address{receiver, token}] = true
	} else {
		delete(b.unswept, [2]common.Address{receiver, token})
	}
}

// SweepPending sweeps the receivers whose claimed funds a sweep has not
// moved yet (see Sweeper).
func (b *FacilitatorBackend) SweepPending(ctx context.Context) error {
	b.mu.Lock()
	pairs := make([][2]common.Address, 0, len(b.unswept))
	for k := range b.unswept {
		pairs = append(pairs, k)
	}
	b.mu.Unlock()
	var errs []error
	for _, k := range pairs {
		if err := b.Sweep(ctx, k[0], k[1]); err != nil {
			errs = append(errs, err)
			continue
		}
		b.markUnswept(k[0], k[1], false)
	}
	return errors.Join(errs...)
}

// Sweep sends settle(receiver, token) through the facilitator; nothing to
// settle is no error.
func (b *FacilitatorBackend) Sweep(ctx context.Context, receiver, token common.Address) error {
	if err := b.available(ctx); err != nil {
		return err
	}
	_, _, err := b.settle(ctx, b.minimalRequirement(receiver, token),
		map[string]any{"type": "settle", "receiver": receiver.Hex(), "token": token.Hex()})
	var ce *channel.Error
	if errors.As(err, &ce) && ce.Reason == reasonNothingToSettle {
		return nil
	}
	return err
}

// Refund sends the spec's enriched refund payload: the client's
// zero-charge voucher, the resolved amount, the refund nonce and the
// channel's claim row (signatures only when farebox holds the key).
func (b *FacilitatorBackend) Refund(ctx context.Context, op RefundOp) (common.Hash, error) {
	st := op.State
	rows := channel.Claims([]*channel.State{st})
	nonce := st.RefundNonce
	if nonce == nil {
		nonce = new(big.Int)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(op.Payload.Raw, &raw); err != nil {
		return common.Hash{}, &channel.Error{Reason: channel.ReasonRefundPayload, Message: "no refund payload to forward"}
	}
	payload := map[string]any{"type": channel.TypeRefund, "channelConfig": st.Config, "voucher": raw["voucher"],
		"amount": op.Amount.String(), "refundNonce": nonce.String(), "claims": claimRows(rows)}
	if b.Key != nil {
		sig, err := signDigest(b.Contracts.RefundDigest(st.ChannelID, nonce, op.Amount), b.Key)
		if err != nil {
			return common.Hash{}, err
		}
		payload["refundAuthorizerSignature"] = sig
		if len(rows) > 0 {
			csig, err := b.claimSignature(rows)
			if err != nil {
				return common.Hash{}, err
			}
			payload["claimAuthorizerSignature"] = csig
		}
	}
	tx, _, err := b.settle(ctx, op.Accepted, payload)
	if err == nil && len(rows) > 0 {
		// The reference refund claims without sweeping: the claimer sweeps.
		b.markUnswept(st.Config.Receiver, st.Config.Token, true)
	}
	return tx, err
}

// Await polls Receipts for tx's receipt until ctx ends.
func (b *FacilitatorBackend) Await(ctx context.Context, tx common.Hash) error {
	if tx == (common.Hash{}) {
		return &TxError{Stage: StageWait, Err: errors.New("the facilitator never named a transaction")}
	}
	if b.Receipts == nil {
		return &TxError{Stage: StageWait, Tx: tx, Err: errors.New("no receipt reader")}
	}
	poll := b.AwaitPoll
	if poll == 0 {
		poll = 500 * time.Millisecond
	}
	for {
		r, err := b.Receipts.TransactionReceipt(ctx, tx)
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return &TxError{Stage: StageMined, Tx: tx, Err: errors.New("reverted")}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return &TxError{Stage: StageWait, Tx: tx, Err: ctx.Err()}
		case <-time.After(poll):
		}
	}
}

// verifyAnswer is /verify's answer with batch-settlement's channel snapshot.
type verifyAnswer struct {
	IsValid        *bool  `json:"isValid"`
	InvalidReason  string `json:"invalidReason"`
	InvalidMessage string `json:"invalidMessage"`
	Extra          struct {
		Balance             string          `json:"balance"`
		TotalClaimed        string          `json:"totalClaimed"`
		WithdrawRequestedAt json.RawMessage `json:"withdrawRequestedAt"`
		RefundNonce         string          `json:"refundNonce"`
	} `json:"extra"`
}

// VerifyRemote asks the facilitator's /verify about the client's payload
// (the spec: always for deposits and refunds, and for EIP-1271 vouchers)
// and returns the on-chain snapshot it answered with. An answer without
// totalClaimed is refused (the spec's baseline needs it).
func (b *FacilitatorBackend) VerifyRemote(ctx context.Context, p *channel.Payload, accepted json.RawMessage) (channel.Onchain, error) {
	unavailable := &channel.Error{Reason: channel.ReasonChannelStateReadFailed, Message: "the facilitator could not verify the payload"}
	body, err := json.Marshal(envelope{X402Version: 2, Requirements: accepted,
		Payload: paymentPayload{X402Version: 2, Accepted: accepted, Payload: p.Raw}})
	if err != nil || len(p.Raw) == 0 {
		return channel.Onchain{}, unavailable
	}
	if b.Available != nil {
		if err := b.Available(ctx); err != nil {
			return channel.Onchain{}, err
		}
	}
	status, raw, err := b.Facilitator.Exchange(ctx, "verify", body)
	if err != nil || status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout {
		// Nothing is wrong with the payload: the client is told to retry
		// it (a 503), not to sign another one.
		return channel.Onchain{}, unreachable(status, err)
	}
	var a verifyAnswer
	if json.Unmarshal(raw, &a) != nil || a.IsValid == nil {
		return channel.Onchain{}, unavailable
	}
	if !*a.IsValid {
		return channel.Onchain{}, &channel.Error{Reason: a.InvalidReason, Message: "the facilitator refused: " + firstNonEmpty(a.InvalidMessage, a.InvalidReason)}
	}
	o := channel.Onchain{Balance: new(big.Int), TotalClaimed: new(big.Int), RefundNonce: new(big.Int)}
	_, ok1 := o.Balance.SetString(a.Extra.Balance, 10)
	_, ok2 := o.TotalClaimed.SetString(a.Extra.TotalClaimed, 10)
	if _, ok := o.RefundNonce.SetString(a.Extra.RefundNonce, 10); !ok {
		o.RefundNonce.SetInt64(0)
	}
	var at json.Number
	if json.Unmarshal(a.Extra.WithdrawRequestedAt, &at) == nil {
		if n, err := at.Int64(); err == nil && n > 0 {
			o.WithdrawRequestedAt = uint64(n)
		}
	}
	if !ok1 || !ok2 {
		return channel.Onchain{}, unavailable
	}
	return o, nil
}

// available is a StageSend *TxError (nothing sent) while the facilitator
// is seen down, so a claim or sweep waits for it rather than for its
// client's timeout.
func (b *FacilitatorBackend) available(ctx context.Context) error {
	if b.Available == nil {
		return nil
	}
	if err := b.Available(ctx); err != nil {
		return &TxError{Stage: StageSend, Err: err}
	}
	return nil
}

// unreachable is the refusal of a payment the facilitator could not be
// asked about (no answer, or a proxy's 502, 503 or 504): an
// x402.ReasonUnexpectedVerifyError, which the server answers 503 with
// Retry-After.
func unreachable(status int, err error) error {
	if err == nil {
		err = fmt.Errorf("HTTP %d", status)
	}
	return fmt.Errorf("facilitator verify: %w: %w", err, &x402.Error{Reason: x402.ReasonUnexpectedVerifyError,
		Message: "The facilitator that settles payments cannot be reached; try again shortly."})
}
