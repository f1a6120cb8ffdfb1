package gateway_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestWireBooksCountCallsPerWire: the books split a model's calls by the
// client wire they came on, streamed or not, and the admin API's summary
// says so per model and in the totals; a call refused before the model
// ran counts on no wire.
func TestWireBooksCountCallsPerWire(t *testing.T) {
	root := startAdmin(t)
	const m = "farebox-scripted-free"
	calls := []struct{ path, body string }{
		{"/v1/responses", `{"model":"` + m + `","input":"hi"}`},
		{"/v1/responses", `{"model":"` + m + `","input":"hi","stream":true}`},
		{"/v1/chat/completions", `{"model":"` + m + `","messages":[{"role":"user","content":"hi"}]}`},
		{"/v1/chat/completions", `{"model":"` + m + `","messages":[{"role":"user","content":"hi"}],"stream":true}`},
		{"/v1/chat/completions", `{"model":"` + m + `","messages":[{"role":"user","content":"hi"}]}`},
		{"/v1/messages", `{"model":"` + m + `","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"stream":true}`},
	}
	for _, c := range calls {
		if res, b := post(t, root+c.path, c.body, "anthropic-version", "2023-06-01"); res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", c.path, res.StatusCode, b)
		}
	}
	// Refused before the model ran (n=2, no max_tokens): no wire's call.
	if res, _ := post(t, root+"/v1/chat/completions", `{"model":"`+m+`","n":2,"messages":[{"role":"user","content":"hi"}]}`); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("n=2: %d", res.StatusCode)
	}
	if res, _ := post(t, root+"/v1/messages", `{"model":"`+m+`","messages":[{"role":"user","content":"hi"}]}`); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("no max_tokens: %d", res.StatusCode)
	}
	status, _, b := do(t, "GET", root+"/admin/api/summary", nil, "Authorization", "Bearer "+adminToken)
	type figures struct {
		Calls int64            `json:"calls"`
		Wires map[string]int64 `json:"wires"`
	}
	var sum struct {
		Models map[string]figures `json:"models"`
		Totals figures            `json:"totals"`
	}
	if status != http.StatusOK || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("summary: %d %s", status, b)
	}
	want := map[string]int64{"responses": 2, "chat": 3, "messages": 1}
	for name, f := range map[string]figures{"the model": sum.Models[m], "the totals": sum.Totals} {
		if f.Calls != 6 || len(f.Wires) != len(want) {
			t.Errorf("%s: %+v, want 6 calls on 3 wires (%s)", name, f, b)
		}
		for w, n := range want {
			if f.Wires[w] != n {
				t.Errorf("%s: %d calls on %s, want %d", name, f.Wires[w], w, n)
			}
		}
	}
}
