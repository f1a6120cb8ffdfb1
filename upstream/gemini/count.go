package gemini

import (
	"context"
	"errors"
	"net/url"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

var _ responses.InputTokenCounter = (*Model)(nil)

// CountInputTokens asks Gemini's countTokens for req's input tokens with
// the model's own tokenizer. The request goes as the generateContent
// request farebox would send, under generateContentRequest (with the
// model named, as the API wants), so the system instruction and the
// function declarations count too, not only the contents.
func (m *Model) CountInputTokens(ctx context.Context, req *responses.Request) (int64, error) {
	full, err := build(req, &m.cfg)
	if err != nil {
		return 0, err
	}
	model := m.cfg.Model
	if model == "" {
		model = req.Model
	}
	if full, err = sjson.SetBytes(full, "model", "models/"+model); err != nil {
		return 0, err
	}
	body, err := sjson.SetRawBytes([]byte(`{}`), "generateContentRequest", full)
	if err != nil {
		return 0, err
	}
	// The answer comes whole: the bound on its first byte is the total.
	t := m.cfg.Timeouts
	if t.Total > t.FirstByte {
		t.FirstByte = t.Total
	}
	answer, err := upstreamhttp.Call(ctx, m.client, "models/"+url.PathEscape(model)+":countTokens", body, t)
	if err != nil {
		return 0, err
	}
	n := gjson.GetBytes(answer, "totalTokens")
	if n.Type != gjson.Number || n.Int() < 0 {
		return 0, upstreamhttp.Broken(errors.New("upstream countTokens answer without a count: " + string(answer)))
	}
	return n.Int(), nil
}
