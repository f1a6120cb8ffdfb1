package chaintest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

func TestReferenceFacilitatorServesSupportedKindsOnAnvil(t *testing.T) {
	a := StartAnvil(t)
	key, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	url := StartFacilitator(t, a.RPCURL, key)

	res, err := http.Get(url + "/supported")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var sup struct {
		Kinds []struct {
			X402Version int
			Scheme      string
			Network     string
		}
		Signers map[string][]string
	}
	if err := json.NewDecoder(res.Body).Decode(&sup); err != nil || res.StatusCode != 200 {
		t.Fatalf("/supported: %d %v", res.StatusCode, err)
	}
	has := func(v int, network string) bool {
		for _, k := range sup.Kinds {
			if k.X402Version == v && k.Scheme == "exact" && k.Network == network {
				return true
			}
		}
		return false
	}
	if !has(2, "eip155:84532") || !has(1, "base-sepolia") {
		t.Errorf("kinds %+v lack exact on eip155:84532 (v2) or base-sepolia (v1)", sup.Kinds)
	}
	relayer := crypto.PubkeyToAddress(key.PublicKey).Hex()
	if s := sup.Signers["eip155:*"]; len(s) != 1 || !strings.EqualFold(s[0], relayer) {
		t.Errorf("signers %v, want [%s]", sup.Signers, relayer)
	}

	res, err = http.Post(url+"/verify", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(string(body), "not JSON") {
		t.Errorf("garbage /verify: %d %s", res.StatusCode, body)
	}
}
