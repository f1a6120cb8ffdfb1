package facilitator

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Coinbase's CDP facilitator: where it is and how its API keys sign.
const (
	// CDPURL is the CDP facilitator's base URL (payments.facilitator.url's
	// default with kind: cdp).
	CDPURL = "https://api.cdp.coinbase.com/platform/v2/x402"
	// CDPHost is the host whose facilitator URLs are recognised as CDP's
	// without kind: cdp.
	CDPHost = "api.cdp.coinbase.com"
	// CDPTokenLifetime is how long one request's JWT is valid, as
	// Coinbase's own clients sign it.
	CDPTokenLifetime = 120 * time.Second
)

// IsCDP reports whether a facilitator URL is on CDP's host.
func IsCDP(rawURL string) bool {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	return err == nil && strings.EqualFold(u.Hostname(), CDPHost)
}

// CDPKey is a CDP API key: its id and the private key that signs a JWT
// for every request. Its secret is never formatted into any message.
type CDPKey struct {
	ID     string
	key    crypto.Signer
	method jwt.SigningMethod
}

// ParseCDPKey reads a CDP API key secret as CDP issues it: an EC private
// key in PEM (SEC1 "EC PRIVATE KEY" or PKCS #8), signing ES256, or a
// base64 Ed25519 key of 64 bytes (seed and public key), signing EdDSA.
// Its errors name the key id and the expected forms, never the secret.
func ParseCDPKey(id, secret string) (*CDPKey, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, errors.New("CDP API key: the key id is empty")
	}
	secret = strings.TrimSpace(strings.ReplaceAll(secret, `\n`, "\n"))
	if secret == "" {
		return nil, fmt.Errorf("CDP API key %s: the secret is empty", id)
	}
	if block, _ := pem.Decode([]byte(secret)); block != nil {
		if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
			return ecKey(id, k)
		}
		if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
			if ek, ok := k.(*ecdsa.PrivateKey); ok {
				return ecKey(id, ek)
			}
			if ed, ok := k.(ed25519.PrivateKey); ok {
				return &CDPKey{ID: id, key: ed, method: jwt.SigningMethodEdDSA}, nil
			}
		}
		return nil, fmt.Errorf("CDP API key %s: the secret is PEM but not an EC private key (SEC1 or PKCS #8)", id)
	}
	raw, err := base64.StdEncoding.DecodeString(secret)
	if err != nil || len(raw) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("CDP API key %s: the secret is neither an EC private key in PEM nor a base64 Ed25519 key of 64 bytes", id)
	}
	k := ed25519.NewKeyFromSeed(raw[:ed25519.SeedSize])
	if !k.Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(raw[ed25519.SeedSize:])) {
		return nil, fmt.Errorf("CDP API key %s: the Ed25519 secret's public half does not match its seed", id)
	}
	return &CDPKey{ID: id, key: k, method: jwt.SigningMethodEdDSA}, nil
}

func ecKey(id string, k *ecdsa.PrivateKey) (*CDPKey, error) {
	if k.Curve.Params().Name != "P-256" {
		return nil, fmt.Errorf("CDP API key %s: the EC key is on %s, ES256 needs P-256", id, k.Curve.Params().Name)
	}
	return &CDPKey{ID: id, key: k, method: jwt.SigningMethodES256}, nil
}

// Algorithm is the JWT alg the key signs with: ES256 or EdDSA.
func (k *CDPKey) Algorithm() string { return k.method.Alg() }

// Public is the key's public half (what CDP, or a stand-in, verifies with).
func (k *CDPKey) Public() crypto.PublicKey { return k.key.Public() }

// Token is the JWT for one request (method, host, path), valid from now
// for CDPTokenLifetime, with a fresh nonce: CDP refuses a token used for
// another request, an expired one, and a nonce it has seen.
func (k *CDPKey) Token(method, host, path string, now time.Time) (string, error) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("CDP API key %s: nonce: %w", k.ID, err)
	}
	claims := jwt.MapClaims{
		"sub":  k.ID,
		"iss":  "cdp",
		"aud":  []string{"cdp_service"},
		"nbf":  now.Unix(),
		"iat":  now.Unix(),
		"exp":  now.Add(CDPTokenLifetime).Unix(),
		"uris": []string{method + " " + host + path},
	}
	t := jwt.NewWithClaims(k.method, claims)
	t.Header["kid"] = k.ID
	t.Header["nonce"] = hex.EncodeToString(nonce)
	s, err := t.SignedString(k.key)
	if err != nil {
		return "", fmt.Errorf("CDP API key %s: signing the request's token: %w", k.ID, err)
	}
	return s, nil
}

// CorrelationContext is the Correlation-Context header sent with every
// request to CDP, in the form Coinbase's own clients use, naming farebox.
var CorrelationContext = "sdkLanguage=go,source=farebox,sourceVersion=" + moduleVersion()

func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// WithCDPKey signs every request with a fresh JWT of key for that
// request's method, host and path, and sends the Correlation-Context
// header; now (nil: time.Now) dates the tokens. CDP's refusals (401, 403,
// 429) then become errors naming the key id.
func WithCDPKey(key *CDPKey, now func() time.Time) Option {
	if now == nil {
		now = time.Now
	}
	return func(c *Client) {
		c.keyID = key.ID
		c.sign = func(req *http.Request) error {
			tok, err := key.Token(req.Method, req.URL.Host, req.URL.EscapedPath(), now())
			if err != nil {
				return err
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Correlation-Context", CorrelationContext)
			return nil
		}
	}
}

// AuthError is the facilitator refusing farebox's credentials (401, 403)
// or its rate (429): nothing was settled, so the payment is not pending.
type AuthError struct {
	Endpoint   string
	Status     int
	KeyID      string
	RetryAfter time.Duration // from a 429's Retry-After, 0 when none
}

func (e *AuthError) Error() string {
	switch e.Status {
	case http.StatusTooManyRequests:
		wait := "later"
		if e.RetryAfter > 0 {
			wait = "in " + e.RetryAfter.String()
		}
		return fmt.Sprintf("facilitator %s: CDP rate-limits API key %s (HTTP 429): retry %s", e.Endpoint, e.KeyID, wait)
	case http.StatusForbidden:
		return fmt.Sprintf("facilitator %s: CDP forbids API key %s this request (HTTP 403): check the key's permissions for x402 in the CDP portal", e.Endpoint, e.KeyID)
	}
	return fmt.Sprintf("facilitator %s: CDP refused API key %s (HTTP %d): check key_id_env and key_secret_env hold a current key from the CDP portal, and that this machine's clock is right (each token is valid for two minutes from its signing)", e.Endpoint, e.KeyID, e.Status)
}

// authRefusal is the AuthError of a refused exchange, nil for any other.
func (c *Client) authRefusal(endpoint string, status int, h http.Header) error {
	if c.keyID == "" {
		return nil
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests:
	default:
		return nil
	}
	e := &AuthError{Endpoint: endpoint, Status: status, KeyID: c.keyID}
	if status == http.StatusTooManyRequests {
		e.RetryAfter = retryAfter(h.Get("Retry-After"))
	}
	return e
}

// retryAfter reads a Retry-After header in seconds or as an HTTP date.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var secs int
	if _, err := fmt.Sscanf(v, "%d", &secs); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t).Round(time.Second); d > 0 {
			return d
		}
	}
	return 0
}
