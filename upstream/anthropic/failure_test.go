package anthropic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
)

// Anthropic's own failures are the supplier's: a pool fails over from them
// before the first byte and counts them against the supplier's circuit;
// a 400 is the client's, reaching it in Anthropic's (cleaned) words.
func TestFailuresAreClassifiedLikeTheOtherUpstreams(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	for _, tc := range []struct {
		model      string
		status     int
		code       string
		kind       pool.Kind
		retryAfter time.Duration
		message    string
	}{
		{"status:529", 502, "server_error", pool.KindUpstream, 0, "overloaded_error"},
		{"status:500", 502, "server_error", pool.KindUpstream, 0, "api_error"},
		{"status:429+retry_after=7", 503, "rate_limit_exceeded", pool.KindRateLimited, 7 * time.Second, "rate_limit_error"},
		{"status:401", 502, "server_error", pool.KindUpstream, 0, "refused farebox's credentials"},
		{"status:400", 400, "", pool.KindClient, 0, "fake failure 400"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			for _, stream := range []bool{true, false} {
				o := once(t, newModel(t, s, Config{Model: tc.model}), `{"model":"claude","input":"x"}`, responses.ProviderView{}, stream)
				e := asError(t, o.err)
				if o.started || e.Status != tc.status || e.Code != tc.code || e.RetryAfter != tc.retryAfter || !strings.Contains(e.Message, tc.message) {
					t.Errorf("stream %v: started %v, %d %s retry %s %q", stream, o.started, e.Status, e.Code, e.RetryAfter, e.Message)
				}
				kind := pool.Classify(context.Background(), o.err)
				if kind != tc.kind || kind.Retried() != (tc.kind != pool.KindClient) || kind.SuppliersFault() != (tc.kind != pool.KindClient) {
					t.Errorf("stream %v: classified %s", stream, kind)
				}
			}
		})
	}
}

// An error event after output began ends the call with an error the
// gateway turns into response.failed; the text streamed so far stays.
func TestMidStreamErrorFailsAfterOutput(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	o := once(t, newModel(t, s, Config{Model: "error_midstream"}), `{"model":"claude","input":"x"}`, responses.ProviderView{}, true)
	e := asError(t, o.err)
	if !o.started || e.Status != 502 || !strings.Contains(e.Message, "Overloaded") || !strings.Contains(e.Message, "overloaded_error") {
		t.Errorf("started %v, %d %q", o.started, e.Status, e.Message)
	}
	if o.final.Get("status").Str != "failed" || o.final.Get("output.0.content.0.text").Str == "" {
		t.Errorf("final %s", o.final.Raw)
	}
}

// The mapper keeps what a partial stream said and refuses events that
// make no sense: a delta for a block that never started, non-JSON.
func TestMapperRefusesMalformedEvents(t *testing.T) {
	var out stopless
	mp := newMapper(&out, nil)
	for _, ev := range []string{`{"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`} {
		if err := mp.event([]byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	mp.report()
	if mp.stopped || out.text != "hi" || out.usage.InputTokens != 3 {
		t.Errorf("stopped %v, text %q, usage %+v", mp.stopped, out.text, out.usage)
	}
	if err := mp.event([]byte(`{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"x"}}`)); err == nil {
		t.Error("a delta for a block that never started was accepted")
	}
	if err := mp.event([]byte(`not json`)); err == nil {
		t.Error("an event that is not JSON was accepted")
	}
}

// stopless is an Output keeping text and usage.
type stopless struct {
	responses.Output
	text  string
	usage responses.Usage
}

func (s *stopless) Text(d string) error        { s.text += d; return nil }
func (s *stopless) SetUsage(u responses.Usage) { s.usage = u }

// The client going away mid-stream ends the call to Anthropic: nobody is
// left to pay for more tokens.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	m := newModel(t, s, Config{Model: "stall"})
	req := upstreamtest.Parse(t, `{"model":"claude","input":"x","stream":true}`)
	ctx, cancel := context.WithCancel(context.Background())
	first := &cancelOnFirst{cancel: cancel}
	em := responses.NewEmitter(req, first, upstreamtest.EmitterOptions(req.Model))
	err := m.Respond(ctx, req, em)
	if !errors.Is(err, context.Canceled) || !em.Started() {
		t.Errorf("Respond: %v (started %v), want the abandoned call", err, em.Started())
	}
	rec, lerr := s.Last()
	if lerr != nil {
		t.Fatal(lerr)
	}
	select {
	case <-rec.Done:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request outlived the client")
	}
}

// cancelOnFirst is a sink that cancels the call at its first event: the
// client leaving once output began.
type cancelOnFirst struct{ cancel context.CancelFunc }

func (c *cancelOnFirst) Event(string, []byte) error { c.cancel(); return nil }

// A whole message arrives only when the model is done: the first-byte
// timeout of a stream does not cut it, the call's total does.
func TestWholeMessageIsBoundByTheTotalTimeout(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	body := `{"model":"claude","input":"x"}`
	tm := upstreamhttp.Timeouts{FirstByte: 20 * time.Millisecond, Total: 10 * time.Second}
	if o := once(t, newModel(t, s, Config{Model: "text+delay=200ms", Timeouts: tm}), body, responses.ProviderView{}, false); o.err != nil {
		t.Errorf("a slow whole message failed: %v", o.err)
	}
	tm.Total = 50 * time.Millisecond
	o := once(t, newModel(t, s, Config{Model: "text+delay=2s", Timeouts: tm}), body, responses.ProviderView{}, false)
	if e := asError(t, o.err); e.Status != 504 {
		t.Errorf("past the total: %d %q", e.Status, e.Message)
	}
}

// Blocks whose events interleave (a later block starting before an earlier
// one stopped) still reach the client whole and in index order.
func TestInterleavedBlocksReachTheClientInOrder(t *testing.T) {
	req := upstreamtest.Parse(t, `{"model":"claude","input":"x","tools":`+weatherTools+`}`)
	em := responses.NewEmitter(req, upstreamtest.NewRecorder(t), upstreamtest.EmitterOptions(req.Model))
	mp := newMapper(em, nil)
	for _, ev := range []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":"}}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_b","name":"get_time","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"b\"}"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"a\"}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`,
		`{"type":"message_stop"}`,
	} {
		if err := mp.event([]byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	if err := em.Complete(nil); err != nil {
		t.Fatal(err)
	}
	calls := gjson.GetBytes(em.Response(), "output").Array()
	if len(calls) != 2 || calls[0].Get("call_id").Str != "toolu_a" || calls[0].Get("arguments").Str != `{"query":"a"}` ||
		calls[1].Get("call_id").Str != "toolu_b" || calls[1].Get("arguments").Str != `{"query":"b"}` {
		t.Errorf("output %s", gjson.GetBytes(em.Response(), "output").Raw)
	}
	if err := mp.event([]byte(`{"type":"content_block_stop","index":0}`)); err == nil {
		t.Error("a block stopped twice was accepted")
	}
}
