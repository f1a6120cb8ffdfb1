package x402

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Type hashes of EIP-712: computed once, they never change.
var (
	domainTypeHash   = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	transferTypeHash = crypto.Keccak256Hash([]byte("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
)

// Base is USDC on Base mainnet (docs/wire.md §6).
var Base = NewNetwork("eip155:8453", "base", big.NewInt(8453),
	common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"), "USD Coin", "2")

// BaseSepolia is USDC on the Base Sepolia testnet (docs/wire.md §6).
var BaseSepolia = NewNetwork("eip155:84532", "base-sepolia", big.NewInt(84532),
	common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), "USDC", "2")

// NewNetwork builds a Network and precomputes its EIP-712 domain separator,
// so that Digest costs two keccak rounds and no allocation. An empty caip2 is
// derived from the chain id ("eip155:<id>"); v1Name may be empty.
func NewNetwork(caip2, v1Name string, chainID *big.Int, asset common.Address, name, version string) *Network {
	if caip2 == "" && chainID != nil {
		caip2 = "eip155:" + chainID.String()
	}
	n := &Network{CAIP2: caip2, V1Name: v1Name, ChainID: new(big.Int).Set(chainID),
		Asset: asset, Name: name, Version: version}
	sep := n.domainSeparator()
	n.domain = &sep
	return n
}

// Validate reports whether the network is complete and self-consistent:
// chain id present and matching its CAIP-2 id, token and EIP-712 domain set.
func (n *Network) Validate() error {
	switch {
	case n == nil:
		return errors.New("x402: nil network")
	case n.ChainID == nil || n.ChainID.Sign() <= 0 || n.ChainID.BitLen() > 256:
		return fmt.Errorf("x402: network %q: chain id must be positive", n.CAIP2)
	case n.CAIP2 != "eip155:"+n.ChainID.String():
		return fmt.Errorf("x402: network %q does not match chain id %s (want eip155:%s)", n.CAIP2, n.ChainID, n.ChainID)
	case n.Asset == (common.Address{}):
		return fmt.Errorf("x402: network %q: token address is zero", n.CAIP2)
	case n.Name == "" || n.Version == "":
		return fmt.Errorf("x402: network %q: EIP-712 name and version are required", n.CAIP2)
	case strings.HasPrefix(n.V1Name, "eip155:"):
		return fmt.Errorf("x402: network %q: v1 name %q looks like a CAIP-2 id", n.CAIP2, n.V1Name)
	}
	return nil
}

// DomainSeparator is the EIP-712 domain separator of the token on this chain.
func (n *Network) DomainSeparator() [32]byte {
	if n.domain != nil {
		return *n.domain
	}
	return n.domainSeparator()
}

func (n *Network) domainSeparator() [32]byte {
	var buf [5 * 32]byte
	copy(buf[0:32], domainTypeHash[:])
	nameHash := crypto.Keccak256Hash([]byte(n.Name))
	versionHash := crypto.Keccak256Hash([]byte(n.Version))
	copy(buf[32:64], nameHash[:])
	copy(buf[64:96], versionHash[:])
	if n.ChainID != nil && n.ChainID.Sign() >= 0 && n.ChainID.BitLen() <= 256 {
		n.ChainID.FillBytes(buf[96:128])
	}
	copy(buf[128+12:160], n.Asset[:])
	return crypto.Keccak256Hash(buf[:])
}

// digester is a pooled keccak state plus the fixed buffers Digest writes its
// 32-byte words into, so the hot path allocates nothing.
type digester struct {
	k      crypto.KeccakState
	msg    [7 * 32]byte
	outer  [2 + 32 + 32]byte
	result [32]byte
	sig    [65]byte
}

var digesterPool = sync.Pool{New: func() any { return &digester{k: crypto.NewKeccakState()} }}

// Digest is the EIP-712 hash a payer signs for a TransferWithAuthorization
// of this network's token: keccak256(0x1901 || domainSeparator || structHash).
// Values wider than 256 bits (refused by DecodePayment) are hashed as zero.
func (n *Network) Digest(a *Authorization) [32]byte {
	d := digesterPool.Get().(*digester)
	m := d.msg[:]
	clear(m)
	copy(m[0:32], transferTypeHash[:])
	copy(m[32+12:64], a.From[:])
	copy(m[64+12:96], a.To[:])
	putWord(m[96:128], a.Value)
	putWord(m[128:160], a.ValidAfter)
	putWord(m[160:192], a.ValidBefore)
	copy(m[192:224], a.Nonce[:])

	d.outer[0], d.outer[1] = 0x19, 0x01
	if n.domain != nil {
		copy(d.outer[2:34], n.domain[:])
	} else {
		sep := n.domainSeparator()
		copy(d.outer[2:34], sep[:])
	}
	d.k.Reset()
	d.k.Write(m)
	d.k.Read(d.outer[34:66])
	d.k.Reset()
	d.k.Write(d.outer[:])
	d.k.Read(d.result[:])
	out := d.result
	digesterPool.Put(d)
	return out
}

// putWord writes v as a big-endian uint256 into w (32 bytes, already zeroed).
func putWord(w []byte, v *big.Int) {
	if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
		return
	}
	v.FillBytes(w)
}

// Registry resolves the network names clients send (CAIP-2 ids in v2, legacy
// names in v1) to Networks. Build it at startup; it is read-only afterwards
// and then safe for concurrent use.
type Registry struct {
	byCAIP2 map[string]*Network
	byV1    map[string]*Network
	list    []*Network
}

// NewRegistry builds a registry holding the given networks.
func NewRegistry(nets ...*Network) (*Registry, error) {
	r := &Registry{byCAIP2: map[string]*Network{}, byV1: map[string]*Network{}}
	for _, n := range nets {
		if err := r.Add(n); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// DefaultRegistry holds the built-in networks: every network of x402's
// EVM table whose token farebox's schemes pay with (KnownNetworks).
func DefaultRegistry() *Registry {
	r, _ := NewRegistry(builtinNetworks...)
	return r
}

// Add registers a network; its CAIP-2 id and v1 name must be new. A network
// built as a struct literal gets its domain separator precomputed here, so
// Add takes ownership: do not change the network afterwards.
func (r *Registry) Add(n *Network) error {
	if err := n.Validate(); err != nil {
		return err
	}
	if _, dup := r.byCAIP2[n.CAIP2]; dup {
		return fmt.Errorf("x402: network %q registered twice", n.CAIP2)
	}
	if n.V1Name != "" {
		if _, dup := r.byV1[n.V1Name]; dup {
			return fmt.Errorf("x402: v1 network name %q registered twice", n.V1Name)
		}
	}
	if n.domain == nil {
		sep := n.domainSeparator()
		n.domain = &sep
	}
	r.byCAIP2[n.CAIP2] = n
	if n.V1Name != "" {
		r.byV1[n.V1Name] = n
	}
	r.list = append(r.list, n)
	return nil
}

// ByCAIP2 finds a network by its CAIP-2 id ("eip155:8453"), or nil.
func (r *Registry) ByCAIP2(id string) *Network { return r.byCAIP2[id] }

// ByV1Name finds a network by its legacy v1 name ("base"), or nil.
func (r *Registry) ByV1Name(name string) *Network { return r.byV1[name] }

// ByName finds a network by the name an operator writes in the config: a
// CAIP-2 id, a v1 name, or farebox's alias of one of x402's networks that
// has no v1 name ("arbitrum"); nil when none is registered.
func (r *Registry) ByName(name string) *Network {
	if n := r.byCAIP2[name]; n != nil {
		return n
	}
	if n := r.byV1[name]; n != nil {
		return n
	}
	if k, ok := FindKnown(name); ok {
		return r.byCAIP2[k.CAIP2]
	}
	return nil
}

// UnknownNetwork says, in one clause, why name is not a network farebox
// takes payments on: one of x402's networks whose token it cannot pay
// with, or a network it does not know.
func UnknownNetwork(name string) string {
	if k, ok := FindKnown(name); ok && !k.Payable() {
		return fmt.Sprintf("network %q (%s): its token %s is moved by %s with %d decimals, and farebox's schemes pay with EIP-3009 on 6-decimal tokens", name, k.Label, k.Symbol, k.TransferMethod, k.Decimals)
	}
	return fmt.Sprintf("unknown network %q (built in: x402's EVM networks by name or CAIP-2 id, e.g. base, base-sepolia, polygon, arbitrum, eip155:42161; docs/operator.md lists them; declare others in custom_networks)", name)
}

// Lookup finds a network by the name a payment of the given x402 version
// carries: a v1 name for version 1, a CAIP-2 id otherwise.
func (r *Registry) Lookup(version int, name string) *Network {
	if version == 1 {
		return r.byV1[name]
	}
	return r.byCAIP2[name]
}

// Networks lists the registered networks in the order they were added.
func (r *Registry) Networks() []*Network { return append([]*Network(nil), r.list...) }
