package gemini

import (
	"errors"
	"fmt"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
)

// refusalText is the refusal a client sees when Gemini's safety filters
// stopped the answer before it said anything.
const refusalText = "The model declined to answer this request"

// mapper turns GenerateContentResponse chunks (a stream's, or the one of a
// whole answer) into emitter calls. Each chunk carries the new parts of
// the first candidate, whole function calls among them; usageMetadata is
// cumulative, each figure overriding the last.
type mapper struct {
	em      responses.Output
	customs map[string]bool
	calls   int    // function calls seen, for the ids made up for them
	seed    string // what makes this answer's made-up ids its own: responseId, signatures
	said    bool   // text or a call reached the emitter
	// thinking: a reasoning item is open that a signature may still join
	// (a thought shown, its signature not yet seen).
	thinking bool
	finish   string // the candidate's finishReason
	message  string // its finishMessage
	blocked  string // promptFeedback.blockReason
	usage    struct{ prompt, toolPrompt, cached, candidates, thoughts int64 }
	counted  bool
}

func newMapper(em responses.Output, customs map[string]bool) *mapper {
	return &mapper{em: em, customs: customs}
}

// chunk consumes one GenerateContentResponse.
func (m *mapper) chunk(data []byte) error {
	if !gjson.ValidBytes(data) {
		return upstreamhttp.Broken(fmt.Errorf("upstream sent a chunk that is not JSON: %.200q", data))
	}
	ch := gjson.ParseBytes(data)
	if e := ch.Get("error"); e.Exists() {
		code := e.Get("status").Str
		if code == "RESOURCE_EXHAUSTED" {
			code = "rate_limit_exceeded"
		}
		return upstreamhttp.Failed(code, e.Get("message").Str, fmt.Errorf("upstream error chunk: %.500s", data))
	}
	m.setUsage(ch.Get("usageMetadata"))
	if m.seed == "" {
		m.seed = ch.Get("responseId").Str
	}
	if r := ch.Get("promptFeedback.blockReason").Str; r != "" {
		m.blocked = r
	}
	cand := ch.Get("candidates.0")
	var err error
	cand.Get("content.parts").ForEach(func(_, p gjson.Result) bool {
		err = m.part(p)
		return err == nil
	})
	if err != nil {
		return err
	}
	if r := cand.Get("finishReason").Str; r != "" {
		m.finish, m.message = r, cand.Get("finishMessage").Str
	}
	return nil
}

// part passes one part on: a thought to a reasoning item's summary, a
// signature to a reasoning item before the part it signs, text, a call.
func (m *mapper) part(p gjson.Result) error {
	sig := p.Get("thoughtSignature").Str
	m.seed += sig
	if p.Get("thought").Bool() {
		if !m.thinking {
			if err := m.em.StartReasoning(); err != nil {
				return err
			}
			m.thinking = true
		}
		if t := p.Get("text").Str; t != "" {
			if err := m.em.ReasoningSummary(0, t); err != nil {
				return err
			}
		}
		return m.sign(sig)
	}
	if sig != "" {
		if !m.thinking {
			if err := m.em.StartReasoning(); err != nil {
				return err
			}
		}
		m.thinking = true
		if err := m.sign(sig); err != nil {
			return err
		}
	}
	m.thinking = false
	if fc := p.Get("functionCall"); fc.Exists() {
		return m.call(fc)
	}
	if t := p.Get("text").Str; t != "" {
		m.said = true
		return m.em.Text(t)
	}
	return nil // an empty part (carrying only a signature), or a kind farebox does not pass on
}

// sign closes the open reasoning item with a signature.
func (m *mapper) sign(sig string) error {
	if sig == "" {
		return nil
	}
	m.thinking = false
	return m.em.ReasoningEncrypted(prefixThought + sig)
}

// call emits one whole function call, with Gemini's id or one made up.
func (m *mapper) call(fc gjson.Result) error {
	name, args := fc.Get("name").Str, fc.Get("args").Raw
	id := fc.Get("id").Str
	if id == "" {
		id = callID(m.seed, name, []byte(args), m.calls)
	}
	m.calls++
	m.said = true
	if m.customs[name] {
		if err := m.em.StartCustomCall(id, name); err != nil {
			return err
		}
		return m.em.Arguments(gjson.Get(args, "input").String())
	}
	if err := m.em.StartCall(id, name); err != nil {
		return err
	}
	if args != "" && args != "{}" {
		return m.em.Arguments(args)
	}
	return nil
}

// end applies how the answer ended, once every chunk is in: a blocked
// prompt or a safety stop is a refusal (incomplete for content_filter when
// some of the answer was already given), MAX_TOKENS is incomplete, a
// malformed call or an answer with nothing in it is a failure, never a
// silent empty answer.
func (m *mapper) end() error {
	if m.blocked != "" && m.finish == "" {
		return m.em.Refusal(fmt.Sprintf("%s: Gemini blocked the prompt (%s).", refusalText, m.blocked))
	}
	switch m.finish {
	case "":
		return upstreamhttp.Broken(errNoFinish)
	case "STOP":
		if !m.said {
			return upstreamhttp.Failed("empty_answer", "Gemini finished without any text or call", errEmpty)
		}
	case "MAX_TOKENS":
		m.em.Incomplete("max_output_tokens")
	case "SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "LANGUAGE",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		if m.said {
			m.em.Incomplete("content_filter")
			return nil
		}
		msg := fmt.Sprintf("%s: Gemini's filters stopped the answer (%s).", refusalText, m.finish)
		if m.message != "" {
			msg += " " + m.message
		}
		return m.em.Refusal(msg)
	default: // MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS, OTHER, ...
		if m.finish != "OTHER" || !m.said {
			return upstreamhttp.Failed(m.finish, m.message, fmt.Errorf("upstream finished with %s: %s", m.finish, m.message))
		}
	}
	return nil
}

var (
	errNoFinish = errors.New("upstream answer ended without a finishReason or a blocked prompt")
	errEmpty    = errors.New("upstream finished with STOP and no content")
)

// setUsage folds in a usageMetadata object. promptTokenCount includes the
// cached part; thoughts are billed as output.
func (m *mapper) setUsage(u gjson.Result) {
	if !u.IsObject() {
		return
	}
	m.counted = true
	for path, to := range map[string]*int64{"promptTokenCount": &m.usage.prompt, "toolUsePromptTokenCount": &m.usage.toolPrompt,
		"cachedContentTokenCount": &m.usage.cached, "candidatesTokenCount": &m.usage.candidates, "thoughtsTokenCount": &m.usage.thoughts} {
		if v := u.Get(path); v.Type == gjson.Number {
			*to = v.Int()
		}
	}
}

// report hands the usage to the emitter once the answer is over (or broke
// off: what was used is still reported).
func (m *mapper) report() {
	if !m.counted {
		return
	}
	u := m.usage
	m.em.SetUsage(responses.Usage{InputTokens: u.prompt + u.toolPrompt, CachedTokens: u.cached,
		OutputTokens: u.candidates + u.thoughts, ReasoningTokens: u.thoughts})
}
