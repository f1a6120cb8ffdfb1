package payer

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/upto"
)

// WithContracts sets where the batch-settlement and upto contracts live on
// the chain chainID (default: their canonical addresses, on every chain).
func WithContracts(chainID *big.Int, d contracts.Deployment) Option {
	return func(t *Transport) { t.deployments[chainID.String()] = d }
}

func (t *Transport) deployment(chainID *big.Int) contracts.Deployment {
	if d, ok := t.deployments[chainID.String()]; ok {
		return d
	}
	return contracts.Canonical()
}

// uptoBuy is what an upto purchase signed.
type uptoBuy struct {
	payload *upto.Payload
	permit2 common.Address
	token   common.Address
	permit  bool // an EIP-2612 permit went with it
	// tx and said are the receipt's transaction and charge (guarded by
	// Transport.mu): what the chain may prove (uptoProvenCharge).
	tx   common.Hash
	said *big.Int
	// proven is the charge the chain proved (guarded by Transport.mu).
	proven *big.Int
}

// signUpto signs a Permit2 witness transfer of the ceiling to the upto
// proxy, bound to payTo and the facilitator the offer names, and the
// EIP-2612 permit for Permit2 when the server declares gas sponsoring and
// the payer's allowance does not cover the ceiling.
func (t *Transport) signUpto(ctx context.Context, c candidate, pr *paymentRequired) (*purchase, error) {
	fa := c.o.extra.Get("facilitatorAddress").String()
	if !common.IsHexAddress(fa) {
		return nil, errors.New("payer: upto offer without extra.facilitatorAddress")
	}
	req := c.req
	holds, err := t.spend(ctx, req.Network, req.Amount, "an upto authorization (its maximum)")
	if err != nil {
		return nil, err
	}
	pu, err := t.signUptoHeld(ctx, c, pr)
	if err != nil {
		release(holds)
		return nil, err
	}
	pu.holds = holds
	t.provableLater(pu)
	return pu, nil
}

func (t *Transport) signUptoHeld(ctx context.Context, c candidate, pr *paymentRequired) (*purchase, error) {
	fa := c.o.extra.Get("facilitatorAddress").String()
	req := c.req
	d := t.deployment(req.Network.ChainID)
	now := t.signer.now().Unix()
	nonce := make([]byte, 32)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	p := &upto.Payload{From: t.signer.addr,
		Permit: eip712.PermitWitnessTransferFrom{Token: req.Network.Asset, Amount: new(big.Int).Set(req.Amount),
			Spender: d.UptoPermit2Proxy, Nonce: new(big.Int).SetBytes(nonce), Deadline: big.NewInt(now + req.MaxTimeoutSeconds)},
		Witness: upto.Witness{To: req.PayTo, Facilitator: common.HexToAddress(fa), ValidAfter: new(big.Int)}}
	sig, err := t.signer.sign(upto.NewContracts(req.Network.ChainID, d.Permit2, d.UptoPermit2Proxy).Digest(p))
	if err != nil {
		return nil, err
	}
	p.Signature = sig
	payload := upto.EncodePayload(p)
	var ext map[string]json.RawMessage
	if _, ok := pr.extensions[eip712.GasSponsoringKey]; ok {
		permit, err := t.gasSponsoring(ctx, req, d.Permit2, req.Amount, p.Permit.Deadline)
		if err != nil {
			return nil, err
		}
		if permit != nil {
			ext = map[string]json.RawMessage{eip712.GasSponsoringKey: permit}
		}
	}
	pu, err := t.envelope(pr, c, payload, ext)
	if err != nil {
		return nil, err
	}
	pu.upto = &uptoBuy{payload: p, permit2: d.Permit2, token: req.Network.Asset, permit: ext != nil}
	pu.payment.Authorization.ValidBefore = new(big.Int).Set(p.Permit.Deadline)
	return pu, nil
}

// gasSponsoring signs the eip2612GasSponsoring extension: an EIP-2612
// permit of amount for Permit2, or nil when the chain shows the payer's
// allowance already covers it. Its nonce is the token's nonces(owner);
// with no chain, a count of the permits this transport saw settled.
func (t *Transport) gasSponsoring(ctx context.Context, req *x402.Requirement, permit2 common.Address, amount, deadline *big.Int) (json.RawMessage, error) {
	token, owner := req.Network.Asset, t.signer.addr
	var nonce *big.Int
	if t.chain != nil {
		if a, ok := allowance(ctx, t.chain, token, owner, permit2); ok && a.Cmp(amount) >= 0 {
			return nil, nil
		}
		nonce, _ = permitNonce(ctx, t.chain, token, owner)
	}
	if nonce == nil {
		t.mu.Lock()
		nonce = new(big.Int).SetUint64(t.permits[token])
		t.mu.Unlock()
	}
	permit := &eip712.Permit2612{Owner: owner, Spender: permit2, Value: new(big.Int).Set(amount), Nonce: nonce, Deadline: deadline}
	sig, err := t.signer.sign(eip712.PermitDigest(req.Network, permit))
	if err != nil {
		return nil, err
	}
	info := map[string]string{"from": owner.Hex(), "asset": token.Hex(), "spender": permit2.Hex(), "amount": amount.String(),
		"nonce": nonce.String(), "deadline": deadline.String(), "signature": hexutil.Encode(sig), "version": "1"}
	return json.Marshal(map[string]any{"info": info})
}

// uptoNeverSpendable lists upto refusals that prove the Permit2
// authorization could never be settled (its nonce is never checked before
// these): wrong terms or signature, no allowance or balance.
func uptoNeverSpendable(reason string) bool {
	switch reason {
	case upto.ReasonSpender, upto.ReasonRecipientMismatch, upto.ReasonFacilitatorMismatch, upto.ReasonNotYetValid,
		upto.ReasonAmountMismatch, upto.ReasonTokenMismatch, upto.ReasonSignature, upto.ReasonInvalidPayload,
		upto.ReasonAllowanceRequired, upto.ReasonInsufficientBalance, upto.ReasonScheme, upto.ReasonNetworkMismatch,
		eip712.ReasonGasSponsoringFormat, eip712.ReasonGasSponsoringFrom, eip712.ReasonGasSponsoringAsset,
		eip712.ReasonGasSponsoringSpender, eip712.ReasonGasSponsoringAmount, eip712.ReasonGasSponsoringSig,
		x402.ReasonInvalidRequirements, x402.ReasonInvalidNetwork, x402.ReasonUnsupportedScheme, x402.ReasonInvalidScheme:
		return true
	}
	return false
}

// uptoAnswered reads the charge of an upto receipt (`amount`, or the
// spec's `settledAmount`) and counts a permit the settlement consumed.
func (t *Transport) uptoAnswered(p *purchase, receiptJSON []byte) *Settlement {
	var r struct {
		Success       bool   `json:"success"`
		Transaction   string `json:"transaction"`
		Network       string `json:"network"`
		Payer         string `json:"payer"`
		Amount        string `json:"amount"`
		SettledAmount string `json:"settledAmount"`
	}
	s := &Settlement{Scheme: upto.Scheme, Ceiling: p.upto.payload.Permit.Amount, Network: p.req.Network.CAIP2, Payer: p.upto.payload.From.Hex()}
	if t.chain != nil {
		s.prove = func(ctx context.Context) (*big.Int, error) { return t.uptoProvenCharge(ctx, p) }
	}
	if json.Unmarshal(receiptJSON, &r) != nil {
		return s
	}
	s.Transaction = r.Transaction
	amount := r.Amount
	if amount == "" {
		amount = r.SettledAmount
	}
	if v := atomic(amount); v != nil && v.Cmp(s.Ceiling) <= 0 && r.Success {
		s.Charged = v
		t.mu.Lock()
		p.upto.said = v
		if len(r.Transaction) == 66 {
			p.upto.tx = common.HexToHash(r.Transaction)
		}
		t.mu.Unlock()
	}
	if p.upto.permit && r.Success && r.Transaction != "" {
		t.mu.Lock()
		t.permits[p.upto.token]++
		t.mu.Unlock()
	}
	return s
}

// uptoUnsettled reports whether an upto authorization is past its deadline
// at the latest block and its Permit2 nonce unused: nothing can settle it.
func (t *Transport) uptoUnsettled(ctx context.Context, p *purchase) bool {
	head, err := t.chain.HeaderByNumber(ctx, nil)
	if err != nil || head.Time <= p.upto.payload.Permit.Deadline.Uint64() {
		return false
	}
	used, known := permit2NonceUsed(ctx, t.chain, p.upto.permit2, p.upto.payload.From, p.upto.payload.Permit.Nonce)
	return known && !used
}
