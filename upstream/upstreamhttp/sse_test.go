package upstreamhttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// decodeAll reads every event of stream with a cap of max bytes.
func decodeAll(r io.Reader, max int) ([]Event, error) {
	d := newDecoder(r, max)
	var evs []Event
	for d.next() {
		evs = append(evs, d.ev)
	}
	return evs, d.err
}

func TestDecoderRules(t *testing.T) {
	cases := []struct {
		name, in string
		want     []Event
	}{
		{"one event", "data: {\"a\":1}\n\n", []Event{{Data: []byte(`{"a":1}`)}}},
		{"named", "event: response.created\ndata: x\n\n", []Event{{Type: "response.created", Data: []byte("x")}}},
		{"multi-line data", "data: one\ndata: two\ndata:\n\n", []Event{{Data: []byte("one\ntwo\n")}}},
		{"one space trimmed", "data:  two spaces\ndata:none\n\n", []Event{{Data: []byte(" two spaces\nnone")}}},
		{"crlf", "event: e\r\ndata: a\r\ndata: b\r\n\r\n", []Event{{Type: "e", Data: []byte("a\nb")}}},
		{"comments, retry and unknown fields", ": hi\nretry: 10\nfoo: bar\ndata: x\n: mid\n\n", []Event{{Data: []byte("x")}}},
		{"empty data is an event", "data\n\n", []Event{{Data: []byte{}}}},
		{"no data, no event; type reset", "event: lost\n\ndata: x\n\n", []Event{{Data: []byte("x")}}},
		{"type per event", "event: a\ndata: 1\n\ndata: 2\n\n", []Event{{Type: "a", Data: []byte("1")}, {Data: []byte("2")}}},
		{"ids persist", "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: x\x00y\ndata: d\n\n",
			[]Event{{Data: []byte("a"), ID: "7"}, {Data: []byte("b"), ID: "7"}, {Data: []byte("c")}, {Data: []byte("d")}}},
		{"unfinished event dropped", "data: a\n\ndata: b", []Event{{Data: []byte("a")}}},
		{"blank lines between", "\n\n\ndata: a\n\n\n\n", []Event{{Data: []byte("a")}}},
	}
	for _, tc := range cases {
		got, err := decodeAll(iotest.OneByteReader(strings.NewReader(tc.in)), maxEvent)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d events %q, want %d", tc.name, len(got), got, len(tc.want))
			continue
		}
		for i := range got {
			if got[i].Type != tc.want[i].Type || !bytes.Equal(got[i].Data, tc.want[i].Data) || got[i].ID != tc.want[i].ID {
				t.Errorf("%s: event %d is %+q, want %+q", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

// TestDecoderCapsAnEvent ends a stream whose event, in one line or many,
// outgrows the cap, after the events that fit.
func TestDecoderCapsAnEvent(t *testing.T) {
	const max = 64
	fits := "data: " + strings.Repeat("a", max) + "\n\n"
	for name, big := range map[string]string{
		"one line":   "data: " + strings.Repeat("b", max+1) + "\n\n",
		"many lines": strings.Repeat("data: "+strings.Repeat("c", 20)+"\n", 4) + "\n",
		"a comment":  ": " + strings.Repeat("d", 2*max) + "\n\n",
	} {
		evs, err := decodeAll(strings.NewReader(fits+big+fits), max)
		if !errors.Is(err, errEventTooLarge) {
			t.Errorf("%s: error %v, want errEventTooLarge", name, err)
		}
		if len(evs) != 1 || len(evs[0].Data) != max {
			t.Errorf("%s: %d events before the error, want the one that fits", name, len(evs))
		}
	}
}

// FuzzDecoderMatchesOpenAIGo reads the same bytes with this decoder and
// with openai-go's ssestream, which the upstreams used before: the same
// events, types and data (openai-go's data keeps a final "\n"), and the
// same end.
func FuzzDecoderMatchesOpenAIGo(f *testing.F) {
	for _, seed := range append(sseSeeds, "event: x\n\nevent\ndata\n\n", "data: a\r\r\n\r\n") {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ours, err := decodeAll(bytes.NewReader(in), maxEvent)
		if err != nil {
			t.Fatalf("decoder: %v", err)
		}
		dec := ssestream.NewDecoder(&http.Response{
			Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body:   io.NopCloser(bytes.NewReader(in)),
		})
		var theirs []ssestream.Event
		for dec.Next() {
			theirs = append(theirs, dec.Event())
		}
		if err := dec.Err(); err != nil {
			t.Fatalf("ssestream: %v", err)
		}
		if len(ours) != len(theirs) {
			t.Fatalf("%d events, openai-go %d: %q vs %q", len(ours), len(theirs), ours, theirs)
		}
		for i := range ours {
			if ours[i].Type != theirs[i].Type || string(ours[i].Data)+"\n" != string(theirs[i].Data) {
				t.Fatalf("event %d: %q %q, openai-go %q %q", i, ours[i].Type, ours[i].Data, theirs[i].Type, theirs[i].Data)
			}
		}
	})
}
