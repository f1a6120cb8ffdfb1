package devchain

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Deployment is what a rehearsal on an external chain keeps between runs:
// the token it deployed, the keys it generated and whom it funded, so a
// restart reuses them instead of deploying and funding again.
type Deployment struct {
	ChainID int64          `json:"chainId"`
	Token   common.Address `json:"token"`
	// TokenContract names the token's contract ("FareboxUSDv2"); a file
	// without it is from before the token had permit, and is deployed anew.
	TokenContract string `json:"tokenContract,omitempty"`
	TokenName     string `json:"tokenName"`
	TokenVersion  string `json:"tokenVersion"`
	// Deployer owns the token: only it can mint more.
	Deployer common.Address `json:"deployer"`
	// PayerKey and RelayerKey are hex private keys farebox generated (a
	// relayer key supplied by the operator is never written here).
	PayerKey   string `json:"payerKey"`
	RelayerKey string `json:"relayerKey,omitempty"`
	// Funded maps every address minted to on this token to its amount
	// (atomic units, decimal).
	Funded map[common.Address]string `json:"funded"`
	// RelayerFunded records the ETH top-ups sent to the relayer (wei, decimal).
	RelayerFunded []string `json:"relayerFunded,omitempty"`
}

// DeploymentPath is where a deployment on chainID is kept under dir: one
// file per chain, so rehearsing on another chain does not overwrite it.
func DeploymentPath(dir string, chainID int64) string {
	return filepath.Join(dir, "devchain-"+strconv.FormatInt(chainID, 10)+".json")
}

// loadDeployment reads the deployment at path; (nil, nil) when there is none.
func loadDeployment(path string) (*Deployment, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("devchain: %w", err)
	}
	var d Deployment
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("devchain: %s: %w", path, err)
	}
	if d.Funded == nil {
		d.Funded = map[common.Address]string{}
	}
	return &d, nil
}

// save writes the deployment atomically (a crash leaves the old file or the
// new one, never half of one), readable by its owner only: it holds keys.
func (d *Deployment) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("devchain: %w", err)
	}
	raw, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return fmt.Errorf("devchain: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("devchain: %w", err)
	}
	return nil
}

// key decodes one of the deployment's hex keys, generating and recording a
// new one when it is empty.
func (d *Deployment) key(hexKey *string) (*ecdsa.PrivateKey, error) {
	if *hexKey != "" {
		k, err := crypto.HexToECDSA(*hexKey)
		if err != nil {
			return nil, fmt.Errorf("devchain: a key in the deployment file: %w", err)
		}
		return k, nil
	}
	k, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	*hexKey = hex.EncodeToString(crypto.FromECDSA(k))
	return k, nil
}

// funded reports whether addr was minted to on this deployment's token.
func (d *Deployment) funded(addr common.Address) bool {
	_, ok := d.Funded[addr]
	return ok
}

func (d *Deployment) recordFunding(addr common.Address, amount *big.Int) {
	d.Funded[addr] = amount.String()
}
