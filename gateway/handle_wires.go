package gateway

import (
	"net/http"
	"time"

	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/wire/chat"
	"github.com/farebox/farebox/wire/messages"
	"github.com/labstack/echo/v4"
)

// The three client wires. Each is a decoder, an output and nothing else:
// the paid call behind them is the same.
var (
	responsesWire = &wire{name: wireResponses, refunds: true,
		decode: func(body []byte, hosted responses.HostedPolicy) (*responses.Request, error) {
			return decoded(responses.ParseWith(body, hosted))
		},
		output: func(c echo.Context, _ *responses.Request) charge.Output { return responsesOutput{c} },
	}
	chatWire = &wire{name: wireChat,
		decode: func(body []byte, hosted responses.HostedPolicy) (*responses.Request, error) {
			return decoded(chat.Decode(body, hosted))
		},
		output: func(c echo.Context, req *responses.Request) charge.Output {
			return chatOutput{objectOutput{c, chat.Object}, req.IncludeUsage}
		},
	}
	messagesWire = &wire{name: wireMessages,
		decode: func(body []byte, hosted responses.HostedPolicy) (*responses.Request, error) {
			return decoded(messages.Decode(body, hosted))
		},
		output: func(c echo.Context, _ *responses.Request) charge.Output {
			return messagesOutput{objectOutput{c, messages.Object}}
		},
	}
)

// decoded is a decoder's answer as (request, error), without the typed
// nil a *responses.Error would leave in the error.
func decoded(req *responses.Request, err *responses.Error) (*responses.Request, error) {
	if err != nil {
		return nil, err
	}
	return req, nil
}

// handleResponses serves POST /v1/responses (OpenAI's Responses API).
// Every error it returns is written by writeError.
func (s *Server) handleResponses(c echo.Context) error { return s.sellWire(c, responsesWire) }

// handleChat serves POST /v1/chat/completions (OpenAI's Chat
// Completions): the same paid call as Responses, in chat's objects and
// chunks.
func (s *Server) handleChat(c echo.Context) error { return s.sellWire(c, chatWire) }

// handleMessages serves POST /v1/messages (Anthropic's Messages API, as
// Claude Code and the Anthropic SDKs send it): the same paid call, in
// Anthropic's message object and events; its errors in Anthropic's shape.
func (s *Server) handleMessages(c echo.Context) error { return s.sellWire(c, messagesWire) }

// responsesOutput is the Responses wire's charge.Output: the emitter's
// events as Responses SSE, or the accumulated response object as it is.
type responsesOutput struct{ c echo.Context }

func (o responsesOutput) Header() http.Header { return o.c.Response().Header() }

func (o responsesOutput) Stream() charge.Stream { return responses.NewSSEWriter(o.c.Response()) }

func (o responsesOutput) Object(response []byte) error {
	return o.c.Blob(http.StatusOK, echo.MIMEApplicationJSON, response)
}

// chatOutput is Chat Completions' output: chat.completion.chunk frames
// ending in [DONE] (the usage chunk when stream_options.include_usage),
// or one chat.completion object.
type chatOutput struct {
	objectOutput
	includeUsage bool
}

func (o chatOutput) Stream() charge.Stream {
	st := chat.NewStream(o.c.Response(), chat.StreamOptions{IncludeUsage: o.includeUsage})
	return &wireStream{enc: st, ping: st.KeepAlive, end: st.Done}
}

// messagesOutput is Anthropic Messages' output: message_start ...
// message_stop with ping keep-alives, or one message object.
type messagesOutput struct{ objectOutput }

func (o messagesOutput) Stream() charge.Stream {
	st := messages.NewStream(o.c.Response())
	return &wireStream{enc: st, ping: st.Ping}
}

// handleCountTokens serves POST /v1/messages/count_tokens: Anthropic's
// count of a request's input tokens (the upstream's own count where it
// has one, else the estimate /v1/responses/input_tokens gives), free.
func (s *Server) handleCountTokens(c echo.Context) error {
	c.Set(wireKey, wireMessages)
	release, err := s.admit()
	if err != nil {
		return err
	}
	defer release()
	body, err := readBody(c.Request(), s.cfg.BodyLimit)
	if err != nil {
		return err
	}
	req, err := decoded(messages.DecodeCountTokens(body, s.hosted))
	if err != nil {
		return err
	}
	rt, ok := s.routes[req.Model]
	if !ok {
		return errModelNotFound(req.Model, s.order)
	}
	if err := rt.limits.apply(req); err != nil { // as POST /v1/messages would
		return err
	}
	n, _ := s.countInput(c, rt, req, len(body))
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, messages.CountTokens(n))
}

// anthropicModels is GET /v1/models in Anthropic's shape, for a client
// that says it speaks Anthropic's API (the anthropic-version header).
func (s *Server) anthropicModels(c echo.Context) error {
	list := make([]messages.Model, 0, len(s.order))
	for _, name := range s.order {
		list = append(list, messages.Model{ID: name, Created: time.Unix(s.routes[name].created, 0)})
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, messages.Models(list))
}
