package channel

import (
	"bytes"
	"context"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm/token"
)

// eip1271Magic is what isValidSignature returns for a valid signature.
var eip1271Magic = [4]byte{0x16, 0x26, 0xba, 0x7e}

// ContractSignature asks a contract wallet whether sig is its signature of
// digest (EIP-1271 isValidSignature), as the contracts' SignatureChecker does.
func ContractSignature(ctx context.Context, caller ethereum.ContractCaller, wallet common.Address, digest [32]byte, sig []byte) bool {
	out, err := caller.CallContract(ctx, ethereum.CallMsg{To: &wallet,
		Data: token.NewDevWallet().PackIsValidSignature(digest, sig)}, nil)
	return err == nil && len(out) >= 4 && bytes.Equal(out[:4], eip1271Magic[:])
}

// VerifyOnChain finishes a verification that returned ErrNeedsChain: it
// checks the payer's signatures (voucher, deposit authorization) with the
// payer's wallet contract (EIP-1271), the way the contracts will. A wallet
// that is not deployed yet (EIP-6492) is refused.
func (v *Verifier) VerifyOnChain(ctx context.Context, caller ethereum.ContractCaller, p *Payload, req *x402.Requirement) error {
	if d := p.Deposit; d != nil {
		switch {
		case d.ERC3009 != nil:
			if !ContractSignature(ctx, caller, p.Config.Payer, eip712.ReceiveDigest(req.Network, v.receive(p)), d.ERC3009.Signature) {
				return refuse(ReasonReceiveAuthorizationSignature, "the payer's wallet does not accept the receiveWithAuthorization signature")
			}
		case d.Permit2 != nil:
			digest := v.Contracts.Permit2DepositDigest(&d.Permit2.Permit, d.Permit2.ChannelID)
			if !ContractSignature(ctx, caller, d.Permit2.From, digest, d.Permit2.Signature) {
				return refuse(ReasonPermit2InvalidSignature, "the payer's wallet does not accept the Permit2 signature")
			}
		}
	}
	if p.Config.PayerAuthorizer != (common.Address{}) {
		return nil // an EOA voucher signer, already checked by Verify
	}
	digest := v.Contracts.VoucherDigest(p.Voucher.ChannelID, p.Voucher.MaxClaimable)
	if !ContractSignature(ctx, caller, p.Config.Payer, digest, p.Voucher.Signature) {
		return refuse(ReasonVoucherSignature, "the payer's wallet does not accept the voucher signature")
	}
	return nil
}
