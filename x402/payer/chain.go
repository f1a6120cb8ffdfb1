package payer

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
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
	if t.chain == nil || p.req == nil || p.req.Network == nil {
		return false
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
