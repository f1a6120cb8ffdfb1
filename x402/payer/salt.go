package payer

import (
	"crypto/hmac"
	"crypto/sha256"
	"math/big"

	"github.com/ethereum/go-ethereum/crypto"
)

// bind settles the channel's salt (and so its id): WithChannelSalt's when
// set; else the salt of a channel under these terms the store already
// holds (the one with the most left when there are several); else the
// payer's secret salt for these terms (channelSalt). Called under the
// channel key's lock, so two first purchases do not open two channels.
func (t *Transport) bind(b *batchBuy) error {
	if t.saltSet {
		return nil
	}
	recs, err := t.store.List(b.key)
	if err != nil {
		return err
	}
	var best *ChannelRecord
	for _, r := range recs {
		cfg := b.cfg
		cfg.Salt = r.Salt
		if b.contracts.ChannelID(&cfg) != r.ChannelID {
			continue // another receiver authorizer, token or withdraw delay
		}
		if best == nil || left(r).Cmp(left(best)) > 0 || (left(r).Cmp(left(best)) == 0 && r.ChannelID.Cmp(best.ChannelID) < 0) {
			best = r
		}
	}
	if best != nil {
		b.cfg.Salt = best.Salt
	} else {
		b.cfg.Salt = t.signer.channelSalt(b.contracts.ChannelID(&b.cfg))
	}
	b.id = b.contracts.ChannelID(&b.cfg)
	return nil
}

// left is what a channel record holds beyond its charges.
func left(r *ChannelRecord) *big.Int { return new(big.Int).Sub(r.Balance, r.Charged) }

// channelSalt is the salt of the payer's channel whose config with a zero
// salt hashes to base (so it differs per chain, contract, receiver, token,
// authorizer and withdraw delay): a keyed hash under the payer's private
// key. Nobody without the key can compute it, so a payer's channels cannot
// be found from its address (a fixed salt would let anyone read them on
// chain); the payer itself derives it again after losing its channel
// store and recovers the channel from chain by its id.
func (s *Signer) channelSalt(base [32]byte) [32]byte {
	mac := hmac.New(sha256.New, crypto.FromECDSA(s.key))
	mac.Write([]byte("farebox batch-settlement channel salt"))
	mac.Write(base[:])
	var salt [32]byte
	copy(salt[:], mac.Sum(nil))
	return salt
}
