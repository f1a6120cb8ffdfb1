package payer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SellerText is text a seller sent (a receipt's transaction, network or
// error reason, an error message), made safe to print: a seller must not
// be able to forge a log line or drive the user's terminal, so control
// characters (escape sequences, newlines), bidirectional overrides and
// invalid UTF-8 are shown escaped, and it is cut at 300 bytes.
func SellerText(s string) string {
	var b strings.Builder
	for i, r := range s {
		if b.Len() > 300 {
			b.WriteString("...")
			break
		}
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
