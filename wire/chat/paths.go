package chat

import (
	"strconv"
	"strings"

	"github.com/farebox/farebox/responses"
)

// Decode's errors come from responses.ParseWith, which names the field of
// the Responses body Decode built; paths maps that name back to the chat
// field the client sent, so the client can find its mistake.

// pathKind is which chat object an input item was made from.
type pathKind uint8

const (
	pathMessage    pathKind = iota // a message (parts 1:1, or listed in parts)
	pathCall                       // an assistant's function tool call
	pathCustomCall                 // an assistant's custom tool call
	pathOutput                     // a tool message
)

// itemPath is the chat origin of one input item.
type itemPath struct {
	base  string // messages[2] or messages[2].tool_calls[0]
	kind  pathKind
	parts []string // the chat path of each part, when not content[k] for k
}

// paths records where the Responses body's fields came from.
type paths struct {
	items  []itemPath
	tools  []string // per tool: "function", "custom" or "" (sent as is)
	tokens string   // max_tokens or max_completion_tokens
	choice string   // tool_choice's type when an object
}

// translate points err at the chat field its Responses field came from.
func (p *paths) translate(err *responses.Error) *responses.Error {
	if err.Param == "" {
		return err
	}
	return reparam(err, p.chat(err.Param))
}

// replaceParam swaps the quoted param old for new in an error message.
func replaceParam(msg, old, new string) string {
	if old == "" || old == new {
		return msg
	}
	return strings.ReplaceAll(msg, "'"+old+"'", "'"+new+"'")
}

// chat maps one Responses param path to the chat one.
func (p *paths) chat(param string) string {
	switch {
	case param == "input":
		return "messages"
	case strings.HasPrefix(param, "input["):
		if i, rest, ok := index(param, "input["); ok && i < len(p.items) {
			return p.items[i].chat(rest)
		}
	case strings.HasPrefix(param, "tools["):
		if i, rest, ok := index(param, "tools["); ok && i < len(p.tools) && p.tools[i] != "" && rest != "" && rest != ".type" {
			return "tools[" + strconv.Itoa(i) + "]." + p.tools[i] + rest
		}
	case param == "max_output_tokens":
		if p.tokens != "" {
			return p.tokens
		}
	case strings.HasPrefix(param, "reasoning"):
		return "reasoning_effort"
	case param == "text.verbosity":
		return "verbosity"
	case param == "text" || param == "text.format" || param == "text.format.type":
		return "response_format" + strings.TrimPrefix(strings.TrimPrefix(param, "text"), ".format")
	case strings.HasPrefix(param, "text.format."):
		return "response_format.json_schema." + strings.TrimPrefix(param, "text.format.")
	case param == "tool_choice.name" && p.choice != "":
		return "tool_choice." + p.choice + ".name"
	case strings.HasPrefix(param, "tool_choice.tools") || param == "tool_choice.mode":
		return "tool_choice.allowed_tools." + strings.TrimPrefix(param, "tool_choice.")
	}
	return param
}

// index splits "input[3].content[1]" after prefix "input[" into 3 and
// ".content[1]".
func index(param, prefix string) (int, string, bool) {
	s := param[len(prefix):]
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, "", false
	}
	i, err := strconv.Atoi(s[:end])
	return i, s[end+1:], err == nil
}

// chat maps the rest of a param path inside this item.
func (ip itemPath) chat(rest string) string {
	switch ip.kind {
	case pathMessage:
		if ip.parts != nil && strings.HasPrefix(rest, ".content[") {
			if k, sub, ok := index(rest, ".content["); ok && k < len(ip.parts) {
				return ip.parts[k] + sub
			}
		}
	case pathCall, pathCustomCall:
		inner := ".function"
		if ip.kind == pathCustomCall {
			inner = ".custom"
		}
		switch rest {
		case ".call_id":
			return ip.base + ".id"
		case ".name", ".arguments", ".input":
			return ip.base + inner + rest
		}
	case pathOutput:
		switch {
		case rest == ".call_id":
			return ip.base + ".tool_call_id"
		case strings.HasPrefix(rest, ".output"):
			return ip.base + ".content" + strings.TrimPrefix(rest, ".output")
		}
	}
	return ip.base + rest
}
