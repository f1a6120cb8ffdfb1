// Package jsonstr writes JSON strings as encoding/json does, without
// reflection, for the code that appends JSON by hand on a hot path (the
// response emitter's deltas, the settlement journal's entries): one
// escaper, with or without encoding/json's default HTML escaping.
package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// safe and htmlSafe are encoding/json's safeSet and htmlSafeSet: the ASCII
// bytes a string holds as they are (printable ones but " and \, and for
// htmlSafe neither <, > nor &; DEL is kept).
var safe, htmlSafe = func() (plain, html [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
		html[c] = plain[c] && c != '<' && c != '>' && c != '&'
	}
	return plain, html
}()

// AppendEscaped appends s escaped as encoding/json writes a string's
// contents, without the quotes: ", \ and control characters escaped (\b,
// \f, \n, \r and \t short), invalid UTF-8 as \ufffd, U+2028 and U+2029 as
// \u2028 and \u2029 (so the output is also a JavaScript literal); with html
// also <, > and & as \u003c, \u003e and \u0026 (json.Marshal's default;
// without it, an Encoder's SetEscapeHTML(false)).
func AppendEscaped(b []byte, s string, html bool) []byte {
	set := &safe
	if html {
		set = &htmlSafe
	}
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if set[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}

// Append appends s as a quoted JSON string (see AppendEscaped).
func Append(b []byte, s string, html bool) []byte {
	b = AppendEscaped(append(b, '"'), s, html)
	return append(b, '"')
}
