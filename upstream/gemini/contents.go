package gemini

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"mime"
	"path"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// generatedCallPrefix marks the call ids farebox made up for a Gemini
// functionCall that carried none (models before 2.5): such an id is not
// sent back, the call and its response pairing by name and order as
// Gemini pairs them.
const generatedCallPrefix = "call_gm"

// conversation accumulates the system instruction and the contents from
// the canonical items: consecutive items of one role share a turn, so the
// calls of one model turn stay together and their responses come back in
// one user turn.
type conversation struct {
	model    string
	system   []part
	contents []content
	names    map[string]string // call id -> function name, for its response
	sig      string            // a thought signature waiting for the next model part
}

func translateInput(req *responses.Request) (*content, []content, error) {
	c := &conversation{model: req.Model, names: map[string]string{}}
	if req.Instructions != nil && *req.Instructions != "" {
		c.system = append(c.system, textPart(*req.Instructions))
	}
	for i := range req.Input {
		it := &req.Input[i]
		var err error
		switch it.Type {
		case responses.ItemMessage:
			err = c.message(i, it)
		case responses.ItemFunctionCall:
			err = c.call(i, it, it.Arguments)
		case responses.ItemCustomCall:
			err = c.call(i, it, string(customInput(it.Arguments)))
		case responses.ItemFunctionCallOutput, responses.ItemCustomCallOutput:
			err = c.output(i, it)
		case responses.ItemReasoning:
			c.reasoning(it)
		default:
			wire := string(it.Type)
			if it.Wire != "" {
				wire = it.Wire
			}
			err = responses.Invalid(fmt.Sprintf("input[%d].type", i), "unsupported_value",
				"Model '%s' is served over the Gemini API, which cannot express '%s' items.", req.Model, wire)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	c.flushSignature()
	var system *content
	if len(c.system) > 0 {
		system = &content{Parts: c.system}
	}
	return system, c.contents, nil
}

// add appends parts to the turn of role, opening one when the last turn
// is the other role's. A model part takes the thought signature of the
// reasoning item before it.
func (c *conversation) add(role string, ps ...part) {
	if len(ps) == 0 {
		return
	}
	if role == "model" && c.sig != "" {
		ps[0].ThoughtSignature, c.sig = c.sig, ""
	} else if role != "model" {
		c.flushSignature()
	}
	n := len(c.contents)
	if n == 0 || c.contents[n-1].Role != role {
		c.contents = append(c.contents, content{Role: role})
		n++
	}
	c.contents[n-1].Parts = append(c.contents[n-1].Parts, ps...)
}

// flushSignature sends a signature no model part followed (Gemini put it
// on an empty closing text part) back on such a part.
func (c *conversation) flushSignature() {
	if c.sig == "" {
		return
	}
	empty := ""
	p := part{Text: &empty, ThoughtSignature: c.sig}
	c.sig = ""
	c.add("model", p)
}

// message maps one message: system and developer messages join the
// system instruction, assistant messages a model turn, the others a user
// turn.
func (c *conversation) message(i int, it *responses.Item) error {
	switch it.Role {
	case "system", "developer":
		for j, p := range it.Content {
			if p.Type != "input_text" && p.Type != "output_text" {
				return responses.Invalid(fmt.Sprintf("input[%d].content[%d]", i, j), "unsupported_content",
					"A %s part is not allowed in a system or developer message.", p.Type)
			}
			if p.Text != "" {
				c.system = append(c.system, textPart(p.Text))
			}
		}
		return nil
	case "assistant":
		var ps []part
		for _, p := range it.Content {
			if p.Text != "" { // output_text, or a refusal kept as what was said
				ps = append(ps, textPart(p.Text))
			}
		}
		c.add("model", ps...)
		return nil
	}
	ps, err := parts(it.Content, fmt.Sprintf("input[%d].content", i))
	if err != nil {
		return err
	}
	c.add("user", ps...)
	return nil
}

// call maps a function call to a functionCall part with the same id, so
// the response the client sends later pairs with it.
func (c *conversation) call(i int, it *responses.Item, args string) error {
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	if !gjson.Valid(args) || !gjson.Parse(args).IsObject() {
		return responses.Invalid(fmt.Sprintf("input[%d].arguments", i), "invalid_value",
			"The arguments of function call '%s' are not a JSON object, which Gemini requires.", it.CallID)
	}
	c.names[it.CallID] = it.Name
	p := part{FunctionCall: &functionCall{ID: sentID(it.CallID), Name: it.Name, Args: json.RawMessage(args)}}
	if step := c.openStep(); step != nil {
		step.Parts = append(step.Parts, p)
		return nil
	}
	c.add("model", p)
	return nil
}

// openStep is the model turn an unsigned call joins when the client put
// each output right after its call (call, output, call, output): Gemini
// wants a step's calls in one model turn and their responses in the next
// user turn. Gemini signs only a step's first call, so a signature waiting
// means a new step.
func (c *conversation) openStep() *content {
	n := len(c.contents)
	if c.sig != "" || n < 2 || c.contents[n-2].Role != "model" || c.contents[n-1].Role != "user" {
		return nil
	}
	for _, p := range c.contents[n-1].Parts {
		if p.FunctionResponse == nil {
			return nil
		}
	}
	if firstCallPart(c.contents[n-2].Parts) < 0 {
		return nil
	}
	return &c.contents[n-2]
}

func firstCallPart(ps []part) int {
	for i, p := range ps {
		if p.FunctionCall != nil {
			return i
		}
	}
	return -1
}

// sentID is the id a call goes back to Gemini with: none for one farebox
// made up.
func sentID(id string) string {
	if strings.HasPrefix(id, generatedCallPrefix) {
		return ""
	}
	return id
}

// output maps a call's output to a functionResponse for the same id and
// the call's name (Gemini requires it): a JSON object as the response,
// other output as {"output": text}.
func (c *conversation) output(i int, it *responses.Item) error {
	name, ok := c.names[it.CallID]
	if !ok {
		return responses.Invalid(fmt.Sprintf("input[%d].call_id", i), "invalid_value",
			"No function call with call_id '%s' comes before its output; Gemini needs the call to name the function.", it.CallID)
	}
	text := it.OutputText
	if !it.OutputIsString {
		var b strings.Builder
		for j, p := range it.Output {
			if p.Type != "input_text" && p.Type != "output_text" {
				return responses.Invalid(fmt.Sprintf("input[%d].output[%d]", i, j), "unsupported_content",
					"Model '%s' takes only text in a function call's output over the Gemini API, not %s.", c.model, p.Type)
			}
			b.WriteString(p.Text)
		}
		text = b.String()
	}
	resp := json.RawMessage(text)
	if !gjson.Valid(text) || !gjson.Parse(text).IsObject() {
		resp, _ = json.Marshal(map[string]string{"output": text})
	}
	c.add("user", part{FunctionResponse: &functionResponse{ID: sentID(it.CallID), Name: name, Response: resp}})
	return nil
}

// reasoning holds a Gemini thought signature for the next model part;
// other reasoning is left out. A summary shown with the signature goes
// back as the thought part it was.
func (c *conversation) reasoning(it *responses.Item) {
	sig, ok := strings.CutPrefix(it.EncryptedContent, prefixThought)
	if !ok || sig == "" {
		return
	}
	c.flushSignature()
	c.sig = sig
}

// parts maps user content parts: text, images and files (a data URL
// inline, an https or gs URL as fileData).
func parts(ps []responses.Part, param string) ([]part, error) {
	var out []part
	for j, p := range ps {
		at := fmt.Sprintf("%s[%d]", param, j)
		switch p.Type {
		case "input_text", "output_text", "refusal":
			if p.Text != "" {
				out = append(out, textPart(p.Text))
			}
		case "input_image":
			mp, err := media(p.ImageURL, "", at)
			if err != nil {
				return nil, err
			}
			out = append(out, mp)
		case "input_file":
			src := p.FileURL
			if p.FileData != "" {
				src = p.FileData
				if !strings.HasPrefix(src, "data:") {
					src = "data:application/pdf;base64," + src
				}
			}
			mp, err := media(src, "application/pdf", at)
			if err != nil {
				return nil, err
			}
			out = append(out, mp)
		default:
			return nil, responses.Invalid(at, "unsupported_content", "Content part type %q cannot be sent to this upstream.", p.Type)
		}
	}
	return out, nil
}

// media is the part for an image's or a file's URL: a base64 data URL as
// inlineData, an https or gs URL as fileData (its type from its
// extension), anything else refused.
func media(u, fallback, at string) (part, error) {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		meta, data, ok := strings.Cut(rest, ",")
		if ok && strings.HasSuffix(meta, ";base64") {
			return part{InlineData: &blob{MimeType: strings.TrimSuffix(meta, ";base64"), Data: data}}, nil
		}
		return part{}, responses.Invalid(at, "unsupported_content", "Gemini takes data URLs in base64 only.")
	}
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "gs://") {
		mt := mime.TypeByExtension(strings.ToLower(path.Ext(strings.SplitN(u, "?", 2)[0])))
		if mt == "" {
			mt = fallback
		}
		mt, _, _ = strings.Cut(mt, ";")
		return part{FileData: &fileData{MimeType: mt, FileURI: u}}, nil
	}
	return part{}, responses.Invalid(at, "unsupported_content",
		"Gemini takes images and files as base64 data URLs or https:// or gs:// URLs.")
}

// callID is the id of the n-th call of an answer that carried none:
// derived from the answer (its responseId and signatures) and the call,
// so it is the conversation's own and the same however it was read.
func callID(seed, name string, args []byte, n int) string {
	sum := sha256.Sum256(append([]byte(seed+"\x00"+name+"\x00"), args...))
	return fmt.Sprintf("%s%x_%d", generatedCallPrefix, sum[:6], n)
}
