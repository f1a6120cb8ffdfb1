package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// marshal is encoding/json's string, with or without HTML escaping.
func marshal(t *testing.T, s string, html bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// FuzzAppendMatchesEncodingJSON holds Append to encoding/json byte for
// byte, with HTML escaping and without.
func FuzzAppendMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\x00\x1f\b\f\n\r\t\x7f", "<a href=\"x\">&</a>",
		"\u2028\u2029", "\xff\xfe", "é🦀", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			if got, want := Append(nil, s, html), marshal(t, s, html); !bytes.Equal(got, want) {
				t.Fatalf("Append(%q, html=%v) = %s, encoding/json: %s", s, html, got, want)
			}
		}
	})
}
