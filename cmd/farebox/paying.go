package main

// What the paying commands share: the server build's proxy as well as the
// full build's call and chat.

import (
	"context"
	"crypto/ecdsa"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/keyfile"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
)

// payerKey is the key clients pay with: the --keystore file decrypted with
// --password-file, else FAREBOX_PAYER_KEY (hex), else the publicly known
// dev payer key of `farebox dev`, said out loud on stderr.
func payerKey(getenv func(string) string, stderr io.Writer, command string, f *payFlags) (*ecdsa.PrivateKey, error) {
	if f != nil && (f.keystore != "" || f.passwordFile != "") {
		return keyfile.Source{Keystore: f.keystore, PasswordFile: f.passwordFile, What: "--keystore"}.Load(getenv)
	}
	keyHex := getenv("FAREBOX_PAYER_KEY")
	if keyHex == "" {
		keyHex = publicDevPayerKey
		fmt.Fprintln(stderr, command+": FAREBOX_PAYER_KEY is not set; paying with the publicly known dev payer key")
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(keyHex, "0x"))
	if err != nil {
		// The parse error may quote the value: name the variable only.
		return nil, fmt.Errorf("FAREBOX_PAYER_KEY is not a private key (64 hex digits)")
	}
	return key, nil
}

// payFlags are the flags every paying command shares: how to pay and the
// wallet holder's limits on what one call, one deposit and one channel may
// ask of the wallet.
type payFlags struct {
	scheme, channels, rpcURL string
	keystore, passwordFile   string
	maxPrice, maxDeposit     string
	maxWithdrawDelay         time.Duration
	price, deposit           *big.Int // parsed
}

// addPayFlags registers the paying flags on fs; perCall says what
// --max-price bounds ("call", "turn").
func addPayFlags(fs *flag.FlagSet, getenv func(string) string, perCall string) *payFlags {
	f := &payFlags{}
	fs.StringVar(&f.maxPrice, "max-price", "0.1", "the most one "+perCall+" may cost, in USDC")
	fs.StringVar(&f.scheme, "scheme", "auto", "how to pay: auto (the cheapest the server offers: batch-settlement, then upto, then exact), or exact, upto, batch-settlement, or a comma-separated preference list")
	fs.StringVar(&f.channels, "channels", getenv("FAREBOX_CHANNELS"), "directory of the batch-settlement channel store (env FAREBOX_CHANNELS; default farebox/channels under the user's config directory)")
	fs.StringVar(&f.rpcURL, "rpc-url", getenv("FAREBOX_RPC_URL"), "a JSON-RPC endpoint of the payment chain: recovers channels from chain, checks Permit2 allowances, proves expired payments unused, reads a token's decimals (env FAREBOX_RPC_URL)")
	fs.StringVar(&f.maxDeposit, "max-deposit", "", "the most one batch-settlement deposit may put into a channel, in USDC (default: --max-price); unspent deposits come back with farebox call --refund")
	fs.StringVar(&f.keystore, "keystore", getenv("FAREBOX_PAYER_KEYSTORE"), "an encrypted go-ethereum v3 keystore file holding the paying key, instead of FAREBOX_PAYER_KEY (env FAREBOX_PAYER_KEYSTORE)")
	fs.StringVar(&f.passwordFile, "password-file", getenv("FAREBOX_PAYER_PASSWORD_FILE"), "the file holding --keystore's password (env FAREBOX_PAYER_PASSWORD_FILE)")
	fs.DurationVar(&f.maxWithdrawDelay, "max-withdraw-delay", payer.DefaultMaxWithdrawDelay, "the longest withdraw delay of a seller's channel the wallet deposits into (how long a deposit can stay locked if the seller stops answering)")
	return f
}

// parse checks the limits.
func (f *payFlags) parse() error {
	var err error
	if f.price, err = x402.ParseUSDC(f.maxPrice); err != nil {
		return fmt.Errorf("--max-price: %w", err)
	}
	f.deposit = nil
	if f.maxDeposit != "" {
		if f.deposit, err = x402.ParseUSDC(f.maxDeposit); err != nil {
			return fmt.Errorf("--max-deposit: %w", err)
		}
	}
	if f.maxWithdrawDelay <= 0 {
		return fmt.Errorf("--max-withdraw-delay %s: want a positive duration such as 24h", f.maxWithdrawDelay)
	}
	return nil
}

// transport is the paying transport of every paying command: the
// networks the user can trust among those offered (trustedNetworks), the
// limits, the channel store and the chain; extra options come last. warn
// is told which offered networks are not trusted, and why.
func (f *payFlags) transport(ctx context.Context, key *ecdsa.PrivateKey, offers []x402.Offer, warn io.Writer, extra ...payer.Option) (*payer.Transport, error) {
	if f.price == nil {
		if err := f.parse(); err != nil {
			return nil, err
		}
	}
	opts, err := paymentOptions(f.scheme, f.channels)
	if err != nil {
		return nil, err
	}
	var chain tokenChain
	if f.rpcURL != "" {
		rpc, err := evm.Dial(ctx, f.rpcURL)
		if err != nil {
			return nil, fmt.Errorf("--rpc-url: %w", err)
		}
		chain = rpc
		opts = append(opts, payer.WithChain(rpc))
	}
	reg, decimals, err := trustedNetworks(ctx, offers, chain, warn)
	if err != nil {
		return nil, err
	}
	opts = append(opts, decimals...)
	opts = append(opts, payer.WithNetworks(reg), payer.WithSpendCap(f.price), payer.WithMaxWithdrawDelay(f.maxWithdrawDelay))
	if f.deposit != nil {
		opts = append(opts, payer.WithMaxDeposit(f.deposit))
	}
	return payer.NewTransport(payer.NewSigner(key), append(opts, extra...)...), nil
}

// paymentOptions turns --scheme and --channels into transport options.
func paymentOptions(scheme, dir string) ([]payer.Option, error) {
	var opts []payer.Option
	if scheme != "auto" {
		var list []string
		for _, s := range strings.Split(scheme, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(payer.DefaultSchemes, s) {
				return nil, fmt.Errorf("--scheme %q: want auto or a list of %s", s, strings.Join(payer.DefaultSchemes, ", "))
			}
			list = append(list, s)
		}
		opts = append(opts, payer.WithSchemes(list...))
	}
	if dir == "" {
		if cfg, err := os.UserConfigDir(); err == nil {
			dir = filepath.Join(cfg, "farebox", "channels")
		}
	}
	if dir != "" {
		store, err := payer.NewFileChannels(dir)
		if err != nil {
			return nil, fmt.Errorf("--channels: %w", err)
		}
		opts = append(opts, payer.WithChannelStore(store))
	}
	return opts, nil
}

// offersOf asks the server what it takes for models: the 402 offer of an
// unpaid request, answered before any model runs.
func offersOf(ctx context.Context, base string, models ...string) ([]x402.Offer, error) {
	var all []x402.Offer
	for _, model := range models {
		offers, err := offersFor(ctx, base, model)
		if err != nil {
			return nil, err
		}
		all = append(all, offers...)
	}
	return all, nil
}

// offersFor is the v2 offer of an unpaid request for model; none when the
// server does not ask for payment.
func offersFor(ctx context.Context, base, model string) ([]x402.Offer, error) {
	body := `{"model":` + fmt.Sprintf("%q", model) + `,"input":"."}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(base, "/")+"/responses", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach farebox at %s (%s): start it (farebox dev) or point --base-url / FAREBOX_BASE_URL at it", base, rootCause(err))
	}
	res.Body.Close()
	if res.StatusCode != http.StatusPaymentRequired {
		return nil, nil
	}
	offers, err := x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		return nil, fmt.Errorf("reading the server's offer: %w", err)
	}
	return offers, nil
}
