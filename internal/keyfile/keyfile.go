// Package keyfile loads the private keys farebox signs with (the relayer,
// a reseller's or a paying command's wallet) from an encrypted go-ethereum
// v3 keystore file, the format `geth account new`, cast and most wallet
// tools write, or from an environment variable holding the hex key. Its
// errors name the file or the variable, never the key or the password.
package keyfile

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
)

// Source says where a key comes from: a keystore file with its password
// file, or else an environment variable.
type Source struct {
	Keystore, PasswordFile string
	Env                    string
	// What names the setting in errors ("payments.chain.relayer_keystore").
	What string
	// Key names the key in errors about the variable ("the relayer key").
	Key string
}

// FromKeystore reports whether the key is read from a keystore file.
func (s Source) FromKeystore() bool { return s.Keystore != "" }

// Check reports a half-given keystore setting without reading anything.
func (s Source) Check() error {
	switch {
	case s.Keystore != "" && s.PasswordFile == "":
		return fmt.Errorf("%s: a keystore needs its password file too", s.what())
	case s.Keystore == "" && s.PasswordFile != "":
		return fmt.Errorf("%s: a password file without a keystore", s.what())
	}
	return nil
}

func (s Source) key() string {
	if s.Key != "" {
		return s.Key
	}
	return "the key"
}

func (s Source) what() string {
	if s.What != "" {
		return s.What
	}
	return "keystore"
}

// Load reads the key: from the keystore when one is set, else from the
// environment variable through getenv.
func (s Source) Load(getenv func(string) string) (*ecdsa.PrivateKey, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if s.Keystore != "" {
		key, err := Decrypt(s.Keystore, s.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.what(), err)
		}
		return key, nil
	}
	if s.Env == "" {
		return nil, fmt.Errorf("%s: no key configured", s.what())
	}
	hex := strings.TrimPrefix(strings.TrimSpace(getenv(s.Env)), "0x")
	if hex == "" {
		return nil, fmt.Errorf("%s is read from $%s, which is empty", s.key(), s.Env)
	}
	key, err := crypto.HexToECDSA(hex)
	if err != nil {
		// HexToECDSA's error may quote the input: name the variable only.
		return nil, fmt.Errorf("$%s is not a private key (64 hex digits)", s.Env)
	}
	return key, nil
}

// Decrypt reads a v3 keystore file and decrypts it with the password held
// in passwordFile (its trailing newline is not part of it, as with geth's
// --password).
func Decrypt(keystorePath, passwordFile string) (*ecdsa.PrivateKey, error) {
	blob, err := os.ReadFile(keystorePath)
	if err != nil {
		return nil, fmt.Errorf("reading the keystore: %w", err)
	}
	pw, err := os.ReadFile(passwordFile)
	if err != nil {
		return nil, fmt.Errorf("reading the password file: %w", err)
	}
	password := strings.TrimRight(string(pw), "\r\n")
	k, err := keystore.DecryptKey(blob, password)
	if errors.Is(err, keystore.ErrDecrypt) {
		return nil, fmt.Errorf("%s: wrong password (from %s)", keystorePath, passwordFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a v3 keystore file: %v", keystorePath, err)
	}
	return k.PrivateKey, nil
}
