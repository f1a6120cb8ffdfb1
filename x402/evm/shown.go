package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// BalanceShowing reads who's token balance at the latest block and, in the
// same chain state, whether each of nonces (EIP-3009 authorizations of
// who's on that token) is used there: a used authorization moved whatever
// it moves before that balance, or never will. One Multicall3 call reads
// them all, so they are one state even behind a load-balanced node;
// without Multicall3 each is read at the latest block's number, read
// first, so they are one state too.
func (s *Settler) BalanceShowing(ctx context.Context, req *x402.Requirement, who common.Address, nonces [][32]byte) (*big.Int, []bool, error) {
	asset := req.Network.Asset
	calls := make([]call3, 0, len(nonces)+1)
	for _, n := range nonces {
		calls = append(calls, call3{Target: asset, CallData: tokenCall("authorizationState", who, n)})
	}
	calls = append(calls, call3{Target: asset, CallData: tokenCall("balanceOf", who)})
	out, err := s.backend.CallContract(ctx, ethereum.CallMsg{To: &Multicall3, Data: tryAggregateCalldata(true, calls)}, nil)
	if err == nil {
		if bal, used, err := shownResults(out, len(nonces)); err == nil {
			return bal, used, nil
		}
	}
	// Without Multicall3 every read names the same block: the latest one's
	// number, read first.
	head, err := s.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("evm: reading the latest block: %w", err)
	}
	at := head.Number
	used := make([]bool, len(nonces))
	for i, n := range nonces {
		out, err := s.backend.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tokenCall("authorizationState", who, n)}, at)
		if err == nil {
			used[i], err = tokenResult[bool]("authorizationState", out)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("evm: reading authorizationState on %s at block %s: %w", asset, at, err)
		}
	}
	out, err = s.backend.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tokenCall("balanceOf", who)}, at)
	if err != nil {
		return nil, nil, fmt.Errorf("evm: reading balanceOf on %s at block %s: %w", asset, at, err)
	}
	bal, err := tokenResult[*big.Int]("balanceOf", out)
	if err != nil {
		return nil, nil, fmt.Errorf("evm: decoding balanceOf on %s: %w", asset, err)
	}
	return bal, used, nil
}

// shownResults decodes BalanceShowing's tryAggregate answer: n
// authorizationState results, then balanceOf.
func shownResults(out []byte, n int) (*big.Int, []bool, error) {
	res, err := unpackTryAggregate(out)
	if err != nil {
		return nil, nil, err
	}
	if len(res) != n+1 {
		return nil, nil, errors.New("evm: Multicall3 answered another number of calls")
	}
	used := make([]bool, n)
	for i := range n {
		if used[i], err = tokenResult[bool]("authorizationState", res[i].ReturnData); err != nil {
			return nil, nil, err
		}
	}
	bal, err := tokenResult[*big.Int]("balanceOf", res[n].ReturnData)
	if err != nil {
		return nil, nil, err
	}
	return bal, used, nil
}
