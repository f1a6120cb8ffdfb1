package upstreamhttp

import (
	"regexp"
	"strings"
)

// What an upstream's words may carry that a client must not see: the
// upstream's address (a URL, a host:port) and credentials (API keys,
// bearer tokens, 32-byte hex secrets).
var (
	cleanURL     = regexp.MustCompile(`(?i)\b(?:https?|wss?)://[^\s"'<>]+`)
	cleanAddress = regexp.MustCompile(`\b(?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]+:\d{2,5}\b`)
	cleanBearer  = regexp.MustCompile(`(?i)\bbearer\s+[^\s"']+`)
	cleanKey     = regexp.MustCompile(`\b(?:sk|rk|pk|ak|key|sess|org|proj)[-_][A-Za-z0-9_\-]{8,}`)
	cleanHex     = regexp.MustCompile(`\b0x[0-9a-fA-F]{64}\b`)
	cleanAssign  = regexp.MustCompile(`(?i)\b(api[_-]?key|token|secret|password)(["']?\s*[:=]\s*["']?)[^\s"',}]+`)
)

// Clean makes an upstream's message safe to show a client: addresses and
// credentials replaced, whitespace collapsed, at most maxMessage bytes.
func Clean(s string) string {
	if s == "" {
		return ""
	}
	s = cleanURL.ReplaceAllString(s, "[upstream URL]")
	s = cleanBearer.ReplaceAllString(s, "Bearer [redacted]")
	s = cleanAssign.ReplaceAllString(s, "${1}${2}[redacted]")
	s = cleanKey.ReplaceAllString(s, "[redacted]")
	s = cleanHex.ReplaceAllString(s, "[redacted]")
	s = cleanAddress.ReplaceAllString(s, "[upstream address]")
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimSuffix(Truncate(s, maxMessage), ".")
}
