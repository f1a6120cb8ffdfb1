package upstreamhttp

import (
	"errors"
	"strings"
	"testing"
)

// An upstream's words reach the client without its address or any
// credential they quote, and with the rest of what it said.
func TestCleanStripsAddressesAndSecrets(t *testing.T) {
	for _, tc := range []struct{ in, keep string }{
		{`Post "http://10.1.2.3:8000/v1/chat/completions": connection refused`, "connection refused"},
		{"Incorrect API key provided: sk-proj-ABCDEFGH12345678. You can find your API key at https://platform.openai.com/account/api-keys.", "Incorrect API key provided"},
		{"dial tcp vllm.internal:8000: i/o timeout", "i/o timeout"},
		{"authorization: Bearer abc.def.ghi was refused", "was refused"},
		{`{"api_key": "hunter2hunter2"} is invalid`, "is invalid"},
		{"signer key 0x" + strings.Repeat("ab", 32) + " unusable", "unusable"},
	} {
		got := Clean(tc.in)
		for _, secret := range []string{"10.1.2.3", "8000", "sk-proj", "platform.openai.com", "vllm.internal", "abc.def.ghi", "hunter2", strings.Repeat("ab", 32)} {
			if strings.Contains(got, secret) {
				t.Errorf("Clean(%q) = %q: leaks %q", tc.in, got, secret)
			}
		}
		if !strings.Contains(got, tc.keep) {
			t.Errorf("Clean(%q) = %q: lost %q", tc.in, got, tc.keep)
		}
	}
}

// An upstream's 5xx and its own failure reports keep its message and code
// in the message, under the spec's code.
func TestUpstreamFailuresKeepTheUpstreamsWords(t *testing.T) {
	e := FromStatus(500, nil, []byte(`{"error":{"message":"model crashed at http://10.0.0.1:9000/x","code":"engine_overloaded"}}`))
	if e.Code != "server_error" || !strings.Contains(e.Message, "model crashed") || !strings.Contains(e.Message, "engine_overloaded") || strings.Contains(e.Message, "10.0.0.1") {
		t.Errorf("FromStatus: %s %q", e.Code, e.Message)
	}
	f := Failed("rate_limit_exceeded", "slow down", errors.New("x"))
	if f.Code != "rate_limit_exceeded" || !strings.Contains(f.Message, "slow down") {
		t.Errorf("Failed: %s %q", f.Code, f.Message)
	}
	if f := Failed("weird_code", "boom", errors.New("x")); f.Code != "server_error" || !strings.Contains(f.Message, "weird_code") {
		t.Errorf("Failed: %s %q", f.Code, f.Message)
	}
}
