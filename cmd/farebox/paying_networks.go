package main

// Which of a seller's networks the paying commands trust, and how seller
// text is printed: nothing a seller sends is taken as terms or as text.

import (
	"context"
	"fmt"
	"io"
	"math/big"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// devChainID is the chain id of `farebox dev`'s in-process chain, whose
// token (the dev test dollars, 6 decimals) is deployed afresh by each dev
// chain, so its address can only come from the seller.
const devChainID = 1337

// tokenChain is what trustedNetworks reads from the chain at --rpc-url.
type tokenChain interface {
	ethereum.ContractCaller
	CodeAt(ctx context.Context, account common.Address, blockNumber *big.Int) ([]byte, error)
	ChainID(ctx context.Context) (*big.Int, error)
}

// trustedNetworks picks, among the networks a seller offers, those the
// payer may pay on, with every built-in one (Base, Base Sepolia):
//   - a built-in network keeps its USDC: a seller naming another token on
//     it is ignored, unless the chain at --rpc-url has that id and no code
//     at the built-in USDC (a local rehearsal chain, not the real one) and
//     the token's decimals and EIP-712 domain read there;
//   - the dev chain's token is farebox dev's test dollars (6 decimals),
//     checked on chain when --rpc-url is that chain;
//   - any other token is paid only when --rpc-url is its chain and its
//     decimals and EIP-712 domain (name, version) read there match the
//     offer: every limit is then converted to its units.
//
// warn is told about every offer that is not trusted, and why.
func trustedNetworks(ctx context.Context, offers []x402.Offer, chain tokenChain, warn io.Writer) (*x402.Registry, []payer.Option, error) {
	builtin := x402.DefaultRegistry()
	var nets []*x402.Network
	var opts []payer.Option
	taken := map[string]bool{}
	var chainID *big.Int
	if chain != nil {
		id, err := chain.ChainID(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("--rpc-url: reading the chain id: %w", err)
		}
		chainID = id
	}
	for _, o := range offers {
		var id int64
		if _, err := fmt.Sscanf(o.Network, "eip155:%d", &id); err != nil || o.Network != fmt.Sprintf("eip155:%d", id) ||
			!common.IsHexAddress(o.Asset) || taken[o.Network] {
			continue
		}
		asset := common.HexToAddress(o.Asset)
		b := builtin.ByCAIP2(o.Network)
		if b != nil && b.Asset == asset {
			continue // the built-in network, as it is
		}
		onChain := chainID != nil && chainID.Int64() == id && chainID.IsInt64()
		why := ""
		switch {
		case b != nil && !onChain:
			why = fmt.Sprintf("%s is a built-in network whose token is %s; a seller cannot redefine it", o.Network, b.Asset.Hex())
		case b != nil && hasCode(ctx, chain, b.Asset):
			why = fmt.Sprintf("%s is a built-in network whose token is %s (the chain at --rpc-url has it); a seller cannot redefine it", o.Network, b.Asset.Hex())
		case id == devChainID && !onChain:
			nets, taken[o.Network] = append(nets, x402.NewNetwork(o.Network, "", big.NewInt(id), asset, o.ExtraName, o.ExtraVersion)), true
			continue
		case !onChain:
			why = fmt.Sprintf("the decimals and EIP-712 domain of token %s on %s are unknown: pass --rpc-url with that chain's JSON-RPC to read them", o.Asset, o.Network)
		}
		if why == "" {
			dec, err := readToken(ctx, chain, asset, o.ExtraName, o.ExtraVersion)
			if err != nil {
				why = fmt.Sprintf("token %s on %s: %v", o.Asset, o.Network, err)
			} else {
				nets, taken[o.Network] = append(nets, x402.NewNetwork(o.Network, "", big.NewInt(id), asset, o.ExtraName, o.ExtraVersion)), true
				opts = append(opts, payer.WithTokenDecimals(o.Network, asset, dec))
				continue
			}
		}
		fmt.Fprintf(warn, "farebox: not paying on %s: %s\n", sellerText(o.Network), sellerText(why))
		taken[o.Network] = true // warned once
	}
	for _, n := range builtin.Networks() {
		if !hasNetwork(nets, n.CAIP2) {
			nets = append(nets, n)
		}
	}
	reg, err := x402.NewRegistry(nets...)
	return reg, opts, err
}

// hasNetwork reports whether nets holds caip2.
func hasNetwork(nets []*x402.Network, caip2 string) bool {
	for _, n := range nets {
		if n.CAIP2 == caip2 {
			return true
		}
	}
	return false
}

// hasCode reports whether addr is a contract on chain.
func hasCode(ctx context.Context, chain tokenChain, addr common.Address) bool {
	code, err := chain.CodeAt(ctx, addr, nil)
	return err != nil || len(code) > 0 // unreadable: assume the real network
}

var (
	abiString, _ = abi.NewType("string", "", nil)
	abiUint8, _  = abi.NewType("uint8", "", nil)
)

// readToken reads a token's decimals and checks its EIP-712 domain (name
// and version) against what the seller said.
func readToken(ctx context.Context, chain tokenChain, token common.Address, name, version string) (uint8, error) {
	call := func(selector string, t abi.Type) (any, error) {
		out, err := chain.CallContract(ctx, ethereum.CallMsg{To: &token, Data: common.FromHex(selector)}, nil)
		if err != nil {
			return nil, err
		}
		v, err := abi.Arguments{{Type: t}}.Unpack(out)
		if err != nil || len(v) != 1 {
			return nil, fmt.Errorf("unreadable answer")
		}
		return v[0], nil
	}
	d, err := call("0x313ce567", abiUint8) // decimals()
	if err != nil {
		return 0, fmt.Errorf("reading decimals(): %w", err)
	}
	n, err := call("0x06fdde03", abiString) // name()
	if err != nil || n != name {
		return 0, fmt.Errorf("its EIP-712 name is not the offered %q", name)
	}
	v, err := call("0x54fd4d50", abiString) // version()
	if err != nil || v != version {
		return 0, fmt.Errorf("its EIP-712 version is not the offered %q", version)
	}
	return d.(uint8), nil
}

// sellerText is payer.SellerText: text a seller sent, made safe to print.
var sellerText = payer.SellerText
