package gemini

import (
	"encoding/json"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// generateRequest is the GenerateContentRequest farebox sends, built field
// by field from the canonical request, so nothing the client sent beyond
// what farebox understood reaches the operator's Gemini account.
type generateRequest struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []toolDecl        `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

// content is one turn: role user or model (none for the system
// instruction).
type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is one part of any kind farebox sends: text, inlineData, fileData,
// functionCall, functionResponse, a thought.
type part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FileData         *fileData         `json:"fileData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type fileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type toolDecl struct {
	FunctionDeclarations []functionDecl `json:"functionDeclarations"`
}

// functionDecl takes the client's JSON Schema whole as
// parametersJsonSchema, the field Gemini reads full JSON Schema from
// (parameters takes only its OpenAPI subset).
type functionDecl struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig functionCallingConfig `json:"functionCallingConfig"`
}

type functionCallingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens    *int64          `json:"maxOutputTokens,omitempty"`
	Temperature        *float64        `json:"temperature,omitempty"`
	TopP               *float64        `json:"topP,omitempty"`
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
	ThinkingConfig     *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int64 `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

func textPart(s string) part { return part{Text: &s} }

// build makes the GenerateContentRequest body for req under cfg.
func build(req *responses.Request, cfg *Config) ([]byte, error) {
	var out generateRequest
	system, contents, err := translateInput(req)
	if err != nil {
		return nil, err
	}
	out.SystemInstruction, out.Contents = system, contents
	if out.Tools, out.ToolConfig, err = translateTools(req); err != nil {
		return nil, err
	}
	gc := &generationConfig{Temperature: req.Temperature, TopP: req.TopP, MaxOutputTokens: maxTokens(req, cfg)}
	if err := outputFormat(gc, req); err != nil {
		return nil, err
	}
	gc.ThinkingConfig = thinkingFor(req, cfg)
	if gc.MaxOutputTokens != nil || gc.Temperature != nil || gc.TopP != nil || gc.ResponseMimeType != "" || gc.ThinkingConfig != nil {
		out.GenerationConfig = gc
	}
	return json.Marshal(out)
}

// maxTokens is the client's max_output_tokens within the operator's cap;
// with neither, none is sent and the model's own limit applies.
func maxTokens(req *responses.Request, cfg *Config) *int64 {
	var n int64
	if req.MaxOutputTokens != nil && *req.MaxOutputTokens > 0 {
		n = *req.MaxOutputTokens
	}
	if c := cfg.MaxOutputTokens; c > 0 && (n == 0 || n > c) {
		n = c
	}
	if n == 0 {
		return nil
	}
	return &n
}

// outputFormat maps text.format: json_schema to a JSON answer held to the
// schema, json_object to a JSON answer; anything else but text is refused
// rather than silently answered as free text.
func outputFormat(gc *generationConfig, req *responses.Request) error {
	f := gjson.GetBytes(req.Text, "format")
	switch f.Get("type").Str {
	case "", "text":
		return nil
	case "json_object":
		gc.ResponseMimeType = "application/json"
		return nil
	case "json_schema":
		gc.ResponseMimeType = "application/json"
		if s := f.Get("schema"); s.IsObject() {
			gc.ResponseJSONSchema = json.RawMessage(s.Raw)
		}
		return nil
	}
	return responses.Invalid("text.format.type", "unsupported_value",
		"Model '%s' cannot answer with text.format %q; use json_schema, json_object or text.", req.Model, f.Get("type").Str)
}

// thinkingFor is the thinkingConfig for reasoning.effort under the
// operator's mode; a summary asked for (reasoning.summary) shows the
// model's thoughts whatever the mode.
func thinkingFor(req *responses.Request, cfg *Config) *thinkingConfig {
	tc := &thinkingConfig{}
	if s := gjson.GetBytes(req.Reasoning, "summary").Str; s != "" && s != "none" {
		tc.IncludeThoughts = true
	}
	effort := gjson.GetBytes(req.Reasoning, "effort").Str
	switch {
	case effort == "":
	case cfg.Thinking.Mode == ThinkingBudget:
		b, ok := cfg.Thinking.Budgets[effort]
		if !ok {
			b, ok = DefaultBudgets[effort]
		}
		if !ok {
			b = DefaultBudgets["medium"]
		}
		tc.ThinkingBudget = &b
	case cfg.Thinking.Mode == ThinkingLevel && effort != "none":
		l, ok := cfg.Thinking.Levels[effort]
		if !ok {
			l, ok = DefaultLevels[effort]
		}
		if !ok {
			l = "high"
		}
		tc.ThinkingLevel = l
	}
	if *tc == (thinkingConfig{}) {
		return nil
	}
	return tc
}
