package responses

import "testing"

// BenchmarkParse parses a realistic request: a three-turn conversation
// (user, reasoning, two calls and their outputs, an assistant reply, a user
// turn with an image) with three tools, flat and nested.
func BenchmarkParse(b *testing.B) {
	body := readParseFile(b, "conversation.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Parse(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSmall parses the smallest request a client sends.
func BenchmarkParseSmall(b *testing.B) {
	body := []byte(`{"model":"farebox-scripted","input":"Say hello."}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsJSON measures the echo of three canonical tools.
func BenchmarkToolsJSON(b *testing.B) {
	r := mustParse(b, readParseFile(b, "conversation.json"))
	b.ReportAllocs()
	for b.Loop() {
		_ = ToolsJSON(r.Tools)
	}
}

// BenchmarkScanShape measures the one pass that bounds nesting and finds
// duplicate keys, on the realistic request of BenchmarkParse.
func BenchmarkScanShape(b *testing.B) {
	body := readParseFile(b, "conversation.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if s := scanShape(body); s.deep || s.dup != "" {
			b.Fatal(s)
		}
	}
}
