package gateway

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/labstack/echo/v4"
)

// droppedToolsHeader names, on an answer, the provider-executed tools the
// request declared and farebox left out (tools.hosted: drop).
const droppedToolsHeader = "Farebox-Dropped-Tools"

// droppedTools makes the tools.hosted drop visible: to the client in a
// header (set before anything is written, so every answer carries it) and
// to the operator in the log.
func (s *Server) droppedTools(c echo.Context, req *responses.Request) {
	c.Response().Header().Set(droppedToolsHeader, strings.Join(req.DroppedTools, ", "))
	s.log.Info("provider-executed tools dropped", "model", req.Model, "tools", req.DroppedTools,
		"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
}

// readBody reads at most limit bytes; a larger body is a 413.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge(limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge(limit)
		}
		return nil, errUnreadableBody(err)
	}
	return body, nil
}

// resourceURL is the absolute URL of this call for the x402 offer.
func (s *Server) resourceURL(c echo.Context) string {
	return s.publicBase(c) + c.Request().URL.Path
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// freeCaller is who a free call's end user is for the provider: the
// address of the connection's peer (not a forwarded-for header, which the
// client writes), so that a client cannot pick its identifier.
func freeCaller(c echo.Context) string {
	host, _, err := net.SplitHostPort(c.Request().RemoteAddr)
	if err != nil || host == "" {
		return ""
	}
	return "ip:" + host
}
