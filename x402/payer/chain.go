package payer

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// ChainReader is what the transport reads from a chain to prove that an
// authorization will never move money: an *ethclient.Client satisfies it.
type ChainReader interface {
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// WithChain lets the transport read the token on chain: an authorization
// that is past its validBefore at the latest block and still unused there
// can never be settled, so a retry of its request may pay anew. Without a
// chain, an expired authorization whose outcome is unknown is never
// replaced (the retry fails with ErrOutcomeUnknown).
func WithChain(c ChainReader) Option { return func(t *Transport) { t.chain = c } }

// authorizationStateSelector is EIP-3009's authorizationState(address,bytes32).
var authorizationStateSelector = []byte{0xe9, 0x4a, 0x01, 0x02}

// provablyUnsettled reports whether p's authorization has expired on chain
// without being used: then nothing can ever settle it.
func (t *Transport) provablyUnsettled(ctx context.Context, p *purchase) bool {
	if p.batch != nil {
		return true // a new payment is built from the channel record, which keeps any pending deposit
	}
	if t.chain == nil || p.req == nil || p.req.Network == nil {
		return false
	}
	if p.upto != nil {
		return t.uptoUnsettled(ctx, p)
	}
	head, err := t.chain.HeaderByNumber(ctx, nil)
	if err != nil || head.Time < p.payment.Authorization.ValidBefore.Uint64() {
		return false // still valid on chain (or unknown): it could still be settled
	}
	a := &p.payment.Authorization
	data := append(append(append([]byte{}, authorizationStateSelector...), common.LeftPadBytes(a.From.Bytes(), 32)...), a.Nonce[:]...)
	token := p.req.Network.Asset
	out, err := t.chain.CallContract(ctx, ethereum.CallMsg{To: &token, Data: data}, head.Number)
	if err != nil || len(out) != 32 {
		return false
	}
	return new(big.Int).SetBytes(out).Sign() == 0
}

// chainCaller adapts a ChainReader to ethereum.ContractCaller (the channel
// package's reads only call contracts).
type chainCaller struct{ ChainReader }

// CodeAt is never needed by the channel reads.
func (chainCaller) CodeAt(context.Context, common.Address, *big.Int) ([]byte, error) {
	return nil, errors.New("payer: CodeAt is not available")
}

// call32 is a view call returning one word, at the latest block.
func call32(ctx context.Context, c ChainReader, to common.Address, data []byte) (*big.Int, bool) {
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil || len(out) < 32 {
		return nil, false
	}
	return new(big.Int).SetBytes(out[:32]), true
}

func word(v *big.Int) []byte { return common.LeftPadBytes(v.Bytes(), 32) }

// authorizationUsed reads EIP-3009 authorizationState(from, nonce).
func authorizationUsed(ctx context.Context, c ChainReader, token, from common.Address, nonce [32]byte) (used, known bool) {
	v, ok := call32(ctx, c, token, append(append(append([]byte{}, authorizationStateSelector...), common.LeftPadBytes(from.Bytes(), 32)...), nonce[:]...))
	if !ok {
		return false, false
	}
	return v.Sign() != 0, true
}

// permit2NonceUsed reads Permit2's nonceBitmap(owner, nonce >> 8) and
// tests the nonce's bit (Permit2's unordered nonces).
func permit2NonceUsed(ctx context.Context, c ChainReader, permit2, owner common.Address, nonce *big.Int) (used, known bool) {
	data := append(append(crypto.Keccak256([]byte("nonceBitmap(address,uint256)"))[:4], common.LeftPadBytes(owner.Bytes(), 32)...),
		word(new(big.Int).Rsh(nonce, 8))...)
	v, ok := call32(ctx, c, permit2, data)
	if !ok {
		return false, false
	}
	return v.Bit(int(new(big.Int).And(nonce, big.NewInt(0xff)).Int64())) == 1, true
}

// allowance reads ERC-20 allowance(owner, spender).
func allowance(ctx context.Context, c ChainReader, token, owner, spender common.Address) (*big.Int, bool) {
	return call32(ctx, c, token, append(append(crypto.Keccak256([]byte("allowance(address,address)"))[:4],
		common.LeftPadBytes(owner.Bytes(), 32)...), common.LeftPadBytes(spender.Bytes(), 32)...))
}

// permitNonce reads EIP-2612 nonces(owner).
func permitNonce(ctx context.Context, c ChainReader, token, owner common.Address) (*big.Int, bool) {
	return call32(ctx, c, token, append(crypto.Keccak256([]byte("nonces(address)"))[:4], common.LeftPadBytes(owner.Bytes(), 32)...))
}
