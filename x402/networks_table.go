package x402

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// KnownNetwork is one EVM network of x402's own table: the token x402's
// official clients pay with there by default and the EIP-712 domain they
// sign for it.
type KnownNetwork struct {
	CAIP2   string
	V1Name  string // x402's v1 name; "" when x402 has none
	Alias   string // farebox's config name when x402 has no v1 name; never sent on the wire
	Label   string // what people call the chain
	ChainID int64
	Asset   string
	Name    string // EIP-712 domain name
	Version string // EIP-712 domain version
	Symbol  string
	// Decimals of the token: farebox prices in 6-decimal units.
	Decimals int
	// TransferMethod is "permit2" for a token without EIP-3009, which
	// farebox's schemes do not pay with; "" for EIP-3009 tokens.
	TransferMethod string
	Testnet        bool
}

// Payable reports whether farebox's schemes can take payments in the
// network's token: EIP-3009 transferWithAuthorization on a 6-decimal token.
func (k KnownNetwork) Payable() bool { return k.TransferMethod == "" && k.Decimals == 6 }

// knownNetworks is @x402/evm 2.27.0's table, by hand from its
// dist/esm (src/defaultAssets.ts DEFAULT_ASSETS, the default asset of each
// network, and src/constants.ts EVM_NETWORK_CHAIN_ID_MAP, the v1 names),
// in the package's order. TestKnownNetworksMatchX402Evm compares every
// entry with what scripts/x402-networks.mjs reads from the installed
// package. Label, Alias and Testnet are farebox's.
var knownNetworks = []KnownNetwork{
	{CAIP2: "eip155:8453", V1Name: "base", Label: "Base", ChainID: 8453, Asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", Name: "USD Coin", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:84532", V1Name: "base-sepolia", Label: "Base Sepolia", ChainID: 84532, Asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", Name: "USDC", Version: "2", Symbol: "USDC", Decimals: 6, Testnet: true},
	{CAIP2: "eip155:1", V1Name: "ethereum", Label: "Ethereum", ChainID: 1, Asset: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", Name: "USD Coin", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:43114", V1Name: "avalanche", Label: "Avalanche C-Chain", ChainID: 43114, Asset: "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", Name: "USD Coin", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:4326", V1Name: "megaeth", Label: "MegaETH", ChainID: 4326, Asset: "0xFAfDdbb3FC7688494971a79cc65DCa3EF82079E7", Name: "MegaUSD", Version: "1", Symbol: "MegaUSD", Decimals: 18, TransferMethod: "permit2"},
	{CAIP2: "eip155:143", V1Name: "monad", Label: "Monad", ChainID: 143, Asset: "0x754704Bc059F8C67012fEd69BC8A327a5aafb603", Name: "USDC", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:988", V1Name: "stable", Label: "Stable", ChainID: 988, Asset: "0x779Ded0c9e1022225f8E0630b35a9b54bE713736", Name: "USDT0", Version: "1", Symbol: "USDT0", Decimals: 6},
	{CAIP2: "eip155:2201", V1Name: "stable-testnet", Label: "Stable testnet", ChainID: 2201, Asset: "0x78Cf24370174180738C5B8E352B6D14c83a6c9A9", Name: "USDT0", Version: "1", Symbol: "USDT0", Decimals: 6, Testnet: true},
	{CAIP2: "eip155:137", V1Name: "polygon", Label: "Polygon", ChainID: 137, Asset: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", Name: "USD Coin", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:42161", Alias: "arbitrum", Label: "Arbitrum One", ChainID: 42161, Asset: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", Name: "USD Coin", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:421614", Alias: "arbitrum-sepolia", Label: "Arbitrum Sepolia", ChainID: 421614, Asset: "0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d", Name: "USD Coin", Version: "2", Symbol: "USDC", Decimals: 6, Testnet: true},
	{CAIP2: "eip155:31612", Alias: "mezo", Label: "Mezo", ChainID: 31612, Asset: "0xdD468A1DDc392dcdbEf6db6e34E89AA338F9F186", Name: "Mezo USD", Version: "1", Symbol: "mUSD", Decimals: 18, TransferMethod: "permit2"},
	{CAIP2: "eip155:31611", Alias: "mezo-testnet", Label: "Mezo testnet", ChainID: 31611, Asset: "0x118917a40FAF1CD7a13dB0Ef56C86De7973Ac503", Name: "Mezo USD", Version: "1", Symbol: "mUSD", Decimals: 18, TransferMethod: "permit2", Testnet: true},
	{CAIP2: "eip155:723487", Alias: "radius", Label: "Radius", ChainID: 723487, Asset: "0x33ad9e4BD16B69B5BFdED37D8B5D9fF9aba014Fb", Name: "Stable Coin", Version: "1", Symbol: "SBC", Decimals: 6, TransferMethod: "permit2"},
	{CAIP2: "eip155:72344", Alias: "radius-testnet", Label: "Radius testnet", ChainID: 72344, Asset: "0x33ad9e4BD16B69B5BFdED37D8B5D9fF9aba014Fb", Name: "Stable Coin", Version: "1", Symbol: "SBC", Decimals: 6, TransferMethod: "permit2", Testnet: true},
	{CAIP2: "eip155:36900", Alias: "adi", Label: "ADI Chain", ChainID: 36900, Asset: "0x9cb8142aEBBcdc60AF7c97Af897A67A8f3CA71C2", Name: "USDC.e", Version: "2", Symbol: "USDC.e", Decimals: 6},
	{CAIP2: "eip155:190415", Alias: "hpp", Label: "HPP", ChainID: 190415, Asset: "0x401eCb1D350407f13ba348573E5630B83638E30D", Name: "Bridged USDC", Version: "2", Symbol: "USDC.e", Decimals: 6},
	{CAIP2: "eip155:181228", Alias: "hpp-sepolia", Label: "HPP Sepolia", ChainID: 181228, Asset: "0x401eCb1D350407f13ba348573E5630B83638E30D", Name: "Bridged USDC", Version: "2", Symbol: "USDC.e", Decimals: 6, Testnet: true},
	{CAIP2: "eip155:50", Alias: "xdc", Label: "XDC Network", ChainID: 50, Asset: "0xfA2958CB79b0491CC627c1557F441eF849Ca8eb1", Name: "USDC", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:51", Alias: "xdc-apothem", Label: "XDC Apothem", ChainID: 51, Asset: "0xb5AB69F7bBada22B28e79C8FFAECe55eF1c771D4", Name: "USDC", Version: "2", Symbol: "USDC", Decimals: 6, Testnet: true},
	{CAIP2: "eip155:38833", Alias: "igra", Label: "Igra", ChainID: 38833, Asset: "0xA5b8BF902b2844dA17d4506cc827F7F1681735E7", Name: "USDC", Version: "1", Symbol: "USDC", Decimals: 6, TransferMethod: "permit2"},
	{CAIP2: "eip155:14", V1Name: "flare", Label: "Flare", ChainID: 14, Asset: "0xe7cd86e13AC4309349F30B3435a9d337750fC82D", Name: "USD\u20ae0", Version: "1", Symbol: "USDT0", Decimals: 6},
	{CAIP2: "eip155:42220", V1Name: "celo", Label: "Celo", ChainID: 42220, Asset: "0xcebA9300f2b948710d2653dD7B07f33A8B32118C", Name: "USDC", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:11142220", Alias: "celo-sepolia", Label: "Celo Sepolia", ChainID: 11142220, Asset: "0x01C5C0122039549AD1493B8220cABEdD739BC44E", Name: "USDC", Version: "2", Symbol: "USDC", Decimals: 6, Testnet: true},
	{CAIP2: "eip155:1329", V1Name: "sei", Label: "Sei", ChainID: 1329, Asset: "0xe15fC38F6D8c56aF07bbCBe3BAf5708A2Bf42392", Name: "USDC", Version: "2", Symbol: "USDC", Decimals: 6},
	{CAIP2: "eip155:1328", V1Name: "sei-testnet", Label: "Sei testnet", ChainID: 1328, Asset: "0x4fCF1784B31630811181f670Aea7A7bEF803eaED", Name: "USDC", Version: "2", Symbol: "USDC", Decimals: 6, Testnet: true},
}

// KnownNetworks lists x402's EVM networks, payable by farebox or not.
func KnownNetworks() []KnownNetwork { return append([]KnownNetwork(nil), knownNetworks...) }

// FindKnown finds one of x402's EVM networks by CAIP-2 id, v1 name or
// farebox alias.
func FindKnown(name string) (KnownNetwork, bool) {
	for _, k := range knownNetworks {
		if name == k.CAIP2 || name != "" && (name == k.V1Name || name == k.Alias) {
			return k, true
		}
	}
	return KnownNetwork{}, false
}

// IsTestnet reports whether the network named (CAIP-2 id, v1 name or
// alias) is a known testnet: false for mainnets and for networks x402 does
// not know (a custom dev chain is the operator's to judge).
func IsTestnet(name string) bool {
	k, ok := FindKnown(name)
	return ok && k.Testnet
}

// IsMainnet reports whether the network named is one of x402's mainnets.
func IsMainnet(name string) bool {
	k, ok := FindKnown(name)
	return ok && !k.Testnet
}

func (k KnownNetwork) network() *Network {
	return NewNetwork(k.CAIP2, k.V1Name, big.NewInt(k.ChainID), common.HexToAddress(k.Asset), k.Name, k.Version)
}

// builtinNetworks is every payable known network, built once; Base and
// Base Sepolia are the same values as the package variables.
var builtinNetworks = func() []*Network {
	var out []*Network
	for _, k := range knownNetworks {
		if !k.Payable() {
			continue
		}
		switch k.CAIP2 {
		case Base.CAIP2:
			out = append(out, Base)
		case BaseSepolia.CAIP2:
			out = append(out, BaseSepolia)
		default:
			out = append(out, k.network())
		}
	}
	return out
}()
