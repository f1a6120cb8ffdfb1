package proxy

import "strings"

// wire is a client API whose error shape the proxy answers in.
type wire int

const (
	openAIWire wire = iota
	anthropicWire
)

// route is a POST route the proxy pays, and the wire its clients read.
type route struct {
	path string
	wire wire
}

// paidRoutes are the routes whose POSTs go through the paying transport:
// plain JSON requests that a seller prices like /v1/responses. Adding a
// paid route is one line here; any other request is forwarded unpaid,
// so the wallet never pays for a route nobody chose to pay.
var paidRoutes = []route{
	{"/v1/responses", openAIWire},
	{"/v1/responses/compact", openAIWire},
	{"/v1/responses/input_tokens", openAIWire},
	{"/v1/chat/completions", openAIWire},
	{"/v1/messages", anthropicWire},
	{"/v1/messages/count_tokens", anthropicWire},
}

// paid reports whether path (cleaned) is a paid route.
func paid(path string) bool {
	for _, r := range paidRoutes {
		if r.path == path {
			return true
		}
	}
	return false
}

// wireOf is the wire of the paid route path is or lies under (an
// Anthropic client's every request is under /v1/messages), else OpenAI's,
// which every other client the proxy serves reads.
func wireOf(path string) wire {
	w, longest := openAIWire, 0
	for _, r := range paidRoutes {
		if (path == r.path || strings.HasPrefix(path, r.path+"/")) && len(r.path) > longest {
			w, longest = r.wire, len(r.path)
		}
	}
	return w
}
