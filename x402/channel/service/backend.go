package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/settle"
)

// Backend performs the service's on-chain operations: farebox's own
// relayer as receiver authorizer (RelayerBackend), or a remote facilitator
// the receiver authorization is delegated to (FacilitatorBackend). Every
// operation sends and waits for its transaction; a failure is a *TxError
// saying how far it got, so the service knows whether the chain must be
// read again.
type Backend interface {
	// ReceiverAuthorizer is the channels' receiverAuthorizer.
	ReceiverAuthorizer() common.Address
	// Deposit sends op's deposit and waits until it is mined. journal is
	// called before the broadcast with its hash, or with the zero hash when
	// the backend learns the hash only from the answer.
	Deposit(ctx context.Context, op DepositOp, journal func(common.Hash) error) (common.Hash, error)
	// Claim claims the rows (one receiver, token and receiver authorizer)
	// and sweeps the receiver's claimed funds; journal as Deposit's.
	Claim(ctx context.Context, rows []channel.Claim, receiver, token common.Address, journal func(common.Hash) error) (common.Hash, error)
	// Refund claims the channel's unclaimed charges and refunds op.Amount.
	Refund(ctx context.Context, op RefundOp) (common.Hash, error)
	// Await waits for a transaction an earlier process journaled: nil when
	// it was mined and succeeded.
	Await(ctx context.Context, tx common.Hash) error
}

// RemoteVerifier is a Backend that also verifies payloads itself (a
// facilitator's /verify): the service asks it about deposits, refunds and
// EIP-1271 vouchers, as the spec orders a server that delegates.
type RemoteVerifier interface {
	// VerifyRemote verifies p against accepted (the offered requirement)
	// and returns the channel's on-chain fields as the verifier read them.
	VerifyRemote(ctx context.Context, p *channel.Payload, accepted json.RawMessage) (channel.Onchain, error)
}

// Sweeper is a Backend whose sweeps can lag its claims (a facilitator's
// claim and settle are two transactions, its refunds claim without
// sweeping): the claimer calls SweepPending every round.
type Sweeper interface {
	SweepPending(ctx context.Context) error
}

// DepositOp is one deposit to send.
type DepositOp struct {
	Payload     *channel.Payload
	Requirement *x402.Requirement
	// Accepted is the batch-settlement requirement as offered (channel.Accept).
	Accepted json.RawMessage
	// Collector is the EIP-2612 collector data of a sponsored Permit2
	// deposit, else nil.
	Collector []byte
}

// RefundOp is one cooperative refund to send.
type RefundOp struct {
	Payload     *channel.Payload
	Requirement *x402.Requirement
	Accepted    json.RawMessage
	State       *channel.State
	Amount      *big.Int
}

// Stages of a failed Backend operation.
const (
	// StageSimulate: it would revert; nothing was sent.
	StageSimulate = "simulate"
	// StageSend: it could not be sent; nothing was broadcast.
	StageSend = "send"
	// StageMined: it was mined and reverted.
	StageMined = "mined"
	// StageWait: it was (or may have been) broadcast, outcome unknown.
	StageWait = "wait"
)

// TxError is a Backend operation that failed at Stage; Tx is its
// transaction when known.
type TxError struct {
	Stage  string
	Tx     common.Hash
	Reason string // the facilitator's reason code, when a facilitator refused
	Err    error
}

func (e *TxError) Error() string {
	return fmt.Sprintf("channel backend: %s (tx %s): %v", e.Stage, e.Tx.Hex(), e.Err)
}

// Unwrap returns the cause.
func (e *TxError) Unwrap() error { return e.Err }

// stage is err's stage (StageWait for an error that is not a *TxError:
// the safe assumption).
func stage(err error) (string, common.Hash) {
	var te *TxError
	if errors.As(err, &te) {
		return te.Stage, te.Tx
	}
	return StageWait, common.Hash{}
}

// RelayerBackend sends from farebox's own relayer, which is the channels'
// receiver authorizer: direct claim and refund calls, no signatures.
type RelayerBackend struct {
	Contracts *channel.Contracts
	Relayer   Relayer
}

var _ Backend = (*RelayerBackend)(nil)

// ReceiverAuthorizer is the relayer's address.
func (b *RelayerBackend) ReceiverAuthorizer() common.Address { return b.Relayer.Relayer() }

// send simulates, journals, sends and awaits one call to the settlement contract.
func (b *RelayerBackend) send(ctx context.Context, data []byte, journal func(common.Hash) error) (common.Hash, error) {
	tx, err := b.Relayer.Call(ctx, b.Contracts.Settlement, data, journal)
	if err != nil {
		if errors.Is(err, settle.ErrCallReverted) {
			return common.Hash{}, &TxError{Stage: StageSimulate, Err: err}
		}
		return common.Hash{}, &TxError{Stage: StageSend, Err: err}
	}
	return tx, b.Await(ctx, tx)
}

// Deposit sends deposit(config, amount, collector, data).
func (b *RelayerBackend) Deposit(ctx context.Context, op DepositOp, journal func(common.Hash) error) (common.Hash, error) {
	data, err := b.Contracts.DepositCalldata(op.Payload, op.Collector)
	if err != nil {
		return common.Hash{}, err
	}
	return b.send(ctx, data, journal)
}

// Claim sends claim(rows) and settle(receiver, token) in one multicall.
func (b *RelayerBackend) Claim(ctx context.Context, rows []channel.Claim, receiver, token common.Address, journal func(common.Hash) error) (common.Hash, error) {
	return b.send(ctx, channel.ClaimAndSettleCalldata(rows, receiver, token), journal)
}

// Refund sends claim (when the channel has unclaimed charges), refund and
// settle in one multicall.
func (b *RelayerBackend) Refund(ctx context.Context, op RefundOp) (common.Hash, error) {
	st := op.State
	calls := [][]byte{}
	if rows := channel.Claims([]*channel.State{st}); len(rows) > 0 {
		calls = append(calls, channel.ClaimCalldata(rows))
	}
	calls = append(calls, channel.RefundCalldata(st.Config, op.Amount))
	if len(calls) > 1 {
		calls = append(calls, channel.SettleCalldata(st.Config.Receiver, st.Config.Token))
	}
	return b.send(ctx, channel.MulticallCalldata(calls), nil)
}

// Await waits for the relayer's transaction.
func (b *RelayerBackend) Await(ctx context.Context, tx common.Hash) error {
	if _, err := b.Relayer.AwaitCall(ctx, tx); err != nil {
		if errors.Is(err, settle.ErrCallReverted) {
			return &TxError{Stage: StageMined, Tx: tx, Err: err}
		}
		return &TxError{Stage: StageWait, Tx: tx, Err: err}
	}
	return nil
}
