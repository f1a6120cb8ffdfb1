package messages

import (
	"net/http"
	"strconv"
	"time"

	"github.com/farebox/farebox/responses"
)

// ErrorBody is farebox's error on the Messages wire: the status to answer
// and Anthropic's body {"type":"error","error":{"type","message"}}. The
// type follows Anthropic's table by status; a 402 (payment) keeps its
// status, which Anthropic's SDKs raise as a plain API error they do not
// retry, with type billing_error; the x402 offer's headers are the
// adapter's to add.
func ErrorBody(err *responses.Error) (int, []byte) {
	if err == nil {
		err = &responses.Error{Status: 500, Message: "The server had an error while processing your request."}
	}
	status := err.Status
	if status < 400 {
		status = http.StatusInternalServerError
	}
	b := append([]byte(nil), `{"type":"error","error":{"type":"`...)
	b = append(b, errorType(status, err.Code)...)
	b = append(b, `","message":`...)
	b = responses.AppendJSONString(b, err.Message)
	return status, append(b, "}}"...)
}

// errorType is Anthropic's error type for a status.
func errorType(status int, code string) string {
	switch {
	case code == "rate_limit_exceeded" || status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusPaymentRequired:
		return "billing_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status == http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case status == http.StatusServiceUnavailable || status == 529:
		return "overloaded_error"
	case status == http.StatusGatewayTimeout:
		return "timeout_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}

// CountTokens is the body of POST /v1/messages/count_tokens.
func CountTokens(n int64) []byte {
	return append(appendInt([]byte(`{"input_tokens":`), n), '}')
}

// Model is one entry of Anthropic's GET /v1/models.
type Model struct {
	ID      string
	Created time.Time
}

// Models is the body of Anthropic's GET /v1/models: every model on one
// page (has_more false), first_id and last_id naming its ends.
func Models(models []Model) []byte {
	b := append([]byte(nil), `{"data":[`...)
	for i, m := range models {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"model","id":`...)
		b = responses.AppendJSONString(b, m.ID)
		b = append(b, `,"display_name":`...)
		b = responses.AppendJSONString(b, m.ID)
		b = append(b, `,"created_at":`...)
		b = responses.AppendJSONString(b, m.Created.UTC().Format(time.RFC3339))
		b = append(b, '}')
	}
	b = append(b, `],"has_more":false,"first_id":`...)
	if len(models) == 0 {
		return append(b, `null,"last_id":null}`...)
	}
	b = responses.AppendJSONString(b, models[0].ID)
	b = append(b, `,"last_id":`...)
	b = responses.AppendJSONString(b, models[len(models)-1].ID)
	return append(b, '}')
}

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }
