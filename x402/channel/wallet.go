package channel

import (
	"bytes"
	"context"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
)

// ContractSignature asks a contract wallet whether sig is its signature of
// digest (EIP-1271 isValidSignature), as the contracts' SignatureChecker
// does when the contract asker checks it: the wallet sees asker as
// msg.sender, so a wallet that answers differently depending on who asks
// gives the answer the contract will get.
func ContractSignature(ctx context.Context, caller ethereum.ContractCaller, asker, wallet common.Address, digest [32]byte, sig []byte) bool {
	out, err := caller.CallContract(ctx, ethereum.CallMsg{From: asker, To: &wallet,
		Data: eip712.IsValidSignatureCalldata(digest, sig)}, nil)
	return err == nil && len(out) >= 4 && bytes.Equal(out[:4], eip712.EIP1271Magic[:])
}

// VerifyOnChain finishes a verification that returned ErrNeedsChain: it
// checks the payer's signatures (voucher, deposit authorization) with the
// payer's wallet contract (EIP-1271), the way the contracts will, each asked
// by the contract that will ask it (the token for receiveWithAuthorization,
// Permit2, the settlement contract for the voucher). A wallet that is not
// deployed yet (EIP-6492) is refused.
func (v *Verifier) VerifyOnChain(ctx context.Context, caller ethereum.ContractCaller, p *Payload, req *x402.Requirement) error {
	if d := p.Deposit; d != nil {
		switch {
		case d.ERC3009 != nil:
			if !ContractSignature(ctx, caller, req.Network.Asset, p.Config.Payer, eip712.ReceiveDigest(req.Network, v.receive(p)), d.ERC3009.Signature) {
				return refuse(ReasonReceiveAuthorizationSignature, "the payer's wallet does not accept the receiveWithAuthorization signature")
			}
		case d.Permit2 != nil:
			digest := v.Contracts.Permit2DepositDigest(&d.Permit2.Permit, d.Permit2.ChannelID)
			if !ContractSignature(ctx, caller, v.Contracts.Permit2, d.Permit2.From, digest, d.Permit2.Signature) {
				return refuse(ReasonPermit2InvalidSignature, "the payer's wallet does not accept the Permit2 signature")
			}
		}
	}
	if p.Config.PayerAuthorizer != (common.Address{}) {
		return nil // an EOA voucher signer, already checked by Verify
	}
	digest := v.Contracts.VoucherDigest(p.Voucher.ChannelID, p.Voucher.MaxClaimable)
	if !ContractSignature(ctx, caller, v.Contracts.Settlement, p.Config.Payer, digest, p.Voucher.Signature) {
		return refuse(ReasonVoucherSignature, "the payer's wallet does not accept the voucher signature")
	}
	return nil
}

// VoucherAccepted reports whether the settlement contract will accept
// row's voucher signature now (the payer authorizer's ECDSA signature, or
// the payer wallet's EIP-1271 answer to the contract), asked the way the
// contract asks.
func (c *Contracts) VoucherAccepted(ctx context.Context, caller ethereum.ContractCaller, row Claim) bool {
	digest := c.VoucherDigest(c.ChannelID(&row.Config), row.MaxClaimable)
	if row.Config.PayerAuthorizer != (common.Address{}) {
		return ecdsaSigner(digest, row.Signature, row.Config.PayerAuthorizer)
	}
	return ContractSignature(ctx, caller, c.Settlement, row.Config.Payer, digest, row.Signature)
}
