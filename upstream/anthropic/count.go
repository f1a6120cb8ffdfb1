package anthropic

import (
	"context"
	"errors"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

var _ responses.InputTokenCounter = (*Model)(nil)

// countFields are the fields of a Messages request that cost input tokens,
// the ones POST /messages/count_tokens takes; the rest of what build
// sends (max_tokens, stream, sampling, metadata) it does not.
var countFields = []string{"model", "system", "messages", "tools", "tool_choice", "thinking", "output_config"}

// CountInputTokens asks Anthropic's own POST /messages/count_tokens how
// many input tokens req costs, sending exactly what Respond would.
func (m *Model) CountInputTokens(ctx context.Context, req *responses.Request) (int64, error) {
	full, err := build(req, &m.cfg)
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
	answer, err := upstreamhttp.Call(ctx, m.client, "messages/count_tokens", body, m.cfg.Timeouts)
	if err != nil {
		return 0, err
	}
	n := gjson.GetBytes(answer, "input_tokens")
	if n.Type != gjson.Number || n.Int() < 0 {
		return 0, upstreamhttp.Broken(errors.New("upstream count_tokens answer without a count: " + string(answer)))
	}
	return n.Int(), nil
}
