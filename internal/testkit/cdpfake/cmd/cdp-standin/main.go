// Command cdp-standin serves the CDP facilitator stand-in (package
// cdpfake) as a process of its own, for test suites outside Go (the Node
// interop suite's mainnet rehearsal): it checks every request's JWT as
// CDP documents it and forwards what it accepts to a settling facilitator.
//
//	cdp-standin -upstream URL -key ID=SPKI [-key ...] [-clock-skew 5m]
//
// Each -key is an API key's id and its public half (base64 of the PKIX
// DER: a P-256 key for ES256, an Ed25519 key for EdDSA); the secret never
// reaches the stand-in. -clock-skew runs its clock ahead, so tokens signed
// now look expired. It prints its base URL (payments.facilitator.url) as
// the first line on stdout, serves cdpfake.LogPath (what it accepted and
// refused, as JSON) on its host, and exits when stdin closes, so it never outlives the
// test that started it.
package main

import (
	"crypto/x509"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/farebox/farebox/internal/testkit/cdpfake"
)

type keyFlags []cdpfake.Key

func (k *keyFlags) String() string { return fmt.Sprint(len(*k), " keys") }

func (k *keyFlags) Set(v string) error {
	id, spki, ok := strings.Cut(v, "=")
	if !ok || id == "" {
		return fmt.Errorf("want ID=SPKI, got %q", v)
	}
	der, err := base64.StdEncoding.DecodeString(spki)
	if err != nil {
		return fmt.Errorf("key %s: the public key is not base64: %w", id, err)
	}
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return fmt.Errorf("key %s: %w", id, err)
	}
	*k = append(*k, cdpfake.Key{ID: id, Public: pub})
	return nil
}

func main() {
	var keys keyFlags
	upstream := flag.String("upstream", "", "the settling facilitator's base URL")
	skew := flag.Duration("clock-skew", 0, "how far ahead of this machine's clock the stand-in's runs")
	flag.Var(&keys, "key", "an API key the stand-in accepts: ID=base64 PKIX DER public key (repeat)")
	flag.Parse()
	if *upstream == "" || len(keys) == 0 {
		fmt.Fprintln(os.Stderr, "cdp-standin: -upstream and at least one -key are required")
		os.Exit(2)
	}
	f := cdpfake.Serve(*upstream, keys, cdpfake.WithClock(func() time.Time { return time.Now().Add(*skew) }))
	defer f.Close()
	fmt.Println(f.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}
