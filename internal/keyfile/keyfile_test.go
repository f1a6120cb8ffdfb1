package keyfile

import (
	"crypto/ecdsa"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

// TestKeystoreLoadsAndErrorsHideTheKey: a keystore written by go-ethereum's
// keystore package decrypts to its key; a wrong password, a half-given
// setting and a malformed env key are errors naming the file or variable,
// with neither key nor password in them.
func TestKeystoreLoadsAndErrorsHideTheKey(t *testing.T) {
	dir := t.TempDir()
	key, _ := crypto.GenerateKey()
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	ks, pw := writeTestKeystore(t, dir, key, "correct horse")
	got, err := Source{Keystore: ks, PasswordFile: pw}.Load(nil)
	if err != nil || crypto.PubkeyToAddress(got.PublicKey) != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatalf("load: %v", err)
	}
	wrong := filepath.Join(dir, "wrong")
	os.WriteFile(wrong, []byte("battery staple\n"), 0o600)
	env := map[string]string{"K": "0x" + keyHex[:60] + "zzzz", "OK": keyHex}
	for _, s := range []Source{
		{Keystore: ks, PasswordFile: wrong, What: "payments.chain.relayer_keystore"},
		{Keystore: ks},
		{PasswordFile: pw},
		{Env: "K"},
		{Env: "NONE"},
	} {
		_, err := s.Load(func(k string) string { return env[k] })
		if err == nil {
			t.Fatalf("%+v loaded", s)
		}
		for _, secret := range []string{keyHex, keyHex[:60], "correct horse", "battery"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q shows a secret", err)
			}
		}
	}
	if got, err := (Source{Env: "OK"}).Load(func(k string) string { return env[k] }); err != nil || !got.Equal(key) {
		t.Fatalf("env key: %v", err)
	}
}

// writeTestKeystore writes key as a v3 keystore with go-ethereum's light
// scrypt parameters (fast, as a test wants) and its password file.
func writeTestKeystore(t testing.TB, dir string, key *ecdsa.PrivateKey, password string) (ks, pw string) {
	t.Helper()
	id, _ := uuid.NewRandom()
	blob, err := keystore.EncryptKey(&keystore.Key{Id: id, Address: crypto.PubkeyToAddress(key.PublicKey), PrivateKey: key},
		password, keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	ks, pw = filepath.Join(dir, "key.json"), filepath.Join(dir, "password")
	if os.WriteFile(ks, blob, 0o600) != nil || os.WriteFile(pw, []byte(password+"\n"), 0o600) != nil {
		t.Fatal("writing the keystore")
	}
	return ks, pw
}
