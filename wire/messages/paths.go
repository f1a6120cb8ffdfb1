package messages

import (
	"strings"

	"github.com/farebox/farebox/responses"
)

// Decode's errors come from responses.ParseWith, which names the field of
// the Responses body Decode built; paths maps that name back to the
// Messages field the client sent, in Anthropic's dotted form
// (messages.1.content.0.input).

// pathKind is which Messages block an input item was made from.
type pathKind uint8

const (
	pathMessage   pathKind = iota // a message or a run of its blocks
	pathCall                      // a tool_use block
	pathOutput                    // a tool_result block
	pathReasoning                 // a thinking or redacted_thinking block
)

// itemPath is the Messages origin of one input item.
type itemPath struct {
	base  string
	kind  pathKind
	parts []string // the path of each part of a message item
}

// paths records where the Responses body's fields came from.
type paths struct {
	items []itemPath
	tools []string // the path of each tool written
}

// translate points err at the Messages field its Responses field came from.
func (p *paths) translate(err *responses.Error) *responses.Error {
	return reparam(err, p.messages(err.Param))
}

// reparamAll rewrites the bracketed path of a body-level error (a
// duplicate key) in the dotted form.
func reparamAll(err *responses.Error) *responses.Error { return reparam(err, dotted(err.Param)) }

// reparam points err at param, in its message too.
func reparam(err *responses.Error, param string) *responses.Error {
	if err.Param != "" && err.Param != param {
		err.Message = strings.ReplaceAll(err.Message, "'"+err.Param+"'", "'"+param+"'")
		err.Param = param
	}
	return err
}

// dotted turns input[3].content[1] into input.3.content.1.
func dotted(p string) string {
	return strings.NewReplacer("[", ".", "]", "").Replace(p)
}

// messages maps one Responses param path to the Messages one.
func (p *paths) messages(param string) string {
	switch {
	case param == "input":
		return "messages"
	case strings.HasPrefix(param, "input["):
		if i, rest, ok := index(param, "input["); ok && i < len(p.items) {
			return p.items[i].messages(rest)
		}
	case strings.HasPrefix(param, "tools["):
		if i, rest, ok := index(param, "tools["); ok && i < len(p.tools) {
			if rest == ".parameters" || strings.HasPrefix(rest, ".parameters.") {
				rest = ".input_schema" + strings.TrimPrefix(rest, ".parameters")
			}
			return p.tools[i] + dotted(rest)
		}
	case param == "max_output_tokens":
		return "max_tokens"
	case param == "instructions":
		return "system"
	case strings.HasPrefix(param, "reasoning"):
		return "output_config.effort"
	case strings.HasPrefix(param, "text"):
		return "output_config.format"
	}
	return dotted(param)
}

// index splits "input[3].content[1]" after prefix into 3 and ".content[1]".
func index(param, prefix string) (int, string, bool) {
	s := param[len(prefix):]
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, "", false
	}
	i := 0
	for _, c := range s[:end] {
		if c < '0' || c > '9' {
			return 0, "", false
		}
		i = i*10 + int(c-'0')
	}
	return i, s[end+1:], end > 0
}

// messages maps the rest of a param path inside this item.
func (ip itemPath) messages(rest string) string {
	switch ip.kind {
	case pathMessage:
		if strings.HasPrefix(rest, ".content[") {
			if k, sub, ok := index(rest, ".content["); ok && k < len(ip.parts) {
				return ip.parts[k] + dotted(sub)
			}
		}
	case pathCall:
		switch rest {
		case ".call_id":
			return ip.base + ".id"
		case ".arguments":
			return ip.base + ".input"
		}
	case pathOutput:
		switch {
		case rest == ".call_id":
			return ip.base + ".tool_use_id"
		case strings.HasPrefix(rest, ".output"):
			return ip.base + ".content" + dotted(strings.TrimPrefix(rest, ".output"))
		}
	case pathReasoning:
		if rest == ".encrypted_content" {
			return ip.base + ".signature"
		}
		return ip.base
	}
	return ip.base + dotted(rest)
}
