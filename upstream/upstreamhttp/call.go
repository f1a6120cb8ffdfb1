package upstreamhttp

import (
	"context"
	"errors"
	"io"
	"strings"
)

// maxAnswer bounds a JSON answer read by Call.
const maxAnswer = 1 << 20

// Call posts body (JSON) to path and returns the upstream's JSON answer:
// one request and one object, for the upstream's non-streaming endpoints
// (such as /responses/input_tokens). Failures map as for a stream.
func Call(ctx context.Context, client *Client, path string, body []byte, t Timeouts) ([]byte, error) {
	t = t.WithDefaults()
	cctx, cancel := context.WithTimeout(ctx, t.FirstByte)
	defer cancel()
	res, err := client.post(cctx, path, body)
	if err != nil {
		return nil, Transport(cctx, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return nil, Transport(cctx, err)
	}
	if res.StatusCode >= 300 {
		return nil, FromStatus(res.StatusCode, res.Header, data)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return nil, Broken(errors.New("upstream answered with Content-Type " + ct + ", not JSON"))
	}
	return data, nil
}
