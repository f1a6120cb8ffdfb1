package responses

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEmitterEscapesText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, `plain`},
		{`"quoted" \ back`, `"quoted" \ back`},
		{"line\nbreak\r\ttab", "line\nbreak\r\ttab"},
		{"nul\x00 bell\x07 esc\x1b del\x7f", "nul\x00 bell\x07 esc\x1b del\x7f"},
		{"sep\u2028para\u2029", "sep\u2028para\u2029"},
		{"emoji 🦀 é 中", "emoji 🦀 é 中"},
		{"bad \xff\xfe utf8", "bad \ufffd\ufffd utf8"},
		{"cut \xe4\xb8", "cut \ufffd\ufffd"},
		{"</script><!--", "</script><!--"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			rec := &recorder{}
			em := NewEmitter(&Request{}, rec, testOptions())
			_ = em.Text(tt.in)
			_ = em.Complete(nil)
			checkStream(t, rec.events)
			var r struct {
				Output []wireItem
			}
			if err := json.Unmarshal(em.Response(), &r); err != nil {
				t.Fatal(err)
			}
			if got := r.Output[0].Content[0].Text; got != tt.want {
				t.Fatalf("text %q, want %q", got, tt.want)
			}
			for _, ev := range rec.events {
				if bytes.Contains(ev.data, []byte("\u2028")) || !utf8.Valid(ev.data) {
					t.Fatalf("raw U+2028 or invalid UTF-8 in %s", ev.data)
				}
			}
		})
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00\x1f", "\u2028", "\xff", "é🦀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := outString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q -> invalid JSON %s: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); utf8.ValidString(s) && got != want {
			t.Fatalf("%q -> %q", s, got)
		}
		if bytes.ContainsAny(b, "\n\r") || !utf8.Valid(b) {
			t.Fatalf("%q -> %q is not one valid line", s, b)
		}
	})
}
