package gateway_test

import (
	"bufio"
	"bytes"

	"net/http"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/schemas"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// conform checks one answer of farebox against OpenAI's published spec:
// a stream event by event (and that nothing but the named [DONE]
// deviation follows the terminal event), a JSON answer as a Response, any
// other status as an ErrorResponse. It returns the stream's events (or
// the one body) for the caller's own assertions.
func conform(t *testing.T, res *http.Response, body []byte) []string {
	t.Helper()
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		name := "error_body"
		if res.StatusCode == http.StatusOK {
			name = "response"
		}
		if err := schemas.Validate(name, body); err != nil {
			t.Errorf("%d answer is not conformant: %v\n%s", res.StatusCode, err, body)
		}
		return []string{string(body)}
	}
	var events []string
	terminal, done := false, false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		switch {
		case done:
			t.Errorf("data after [DONE]: %s", data)
		case data == "[DONE]":
			if !terminal {
				t.Errorf("[DONE] (deviation %s) before the terminal event", schemas.DeviationDone)
			}
			done = true
		case terminal:
			t.Errorf("an event after the terminal one: %s", data)
		default:
			if err := schemas.ValidateEvent([]byte(data)); err != nil {
				t.Errorf("event is not conformant: %v\n%s", err, data)
			}
			if gjson.Get(data, "sequence_number").Int() != int64(len(events)) {
				t.Errorf("sequence_number %d, want %d", gjson.Get(data, "sequence_number").Int(), len(events))
			}
			switch gjson.Get(data, "type").Str {
			case "response.completed", "response.incomplete", "response.failed":
				terminal = true
			}
			events = append(events, data)
		}
	}
	if !terminal || !done {
		t.Errorf("stream ended without a terminal event and [DONE] (terminal %v, done %v)", terminal, done)
	}
	return events
}

// last is the final response object of a stream's events or a JSON body.
func last(events []string) gjson.Result {
	l := events[len(events)-1]
	if r := gjson.Get(l, "response"); r.Exists() {
		return r
	}
	return gjson.Parse(l)
}

// Every kind of answer farebox gives validates against OpenAI's spec, both
// streamed and not: text, several function calls, custom tool calls,
// reasoning with summaries and encrypted content, a model's refusal,
// incomplete, failed, and
// the error bodies of 400, 404, 413, 503 (the upstream's 429) and 502.
func TestConformanceEveryAnswerValidatesAgainstTheSpec(t *testing.T) {
	testenv.SkipShort(t, "an in-process gateway and fake upstream")
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	model := func(name, kind, upstreamModel string) gateway.ModelConfig {
		return gateway.ModelConfig{Name: name, Upstream: kind, UpstreamConfig: endpoint(kind, up.URL(), upstreamModel), Price: "0"}
	}
	cfg := gateway.Config{BodyLimit: 64 << 10, Models: []gateway.ModelConfig{
		{Name: "scripted", Upstream: "scripted", Price: "0"},
		model("reasoner", "openai", "reason"),
		model("incomplete", "openai", "fixture:incomplete"),
		model("failing", "openai", "fixture:failed_mid_stream"),
		model("breaking", "chat", "fixture:mid_stream_failure"),
		model("limited", "openai", "status:429"),
		model("down", "openai", "status:500"),
		model("refusing", "openai", "fixture:refusal"),
		model("refusing-chat", "chat", "fixture:refusal"),
	}}
	ts := startServer(t, cfg, gateway.Options{})
	weather := `{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`
	clock := `{"type":"function","name":"get_time","parameters":{"type":"object","properties":{"zone":{"type":"string"}}}}`
	patch := `{"type":"custom","name":"apply_patch","description":"Edit files."}`
	cases := []struct {
		name, body string
		status     int
		check      func(t *testing.T, final gjson.Result)
	}{
		{"text", `{"model":"scripted","input":"hello there"}`, 200, func(t *testing.T, r gjson.Result) {
			if r.Get("output.0.type").Str != "message" {
				t.Errorf("output %s", r.Get("output").Raw)
			}
		}},
		{"several function calls", `{"model":"scripted","input":"get_weather and get_time","tools":[` + weather + `,` + clock + `]}`, 200, func(t *testing.T, r gjson.Result) {
			if n := len(r.Get(`output.#(type=="function_call")#`).Array()); n != 2 {
				t.Errorf("%d function calls, want 2: %s", n, r.Get("output").Raw)
			}
		}},
		{"custom tool call", `{"model":"scripted","input":"use apply_patch","tools":[` + patch + `]}`, 200, func(t *testing.T, r gjson.Result) {
			if r.Get("output.0.type").Str != "custom_tool_call" {
				t.Errorf("output %s", r.Get("output").Raw)
			}
		}},
		{"reasoning with summaries and encrypted content", `{"model":"reasoner","input":"think, then get_weather","store":false,"include":["reasoning.encrypted_content"],"reasoning":{"summary":"auto"},"tools":[` + weather + `]}`, 200, func(t *testing.T, r gjson.Result) {
			rs := r.Get(`output.#(type=="reasoning")`)
			if !rs.Exists() || rs.Get("encrypted_content").Str == "" || len(rs.Get("summary").Array()) == 0 {
				t.Errorf("reasoning item %s", rs.Raw)
			}
		}},
		{"incomplete", `{"model":"incomplete","input":"go on"}`, 200, func(t *testing.T, r gjson.Result) {
			if r.Get("status").Str != "incomplete" || r.Get("incomplete_details.reason").Str != "max_output_tokens" {
				t.Errorf("status %s %s", r.Get("status"), r.Get("incomplete_details").Raw)
			}
		}},
		{"model refusal (Responses upstream)", `{"model":"refusing","input":"do something bad"}`, 200, func(t *testing.T, r gjson.Result) {
			if p := r.Get("output.0.content.0"); p.Get("type").Str != "refusal" || p.Get("refusal").Str != "I can't help with that." {
				t.Errorf("output %s", r.Get("output").Raw)
			}
		}},
		{"model refusal (Chat upstream)", `{"model":"refusing-chat","input":"do something bad"}`, 200, func(t *testing.T, r gjson.Result) {
			if p := r.Get("output.0.content.0"); p.Get("type").Str != "refusal" || p.Get("refusal").Str != "I can't help with that." {
				t.Errorf("output %s", r.Get("output").Raw)
			}
		}},
		{"refused: provider tool under tools.hosted drop is left out", `{"model":"scripted","input":"hi","tools":[{"type":"web_search"}]}`, 200, nil},
		{"refused: previous_response_id", `{"model":"scripted","input":"hi","previous_response_id":"resp_1"}`, 400, nil},
		{"refused: invalid JSON", `{"model":`, 400, nil},
		{"refused: unknown model", `{"model":"nope","input":"hi"}`, 404, nil},
		{"refused: too large", `{"model":"scripted","input":"` + strings.Repeat("x", 70<<10) + `"}`, 413, nil},
		{"upstream rate limited", `{"model":"limited","input":"hi"}`, 503, nil},
		{"upstream down", `{"model":"down","input":"hi"}`, 502, nil},
	}
	for _, tc := range cases {
		for _, stream := range []bool{false, true} {
			name := tc.name
			body := tc.body
			if stream {
				name += "/stream"
				if strings.HasPrefix(body, `{"model":"`) && strings.HasSuffix(body, "}") {
					body = body[:len(body)-1] + `,"stream":true}`
				}
			}
			t.Run(name, func(t *testing.T) {
				res, b := post(t, ts.URL+"/responses", body)
				if res.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %.300s", res.StatusCode, tc.status, b)
				}
				events := conform(t, res, b)
				if tc.check != nil && res.StatusCode == 200 {
					tc.check(t, last(events))
				}
			})
		}
	}

	// An upstream failure mid-stream ends with response.failed, the spec's
	// server_error, the upstream's message, and the usage produced: the
	// upstream's own report, or the documented count when it sent none.
	for _, tc := range []struct {
		model, words string
		output       int64 // 0: any count above 0
	}{{"failing", "upstream failed mid-stream", 7}, {"breaking", "unexpected EOF", 0}} {
		t.Run("failed mid-stream/"+tc.model, func(t *testing.T) {
			res, b := post(t, ts.URL+"/responses", `{"model":"`+tc.model+`","input":"tell me a story","stream":true}`)
			events := conform(t, res, b)
			r := last(events)
			if r.Get("status").Str != "failed" || r.Get("error.code").Str != "server_error" || !strings.Contains(r.Get("error.message").Str, tc.words) {
				t.Errorf("terminal response %s %s", r.Get("status"), r.Get("error").Raw)
			}
			out := r.Get("usage.output_tokens").Int()
			if (tc.output != 0 && out != tc.output) || out <= 0 {
				t.Errorf("usage %s: want the output produced before the failure", r.Get("usage").Raw)
			}
		})
	}

	// The routes that need stored responses answer a conformant 404 that
	// says why; the token count is a conformant TokenCountsResource.
	for _, rt := range []struct{ method, path string }{
		{"GET", "/responses/resp_1"}, {"DELETE", "/responses/resp_1"}, {"POST", "/responses/resp_1/cancel"},
		{"GET", "/responses/resp_1/input_items"}, {"POST", "/responses/compact"},
	} {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			req, _ := http.NewRequest(rt.method, ts.URL+rt.path, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b := readAll(t, res)
			if res.StatusCode != 404 || !strings.Contains(gjson.GetBytes(b, "error.message").Str, "stateless") {
				t.Errorf("%d %s", res.StatusCode, b)
			}
			conform(t, res, b)
		})
	}
	t.Run("models", func(t *testing.T) {
		res, err := http.Get(ts.URL + "/models")
		if err != nil {
			t.Fatal(err)
		}
		b := readAll(t, res)
		if err := schemas.ValidateOpenAI("ListModelsResponse", b); err != nil {
			t.Errorf("%v\n%s", err, b)
		}
		for _, m := range gjson.GetBytes(b, "data").Array() {
			if m.Get("created").Int() < 1_700_000_000 {
				t.Errorf("model %s created %d: not a real date", m.Get("id"), m.Get("created").Int())
			}
		}
	})
	t.Run("input_tokens", func(t *testing.T) {
		for _, tc := range []struct{ model, by string }{{"scripted", "estimate"}, {"reasoner", "upstream"}} {
			res, b := post(t, ts.URL+"/responses/input_tokens", `{"model":"`+tc.model+`","input":"count me","tools":[`+weather+`]}`)
			if res.StatusCode != 200 {
				t.Fatalf("%d %s", res.StatusCode, b)
			}
			if err := schemas.ValidateOpenAI("TokenCountsResource", b); err != nil {
				t.Errorf("%v\n%s", err, b)
			}
			if got := gjson.GetBytes(b, "x402.counted_by").Str; got != tc.by {
				t.Errorf("%s counted by %q, want %q: %s", tc.model, got, tc.by, b)
			}
			if tc.by == "upstream" && gjson.GetBytes(b, "input_tokens").Int() != fakeupstream.InputTokens {
				t.Errorf("%s: %s, want the upstream's count", tc.model, b)
			}
		}
		// The spec lets a count leave input out.
		if res, b := post(t, ts.URL+"/responses/input_tokens", `{"model":"scripted","instructions":"be brief","tools":[`+weather+`]}`); res.StatusCode != 200 || gjson.GetBytes(b, "input_tokens").Int() <= 0 {
			t.Errorf("a count without input: %d %s", res.StatusCode, b)
		}
		// A conversation is counted under body_limit, not the small limit
		// of bodiless routes.
		res, b := post(t, ts.URL+"/responses/input_tokens", `{"model":"scripted","input":"`+strings.Repeat("x", 10<<10)+`"}`)
		if res.StatusCode != 200 || gjson.GetBytes(b, "input_tokens").Int() < 10<<10/4 {
			t.Errorf("a 10 KiB conversation: %d %.300s", res.StatusCode, b)
		}
		recs := up.Records()
		var sent []byte
		for _, r := range recs {
			if r.Path == "/v1/responses/input_tokens" {
				sent = r.Body
			}
		}
		if sent == nil || gjson.GetBytes(sent, "stream").Exists() || !gjson.GetBytes(sent, "tools").IsArray() {
			t.Errorf("the upstream's count got %s: want the request's TokenCountsBody fields only", sent)
		}
	})
}

func readAll(t *testing.T, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A paid model's answers conform too: the 402 (an ErrorResponse naming
// farebox proxy for clients that cannot pay), the 409 of a payment
// identifier reused with another payment, and the token count whose quote
// is what the call is then charged, on chain.
func TestConformancePaidAnswersAndTheQuote(t *testing.T) {
	ts, c := startPaid(t, "after")
	body := `{"model":"` + paid + `","input":"a quoted call"}`

	res, b := post(t, ts.URL+"/responses", body)
	if res.StatusCode != http.StatusPaymentRequired || !strings.Contains(gjson.GetBytes(b, "error.message").Str, "farebox proxy --upstream") {
		t.Errorf("402: %d %s", res.StatusCode, b)
	}
	conform(t, res, b)

	res, b = post(t, ts.URL+"/responses/input_tokens", body)
	if res.StatusCode != 200 {
		t.Fatalf("input_tokens: %d %s", res.StatusCode, b)
	}
	if err := schemas.ValidateOpenAI("TokenCountsResource", b); err != nil {
		t.Error(err)
	}
	quoted := gjson.GetBytes(b, "x402.atomic").Int()
	offers, err := x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil || len(offers) != 1 || offers[0].Amount != gjson.GetBytes(b, "x402.atomic").Str {
		t.Errorf("the quote's PAYMENT-REQUIRED header %v %v, want one offer of %d", offers, err, quoted)
	}

	signer := payer.NewSigner(c.PayerKey)
	name, header, err := signer.PaymentHeader(offerFor(t, ts, c), 2)
	if err != nil {
		t.Fatal(err)
	}
	before := tokenBalance(t, c, c.Payer)
	res, b = post(t, ts.URL+"/responses", body, name, withPaymentID(t, header, "quoted-call-0123456789"))
	if res.StatusCode != 200 {
		t.Fatalf("paid call: %d %s", res.StatusCode, b)
	}
	conform(t, res, b)
	if spent := before.Int64() - tokenBalance(t, c, c.Payer).Int64(); spent != quoted || quoted == 0 {
		t.Errorf("charged %d, quoted %d", spent, quoted)
	}
	_, other, err := signer.PaymentHeader(offerFor(t, ts, c), 2)
	if err != nil {
		t.Fatal(err)
	}
	res, b = post(t, ts.URL+"/responses", body, name, withPaymentID(t, other, "quoted-call-0123456789"))
	if res.StatusCode != http.StatusConflict {
		t.Errorf("the same payment id with another payment: %d %s", res.StatusCode, b)
	}
	conform(t, res, b)
}

// A per-token model's quote bounds what the call is charged: the input
// part at the count, the ceiling above every charge (exact, which moves
// exactly what it signs, pays the ceiling).
func TestConformancePerTokenQuoteBoundsTheCharge(t *testing.T) {
	ts, c := startMetered(t, nil)
	body := `{"model":"` + metered + `","input":"a metered quote"}`
	res, b := post(t, ts.URL+"/responses/input_tokens", body)
	if res.StatusCode != 200 {
		t.Fatalf("input_tokens: %d %s", res.StatusCode, b)
	}
	if err := schemas.ValidateOpenAI("TokenCountsResource", b); err != nil {
		t.Error(err)
	}
	q := gjson.GetBytes(b, "x402")
	count := gjson.GetBytes(b, "input_tokens").Int()
	if q.Get("unit").Str != "token" || q.Get("max_atomic_per_call").Int() != ceilingAtomics ||
		q.Get("input_atomic").Int() != (count*inputPerMTok+999_999)/1_000_000 {
		t.Fatalf("quote %s for %d tokens", q.Raw, count)
	}
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	tr := payer.NewTransport(payer.NewSigner(c.PayerKey), payer.WithNetworks(reg), payer.WithSchemes(x402.SchemeExact))
	before := tokenBalance(t, c, c.Payer)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/responses", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	paidRes, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pb := readAll(t, paidRes)
	if paidRes.StatusCode != 200 {
		t.Fatalf("paid call: %d %s", paidRes.StatusCode, pb)
	}
	conform(t, paidRes, pb)
	charged := before.Int64() - tokenBalance(t, c, c.Payer).Int64()
	if charged > q.Get("max_atomic_per_call").Int() || charged < q.Get("input_atomic").Int() {
		t.Errorf("charged %d, outside the quote %s", charged, q.Raw)
	}
}
