package openai

import (
	"context"
	"errors"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

var _ responses.InputTokenCounter = (*Model)(nil)

// countFields are the fields of the spec's TokenCountsBody: the part of
// the request that costs input tokens. The rest of what build sends
// (stream, store, sampling, ...) the endpoint does not take.
var countFields = []string{"model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning", "truncation"}

// CountInputTokens asks the upstream's own POST /responses/input_tokens
// how many input tokens req costs, sending exactly what Respond would
// (the canonical request, the client's tools only).
func (m *Model) CountInputTokens(ctx context.Context, req *responses.Request) (int64, error) {
	full, err := build(req, m.cfg.Model)
	if err != nil {
		return 0, err
	}
	body := []byte(`{}`)
	for _, k := range countFields {
		if v := gjson.GetBytes(full, k); v.Exists() {
			if body, err = sjson.SetRawBytes(body, k, []byte(v.Raw)); err != nil {
				return 0, err
			}
		}
	}
	answer, err := upstreamhttp.Call(ctx, m.client, "responses/input_tokens", body, m.cfg.Timeouts)
	if err != nil {
		return 0, err
	}
	n := gjson.GetBytes(answer, "input_tokens")
	if n.Type != gjson.Number || n.Int() < 0 {
		return 0, upstreamhttp.Broken(errors.New("upstream input_tokens answer without a count: " + string(answer)))
	}
	return n.Int(), nil
}
