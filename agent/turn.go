package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// NewClient returns an openai-go client of the Responses endpoint at
// baseURL that pays with pay (nil: a free endpoint). openai-go keeps its
// default retries: the paying transport presents the same authorization
// on every retry of a turn, so a retry never pays twice.
func NewClient(baseURL string, pay *payer.Transport, opts ...option.RequestOption) openai.Client {
	if !strings.HasSuffix(baseURL, "/") {
		baseURL += "/"
	}
	o := []option.RequestOption{option.WithBaseURL(baseURL), option.WithAPIKey("x402")}
	if pay != nil {
		o = append(o, option.WithHTTPClient(&http.Client{Transport: pay}))
	}
	return openai.NewClient(append(o, opts...)...)
}

// turnResult is one model answer.
type turnResult struct {
	items    []Item // the response's output items, to append to the history
	text     string
	hasCalls bool
}

// turn asks the model once with the whole history, paying through the
// transport with this Agent's budget and ledger.
func (a *Agent) turn(ctx context.Context, history []Item) (*turnResult, error) {
	a.ledger.startTurn()
	ctx = payer.WithHooks(ctx, a.ledger.hooks())
	params := a.params(history)
	var raw string
	var err error
	if a.cfg.Stream {
		raw, err = a.streamTurn(ctx, params)
	} else {
		var res *responses.Response
		if res, err = a.cfg.Client.Responses.New(ctx, params, a.cfg.RequestOptions...); err == nil {
			raw = res.RawJSON()
		}
	}
	if err != nil {
		if why := a.ledger.refusal(); why != nil {
			return nil, fmt.Errorf("%w (the server asked for payment: %v)", why, err)
		}
		return nil, err
	}
	if r := a.ledger.endTurn(raw); r != nil {
		a.emit(Event{Kind: EventTurnPaid, Receipt: r})
	}
	switch status := gjson.Get(raw, "status").String(); status {
	case "failed":
		return nil, fmt.Errorf("agent: the response failed: %s", gjson.Get(raw, "error.message").String())
	}
	t := &turnResult{}
	for _, it := range gjson.Get(raw, "output").Array() {
		t.items = append(t.items, Item(it.Raw))
		switch it.Get("type").String() {
		case "function_call":
			t.hasCalls = true
		case "message":
			for _, part := range it.Get("content").Array() {
				if part.Get("type").String() == "output_text" {
					t.text += part.Get("text").String()
				}
			}
		}
	}
	return t, nil
}

// streamTurn streams one turn, passing text deltas on, and returns the
// final response's JSON.
func (a *Agent) streamTurn(ctx context.Context, params responses.ResponseNewParams) (string, error) {
	s := a.cfg.Client.Responses.NewStreaming(ctx, params, a.cfg.RequestOptions...)
	defer s.Close()
	var final string
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_text.delta":
			a.emit(Event{Kind: EventTextDelta, Text: ev.Delta})
		case "response.completed", "response.incomplete", "response.failed":
			final = gjson.Get(ev.RawJSON(), "response").Raw
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	if final == "" {
		return "", errors.New("agent: the stream ended without a final response")
	}
	return final, nil
}

// params is the request of one turn: the whole history, every tool.
func (a *Agent) params(history []Item) responses.ResponseNewParams {
	input := make(responses.ResponseInputParam, len(history))
	for i, it := range history {
		input[i] = param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(it))
	}
	p := responses.ResponseNewParams{Model: a.cfg.Model, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}}
	if a.cfg.Instructions != "" {
		p.Instructions = openai.String(a.cfg.Instructions)
	}
	for _, t := range a.cfg.Tools { // declaration order: a stable body, so retries hash alike
		fp := &responses.FunctionToolParam{Name: t.Name, Parameters: t.Parameters, Strict: openai.Bool(false)}
		if t.Description != "" {
			fp.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: fp})
	}
	return p
}
