//go:build !server

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// runCall makes one paid call: openai-go over the paying transport.
func runCall(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("call", "[flags] PROMPT", "Make one paid call and print the answer and the receipt. The payer key comes from\nFAREBOX_PAYER_KEY (hex); without it, the publicly known dev payer key of\n`farebox dev` is used.", stderr)
	base := fs.String("base-url", getenvOr(getenv, "FAREBOX_BASE_URL", "http://127.0.0.1:8402/v1"), "farebox's base URL (env FAREBOX_BASE_URL)")
	model := fs.String("model", "farebox-scripted", "model to call")
	stream := fs.Bool("stream", false, "stream the answer")
	pf := addPayFlags(fs.FlagSet, getenv, "call")
	refund := fs.Bool("refund", false, "instead of calling the model, ask the server for a cooperative refund of the payer's batch-settlement channel (no PROMPT)")
	var tools fundFlags
	fs.Var(&tools, "tool", "declare a function tool NAME, or NAME(param,...) with string parameters (repeatable); its calls are printed, not run")
	if err := fs.parse(args); err != nil {
		return err
	}
	prompt := strings.Join(fs.Args(), " ")
	if prompt == "" && !*refund {
		return errors.New(`a prompt is required: farebox call [flags] "PROMPT" (farebox call -h lists the flags)`)
	}
	key, err := payerKey(getenv, stderr, "farebox call", pf)
	if err != nil {
		return err
	}
	if err := pf.parse(); err != nil {
		return err
	}
	offers, err := offersOf(ctx, *base, *model)
	if err != nil {
		return err
	}
	var receipt *x402.Receipt
	var settlement *payer.Settlement
	tr, err := pf.transport(ctx, key, offers, stderr,
		payer.OnReceipt(func(r *x402.Receipt) { receipt = r }),
		payer.OnSettlement(func(s *payer.Settlement) { settlement = s }),
		payer.OnRefusal(func(err error) { fmt.Fprintln(stderr, "farebox call: not paying:", sellerText(err.Error())) }))
	if err != nil {
		return err
	}
	if *refund {
		return callRefund(ctx, tr, *base, stdout)
	}
	client := openai.NewClient(option.WithBaseURL(strings.TrimSuffix(*base, "/")+"/"), option.WithAPIKey("x402"),
		option.WithHTTPClient(&http.Client{Transport: tr})) // default retries: the transport presents one authorization to all of them
	params := oresponses.ResponseNewParams{Model: *model, Input: oresponses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)}}
	for _, spec := range tools {
		tool, err := parseTool(spec)
		if err != nil {
			return err
		}
		params.Tools = append(params.Tools, oresponses.ToolUnionParam{OfFunction: tool})
	}
	var res *oresponses.Response
	if *stream {
		res, err = callStreaming(ctx, &client, params, stdout)
	} else {
		res, err = client.Responses.New(ctx, params)
	}
	if err != nil {
		return callError(err)
	}
	if !*stream {
		if t := res.OutputText(); t != "" {
			fmt.Fprintln(stdout, t)
		}
	}
	for _, it := range res.Output {
		if it.Type == "function_call" {
			fmt.Fprintf(stdout, "function call %s %s(%s)\n", it.CallID, it.Name, it.Arguments.OfString)
		}
	}
	if receipt == nil { // a stream carries its receipt in-band
		if r := gjson.Get(res.RawJSON(), "x402"); r.Exists() {
			receipt = &x402.Receipt{Success: r.Get("success").Bool(), Transaction: r.Get("transaction").String(),
				Payer: r.Get("payer").String(), Network: r.Get("network").String(), ErrorReason: r.Get("errorReason").String()}
		}
	}
	if receipt != nil {
		fmt.Fprintf(stdout, "\nreceipt: success=%v transaction=%s amount=%s USDC payer=%s network=%s%s\n",
			receipt.Success, sellerText(orVoucher(receipt.Transaction)), x402.FormatUSDC(charged(ctx, settlement, res, *base, *model)),
			sellerText(receipt.Payer), sellerText(receipt.Network), schemeNote(settlement))
	}
	return nil
}

// charged is what the call cost: the receipt's charge (upto, batch-settlement;
// the ceiling for exact), else the in-band receipt's, else the model's price.
func charged(ctx context.Context, s *payer.Settlement, res *oresponses.Response, base, model string) *big.Int {
	if s != nil && s.Charged != nil {
		return s.Charged
	}
	r := gjson.Get(res.RawJSON(), "x402")
	for _, path := range []string{"extra.chargedAmount", "amount", "settledAmount"} {
		if v, ok := new(big.Int).SetString(r.Get(path).String(), 10); ok {
			return v
		}
	}
	return priceOf(ctx, base, model)
}

// schemeNote names the scheme and any deposit on the receipt line.
func schemeNote(s *payer.Settlement) string {
	if s == nil {
		return ""
	}
	out := " scheme=" + s.Scheme
	if s.Ceiling != nil && s.Scheme != x402.SchemeExact {
		out += " ceiling=" + x402.FormatUSDC(s.Ceiling) + " USDC"
	}
	if s.Deposited != nil {
		out += " deposited=" + x402.FormatUSDC(s.Deposited) + " USDC channel=" + s.ChannelID.Hex()
	}
	return out
}

// callRefund asks for a cooperative refund of the payer's channel with the
// server: GET /v1/responses is farebox's refund route (the official
// @x402/evm client's too), whose 402 offers the channel whatever the model.
func callRefund(ctx context.Context, tr *payer.Transport, base string, stdout io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/responses", nil)
	if err != nil {
		return err
	}
	s, err := tr.Refund(req, nil)
	if err != nil {
		return err
	}
	refunded := new(big.Int)
	if s.Refunded != nil {
		refunded = s.Refunded
	}
	fmt.Fprintf(stdout, "refund: amount=%s USDC transaction=%s channel=%s network=%s\n",
		x402.FormatUSDC(refunded), s.Transaction, s.ChannelID.Hex(), s.Network)
	return nil
}

// parseTool reads a --tool: NAME declares a tool without parameters,
// NAME(a,b) one whose parameters a and b are required strings, so the
// model has something to fill in ("get_weather(city)").
func parseTool(spec string) (*oresponses.FunctionToolParam, error) {
	name, rest, hasParams := strings.Cut(strings.TrimSpace(spec), "(")
	props, required := map[string]any{}, []string{}
	if hasParams {
		list, ok := strings.CutSuffix(rest, ")")
		if !ok {
			return nil, fmt.Errorf("--tool %q: want NAME or NAME(param,...)", spec)
		}
		for _, p := range strings.Split(list, ",") {
			if p = strings.TrimSpace(p); p != "" {
				props[p] = map[string]any{"type": "string"}
				required = append(required, p)
			}
		}
	}
	if name = strings.TrimSpace(name); name == "" {
		return nil, fmt.Errorf("--tool %q: the tool needs a name", spec)
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return &oresponses.FunctionToolParam{Name: name, Parameters: schema, Strict: openai.Bool(false)}, nil
}

// callError turns a refusal into something to act on: the status, the
// server's OpenAI error message and, for a 402, the x402 reason (from the
// failed receipt when there is one, else the error code).
func callError(err error) error {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	msg := apiErr.Message
	if msg == "" {
		msg = "(no message)"
	}
	out := fmt.Sprintf("the server answered %d %s: %s", apiErr.StatusCode, http.StatusText(apiErr.StatusCode), sellerText(msg))
	if apiErr.StatusCode == http.StatusPaymentRequired {
		reason := apiErr.Code
		if r := failedReceiptReason(apiErr.Response); r != "" {
			reason = r
		}
		if reason != "" {
			out += " (x402 reason: " + sellerText(reason) + ")"
		}
		out += channelHint(reason)
	}
	return errors.New(out)
}

// channelHint names the fix for a channel the client could not resync by
// itself: its record disagrees with the server's, and only the chain can
// settle who is right.
func channelHint(reason string) string {
	if reason != channel.ReasonCumulativeAmountMismatch && reason != channel.ReasonCumulativeBelowClaimed {
		return ""
	}
	return ": this payer's channel record (--channels) is behind the server's; pass --rpc-url with the chain's JSON-RPC (farebox dev prints it as \"chain RPC\") to recover it from chain"
}

func failedReceiptReason(res *http.Response) string {
	if res == nil {
		return ""
	}
	for _, h := range []string{x402.HeaderPaymentResponse, x402.HeaderXPaymentResponse} {
		if r, err := x402.DecodeReceipt(res.Header.Get(h)); err == nil && r.ErrorReason != "" {
			return r.ErrorReason
		}
	}
	return ""
}

func callStreaming(ctx context.Context, c *openai.Client, p oresponses.ResponseNewParams, stdout io.Writer) (*oresponses.Response, error) {
	s := c.Responses.NewStreaming(ctx, p)
	var final *oresponses.Response
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_text.delta":
			fmt.Fprint(stdout, ev.Delta)
		case "response.completed", "response.incomplete", "response.failed":
			r := ev.Response
			final = &r
		}
	}
	fmt.Fprintln(stdout)
	if err := s.Err(); err != nil {
		return nil, err
	}
	if final == nil {
		return nil, errors.New("the stream ended without a terminal event")
	}
	if final.Status == "failed" {
		return final, fmt.Errorf("response failed: %s", final.Error.Message)
	}
	return final, nil
}

func priceOf(ctx context.Context, base, model string) *big.Int {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/models/"+model, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return new(big.Int)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	n, ok := new(big.Int).SetString(gjson.GetBytes(b, "price.atomic").String(), 10)
	if !ok {
		return new(big.Int)
	}
	return n
}

// fundFlags collects a repeatable flag's values in order (--fund of dev,
// --tool of call, --mcp and --deny of chat: none of them in the server
// build).
type fundFlags []string

func (f *fundFlags) String() string     { return strings.Join(*f, ",") }
func (f *fundFlags) Set(v string) error { *f = append(*f, v); return nil }
