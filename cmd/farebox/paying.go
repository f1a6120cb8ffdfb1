package main

// What the paying commands share: the server build's proxy as well as the
// full build's call and chat.

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
)

// payerKey is the key clients pay with: FAREBOX_PAYER_KEY (hex), else the
// publicly known dev payer key of `farebox dev`, said out loud on stderr.
func payerKey(getenv func(string) string, stderr io.Writer, command string) (*ecdsa.PrivateKey, error) {
	keyHex := getenv("FAREBOX_PAYER_KEY")
	if keyHex == "" {
		keyHex = publicDevPayerKey
		fmt.Fprintln(stderr, command+": FAREBOX_PAYER_KEY is not set; paying with the publicly known dev payer key")
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(keyHex, "0x"))
	if err != nil {
		return nil, fmt.Errorf("FAREBOX_PAYER_KEY: %w", err)
	}
	return key, nil
}

// paymentOptions turns --scheme, --channels and --rpc-url into transport options.
func paymentOptions(ctx context.Context, scheme, dir, rpcURL string) ([]payer.Option, error) {
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
	if rpcURL != "" {
		rpc, err := evm.Dial(ctx, rpcURL)
		if err != nil {
			return nil, fmt.Errorf("--rpc-url: %w", err)
		}
		opts = append(opts, payer.WithChain(rpc))
	}
	return opts, nil
}

// offeredNetworks asks the server which networks it takes for models (the
// 402 offer of an unpaid request, answered before any model runs) and
// trusts those the user chose by naming the base URL, ahead of the
// built-in ones (a rehearsal on a Base Sepolia fork offers its own token on
// eip155:84532); the spend cap bounds what any of them can cost.
func offeredNetworks(ctx context.Context, base string, models ...string) (*x402.Registry, error) {
	var nets []*x402.Network
	taken := map[string]bool{}
	for _, model := range models {
		offers, err := offersFor(ctx, base, model)
		if err != nil {
			return nil, err
		}
		for _, o := range offers {
			var id int64
			if _, err := fmt.Sscanf(o.Network, "eip155:%d", &id); err != nil || !common.IsHexAddress(o.Asset) || taken[o.Network] {
				continue
			}
			taken[o.Network] = true
			nets = append(nets, x402.NewNetwork(o.Network, "", big.NewInt(id), common.HexToAddress(o.Asset), o.ExtraName, o.ExtraVersion))
		}
	}
	for _, n := range x402.DefaultRegistry().Networks() {
		if !taken[n.CAIP2] {
			nets = append(nets, n)
		}
	}
	return x402.NewRegistry(nets...)
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
