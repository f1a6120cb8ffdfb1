// Package cdpfake is a stand-in for Coinbase's CDP facilitator in tests:
// it checks every request's JWT as CDP documents it (signature with the
// key's public half, alg, kid, iss, aud, sub, uris naming the request's
// method, host and path, the nbf/exp window, a nonce never seen before),
// refuses with 401 otherwise, and hands what it accepts to another
// facilitator (the x402 reference on a test chain) that settles for real.
package cdpfake

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// BasePath is where CDP serves its facilitator, as on api.cdp.coinbase.com.
const BasePath = "/platform/v2/x402"

// Key is a CDP API key as the CDP portal hands it out: an id and a secret
// (PEM EC or base64 Ed25519), with the public half the fake verifies with.
type Key struct {
	ID     string
	Secret string
	Public crypto.PublicKey
}

// ECKey makes a P-256 key whose secret is a SEC1 "EC PRIVATE KEY" PEM.
func ECKey(t testing.TB, id string) Key {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pemText := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	return Key{ID: id, Secret: string(pemText), Public: &k.PublicKey}
}

// Ed25519Key makes a key whose secret is base64 of seed and public key
// (64 bytes), as CDP issues Ed25519 keys.
func Ed25519Key(t testing.TB, id string) Key {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return Key{ID: id, Secret: base64.StdEncoding.EncodeToString(priv), Public: pub}
}

// Fake is the stand-in's server.
type Fake struct {
	// URL is the facilitator's base URL (payments.facilitator.url).
	URL string

	srv      *httptest.Server
	upstream string
	keys     map[string]crypto.PublicKey
	now      func() time.Time

	mu       sync.Mutex
	nonces   map[string]bool
	accepted map[string]int // by endpoint
	refused  []string       // why each refused request was refused
}

// Option configures a Fake.
type Option func(*Fake)

// WithClock sets the fake's clock (a token signed at the real now is
// expired for a fake whose clock runs ahead).
func WithClock(now func() time.Time) Option { return func(f *Fake) { f.now = now } }

// New serves the stand-in, accepting tokens of keys and forwarding what it
// accepts to the facilitator at upstream (its base URL), until t ends.
func New(t testing.TB, upstream string, keys []Key, opts ...Option) *Fake {
	f := Serve(upstream, keys, opts...)
	t.Cleanup(f.Close)
	return f
}

// Serve is New for a process of its own (cmd/cdp-standin): the caller
// calls Close.
func Serve(upstream string, keys []Key, opts ...Option) *Fake {
	f := &Fake{upstream: strings.TrimSuffix(upstream, "/"), keys: map[string]crypto.PublicKey{},
		now: time.Now, nonces: map[string]bool{}, accepted: map[string]int{}}
	for _, k := range keys {
		f.keys[k.ID] = k.Public
	}
	for _, o := range opts {
		o(f)
	}
	mux := http.NewServeMux()
	for _, ep := range []string{"POST verify", "POST settle", "GET supported"} {
		method, name, _ := strings.Cut(ep, " ")
		mux.HandleFunc(method+" "+BasePath+"/"+name, func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, name) })
	}
	mux.HandleFunc("GET "+LogPath, f.serveLog)
	f.srv = httptest.NewServer(mux)
	f.URL = f.srv.URL + BasePath
	return f
}

// Close stops the server.
func (f *Fake) Close() { f.srv.Close() }

// Accepted is how many requests to endpoint passed the JWT check.
func (f *Fake) Accepted(endpoint string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.accepted[endpoint]
}

// LogPath is where the stand-in tells what it accepted and refused, as
// JSON {accepted: {endpoint: n}, refused: [why]}, for a test in another
// process (cmd/cdp-standin); CDP has no such path.
const LogPath = "/standin/log"

func (f *Fake) serveLog(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	out := map[string]any{"accepted": maps.Clone(f.accepted), "refused": append([]string{}, f.refused...)}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// Refused lists why each refused request was refused.
func (f *Fake) Refused() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.refused)
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request, endpoint string) {
	if err := f.check(r); err != nil {
		f.mu.Lock()
		f.refused = append(f.refused, endpoint+": "+err.Error())
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]string{"errorType": "unauthorized", "errorMessage": "Unauthorized."})
		return
	}
	f.mu.Lock()
	f.accepted[endpoint]++
	f.mu.Unlock()
	f.forward(w, r, endpoint)
}

// forward hands an accepted request to the settling facilitator, without
// CDP's credentials, and its answer back as it came.
func (f *Fake) forward(w http.ResponseWriter, r *http.Request, endpoint string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var rd io.Reader
	if r.Method == http.MethodPost {
		rd = bytes.NewReader(body)
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, f.upstream+"/"+endpoint, rd)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	out.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	out.Header.Set("Accept", "application/json")
	res, err := http.DefaultClient.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
	w.WriteHeader(res.StatusCode)
	_, _ = w.Write(answer)
}

var nonceForm = regexp.MustCompile(`^[0-9a-f]{32}$`)

// check verifies the request's JWT as CDP does.
func (f *Fake) check(r *http.Request) error {
	if r.Header.Get("Correlation-Context") == "" {
		return errors.New("no Correlation-Context header")
	}
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || raw == "" {
		return errors.New("no bearer token")
	}
	var kid string
	claims := jwt.MapClaims{}
	tok, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		kid, _ = t.Header["kid"].(string)
		pub, ok := f.keys[kid]
		if !ok {
			return nil, fmt.Errorf("unknown key id %q", kid)
		}
		switch pub.(type) {
		case *ecdsa.PublicKey:
			if t.Method != jwt.SigningMethodES256 {
				return nil, fmt.Errorf("alg %s for an EC key", t.Method.Alg())
			}
		case ed25519.PublicKey:
			if t.Method != jwt.SigningMethodEdDSA {
				return nil, fmt.Errorf("alg %s for an Ed25519 key", t.Method.Alg())
			}
		}
		return pub, nil
	}, jwt.WithValidMethods([]string{"ES256", "EdDSA"}), jwt.WithIssuer("cdp"), jwt.WithAudience("cdp_service"),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithTimeFunc(f.now))
	if err != nil {
		return err
	}
	if sub, _ := claims.GetSubject(); sub != kid {
		return fmt.Errorf("sub %q is not the kid %q", sub, kid)
	}
	return f.checkClaims(r, tok, claims)
}

// checkClaims checks what the library does not: the window's presence and
// length, the uris, the nonce.
func (f *Fake) checkClaims(r *http.Request, tok *jwt.Token, claims jwt.MapClaims) error {
	nbf, err1 := claims.GetNotBefore()
	exp, err2 := claims.GetExpirationTime()
	if err1 != nil || err2 != nil || nbf == nil || exp == nil {
		return errors.New("nbf and exp are required")
	}
	if exp.Sub(nbf.Time) > 2*time.Minute {
		return fmt.Errorf("token valid for %s, more than two minutes", exp.Sub(nbf.Time))
	}
	want := r.Method + " " + r.Host + r.URL.Path
	uris, _ := claims["uris"].([]any)
	if len(uris) != 1 || uris[0] != want {
		return fmt.Errorf("uris %v, want [%q]", claims["uris"], want)
	}
	nonce, _ := tok.Header["nonce"].(string)
	if !nonceForm.MatchString(nonce) {
		return fmt.Errorf("nonce %q is not 16 random bytes in hex", nonce)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nonces[nonce] {
		return fmt.Errorf("nonce %s used before", nonce)
	}
	f.nonces[nonce] = true
	return nil
}
