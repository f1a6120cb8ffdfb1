package gateway_test

import (
	"bytes"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakegemini"
	"github.com/farebox/farebox/upstream"
	upgemini "github.com/farebox/farebox/upstream/gemini"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/upto"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Gemini behind farebox: an `upstream: gemini` model (the fake Gemini
// server, itself held to the official Go SDK) reached from the Responses
// and Chat Completions wires, its thought signatures kept across turns.

const geminiName = "gemini-2.5-flash"

func geminiModel(fake *fakegemini.Server, behaviour string) gateway.ModelConfig {
	return gateway.ModelConfig{Name: geminiName, Upstream: upgemini.Kind, Price: "0",
		UpstreamConfig: &upgemini.Settings{Endpoint: upstream.Endpoint{BaseURL: fake.URL(), UpstreamModel: behaviour, APIKeyEnv: "GEMINI_API_KEY"}}}
}

func geminiEnv(k string) string { return map[string]string{"GEMINI_API_KEY": "gm-test"}[k] }

const geminiTools = `"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},` +
	`{"type":"function","name":"get_time","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`

// respond posts a Responses request through client, streamed or not, and
// returns the final response object (a stream's response.completed).
func respond(t *testing.T, client *http.Client, url, body string, stream bool) (int, gjson.Result) {
	t.Helper()
	if stream {
		body, _ = sjson.Set(body, "stream", true)
	}
	res, err := client.Post(url+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if !stream || res.StatusCode != http.StatusOK {
		return res.StatusCode, gjson.ParseBytes(b)
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			if ev := gjson.ParseBytes(data); ev.Get("type").Str == "response.completed" || ev.Get("type").Str == "response.incomplete" {
				return res.StatusCode, ev.Get("response")
			}
		}
	}
	t.Fatalf("stream without a final response: %s", b)
	return 0, gjson.Result{}
}

// geminiToolTurns runs a tool conversation of turns turns (tools called on
// all but the last) with the reasoning items sent back, and returns the
// final input and the last answer.
func geminiToolTurns(t *testing.T, client *http.Client, url string, turns int, stream bool, each func(gjson.Result)) (string, gjson.Result) {
	t.Helper()
	input := `[{"role":"user","content":"Weather and time in Paris?"}]`
	var last gjson.Result
	for turn := 1; turn <= turns; turn++ {
		status, r := respond(t, client, url, `{"model":"`+geminiName+`","include":["reasoning.encrypted_content"],`+geminiTools+`,"input":`+input+`}`, stream)
		if status != http.StatusOK || r.Get("status").Str != "completed" {
			t.Fatalf("turn %d: %d %s", turn, status, r.Raw)
		}
		if each != nil {
			each(r)
		}
		last = r
		if turn == turns {
			break
		}
		out := r.Get("output").Array()
		if len(out) < 2 || !strings.HasPrefix(out[0].Get("encrypted_content").Str, "gemini.thought:") {
			t.Fatalf("turn %d without a signed reasoning item before its calls: %s", turn, r.Get("output").Raw)
		}
		for _, it := range out {
			input, _ = sjson.SetRaw(input, "-1", it.Raw)
		}
		for _, it := range out {
			if it.Get("type").Str == "function_call" {
				input, _ = sjson.SetRaw(input, "-1", `{"type":"function_call_output","call_id":"`+it.Get("call_id").Str+`","output":"sunny"}`)
			}
		}
	}
	return input, last
}

// Three turns of parallel tool calls over the Responses wire, streamed and
// not: each turn's signed reasoning item goes back as it came and the
// upstream (which verifies every signature) accepts the conversation; an
// altered signature is Gemini's 400, passed on as the client's error.
func TestGeminiToolRoundTripKeepsThoughtSignatures(t *testing.T) {
	for _, stream := range []bool{false, true} {
		fake := fakegemini.Start(fakegemini.Options{APIKey: "gm-test"})
		defer fake.Close()
		ts := startServer(t, gateway.Config{Models: []gateway.ModelConfig{geminiModel(fake, "call+rounds=2")}}, gateway.Options{Getenv: geminiEnv})
		input, last := geminiToolTurns(t, http.DefaultClient, ts.URL, 3, stream, nil)
		if txt := last.Get(`output.#(type=="message").content.0.text`).Str; !strings.Contains(txt, "get_weather said") {
			t.Errorf("stream %v, last turn: %s", stream, last.Raw)
		}
		r, _ := fake.Last()
		if n := strings.Count(string(r.Body), `"thoughtSignature"`); n != 2 {
			t.Errorf("stream %v: %d signatures went back on the third turn, want 2: %s", stream, n, r.Body)
		}
		altered := strings.Replace(input, "gemini.thought:", "gemini.thought:x", 1)
		status, e := respond(t, http.DefaultClient, ts.URL, `{"model":"`+geminiName+`",`+geminiTools+`,"input":`+altered+`}`, stream)
		if status != http.StatusBadRequest || !strings.Contains(e.Get("error.message").Str, "thought signature") {
			t.Errorf("stream %v, altered signature: %d %s", stream, status, e.Raw)
		}
	}
}

// Safety blocks reach the client as refusals or incomplete answers, on the
// Responses wire (streamed and not) and in Chat Completions' refusal.
func TestGeminiSafetyBlocksAreRefusals(t *testing.T) {
	fake := fakegemini.Start(fakegemini.Options{APIKey: "gm-test"})
	defer fake.Close()
	var models []gateway.ModelConfig
	for _, b := range []string{"safety", "blocked", "finish:SAFETY"} {
		m := geminiModel(fake, b)
		m.Name = "gemini-" + b
		models = append(models, m)
	}
	ts := startServer(t, gateway.Config{Models: models}, gateway.Options{Getenv: geminiEnv})
	for _, stream := range []bool{false, true} {
		for _, b := range []string{"safety", "blocked"} {
			status, r := respond(t, http.DefaultClient, ts.URL, `{"model":"gemini-`+b+`","input":"Hi"}`, stream)
			if status != http.StatusOK || r.Get("output.0.content.0.type").Str != "refusal" || r.Get("output.0.content.0.refusal").Str == "" {
				t.Errorf("%s stream %v: %d %s", b, stream, status, r.Raw)
			}
		}
		status, r := respond(t, http.DefaultClient, ts.URL, `{"model":"gemini-finish:SAFETY","input":"Hi"}`, stream)
		if status != http.StatusOK || r.Get("status").Str != "incomplete" || r.Get("incomplete_details.reason").Str != "content_filter" {
			t.Errorf("partial answer stopped for safety, stream %v: %d %s", stream, status, r.Raw)
		}
	}
	res, body := post(t, ts.URL+"/chat/completions", `{"model":"gemini-blocked","messages":[{"role":"user","content":"Hi"}]}`)
	if res.StatusCode != http.StatusOK || gjson.GetBytes(body, "choices.0.message.refusal").Str == "" {
		t.Errorf("chat: %d %s", res.StatusCode, body)
	}
}

// A Gemini model priced per token, paid with upto by farebox's Go paying
// transport: each turn of a tool round trip is charged exactly its use,
// thoughts billed as output, and the chain agrees.
func TestGeminiPaidPerTokenPerTurn(t *testing.T) {
	fake := fakegemini.Start(fakegemini.Options{APIKey: "gm-test", Usage: fakegemini.Usage{Prompt: 40, Cached: 30, Candidates: 9, Thoughts: 7}})
	defer fake.Close()
	cfg, opts, c := meteredConfig(t, nil)
	m := geminiModel(fake, "call")
	m.Price, m.PricePerMTok = "", &meteredPrice
	cfg.Models = append(cfg.Models, m)
	opts.Getenv = geminiEnv
	ts := startServer(t, cfg, opts)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	key := freshPayer(t, c, 1_000_000, false)
	before := tokenBalance(t, c, addressOf(key))
	var mu sync.Mutex
	var got []*payer.Settlement
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
		payer.WithSchemes(upto.Scheme), payer.WithPayTo(common.HexToAddress(payTo)),
		payer.OnSettlement(func(s *payer.Settlement) { mu.Lock(); got = append(got, s); mu.Unlock() }))
	// 40 input tokens at 1.25 and 9 + 7 output tokens at 10 per million.
	const want = (40*inputPerMTok + 16*outputPerMTok + 999_999) / 1_000_000
	turns := 0
	geminiToolTurns(t, &http.Client{Transport: tr}, ts.URL, 2, false, func(r gjson.Result) {
		turns++
		u := r.Get("usage")
		if u.Get("input_tokens").Int() != 40 || u.Get("input_tokens_details.cached_tokens").Int() != 30 ||
			u.Get("output_tokens").Int() != 16 || u.Get("output_tokens_details.reasoning_tokens").Int() != 7 {
			t.Errorf("turn %d usage: %s", turns, u.Raw)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != turns || got[turns-1].Charged == nil || got[turns-1].Charged.Int64() != want {
			t.Errorf("turn %d: settlements %+v, want %d charged", turns, got, want)
		}
	})
	spent := new(big.Int).Sub(before, tokenBalance(t, c, addressOf(key)))
	if spent.Int64() != 2*want {
		t.Errorf("the payer spent %s for two turns at %d", spent, want)
	}
}
