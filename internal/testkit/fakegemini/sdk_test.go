package fakegemini

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// The fake is held to the official Go SDK: every answer it gives, whole
// or streamed, parses into the SDK's types with what a test relies on.

func sdkClient(t *testing.T, s *Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "fake-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: s.Origin(), APIVersion: "v1beta"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func weatherTools() []*genai.Tool {
	schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}
	return []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
		{Name: "get_weather", ParametersJsonSchema: schema}, {Name: "get_time", ParametersJsonSchema: schema}}}}
}

func TestSDKReadsTextWithThoughtsAndUsage(t *testing.T) {
	s := Start(Options{APIKey: "fake-key", Usage: Usage{Prompt: 40, Cached: 30, Candidates: 9, Thoughts: 7}})
	defer s.Close()
	c := sdkClient(t, s)
	cfg := &genai.GenerateContentConfig{ThinkingConfig: &genai.ThinkingConfig{IncludeThoughts: true}}
	res, err := c.Models.GenerateContent(context.Background(), "text", genai.Text("Hi"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts := res.Candidates[0].Content.Parts
	if len(parts) != 2 || !parts[0].Thought || parts[0].Text != ThoughtText || parts[1].Text != DefaultText {
		t.Fatalf("parts: %+v", parts)
	}
	if !s.validSignature(base64.StdEncoding.EncodeToString(parts[1].ThoughtSignature)) {
		t.Errorf("the SDK did not keep the signature: %q", parts[1].ThoughtSignature)
	}
	u := res.UsageMetadata
	if res.Candidates[0].FinishReason != genai.FinishReasonStop || u.PromptTokenCount != 40 || u.CachedContentTokenCount != 30 ||
		u.CandidatesTokenCount != 9 || u.ThoughtsTokenCount != 7 {
		t.Errorf("finish %s, usage %+v", res.Candidates[0].FinishReason, u)
	}

	var text strings.Builder
	var sig []byte
	var finish genai.FinishReason
	for chunk, err := range c.Models.GenerateContentStream(context.Background(), "text", genai.Text("Hi"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range chunk.Candidates[0].Content.Parts {
			text.WriteString(p.Text)
			if len(p.ThoughtSignature) > 0 {
				sig = p.ThoughtSignature
			}
		}
		finish = chunk.Candidates[0].FinishReason
	}
	if text.String() != DefaultText || finish != genai.FinishReasonStop || len(sig) == 0 {
		t.Errorf("stream: %q %s sig %q", text.String(), finish, sig)
	}
}

// A tool round trip as a Gemini client makes it: parallel calls with ids,
// the first signed; the model turn sent back as it came with the
// responses; an altered signature refused with 400 INVALID_ARGUMENT.
func TestSDKToolRoundTripWithSignatures(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	c := sdkClient(t, s)
	ctx := context.Background()
	cfg := &genai.GenerateContentConfig{Tools: weatherTools()}
	history := genai.Text("Weather and time in Paris?")
	for _, stream := range []bool{false, true} {
		var model *genai.Content
		if stream {
			model = &genai.Content{Role: "model"}
			for chunk, err := range c.Models.GenerateContentStream(ctx, "call", history, cfg) {
				if err != nil {
					t.Fatal(err)
				}
				model.Parts = append(model.Parts, chunk.Candidates[0].Content.Parts...)
			}
		} else {
			res, err := c.Models.GenerateContent(ctx, "call", history, cfg)
			if err != nil {
				t.Fatal(err)
			}
			model = res.Candidates[0].Content
		}
		var calls []*genai.FunctionCall
		for _, p := range model.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, p.FunctionCall)
			}
		}
		if len(calls) != 2 || calls[0].ID == "" || calls[0].Args["city"] != "Paris" || len(model.Parts[0].ThoughtSignature) == 0 {
			t.Fatalf("stream %v: %+v", stream, model.Parts)
		}
		resps := &genai.Content{Role: "user"}
		for _, fc := range calls {
			resps.Parts = append(resps.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: fc.Name,
				Response: map[string]any{"output": "sunny"}}})
		}
		next := append(append([]*genai.Content{}, history...), model, resps)
		res, err := c.Models.GenerateContent(ctx, "call", next, cfg)
		if err != nil {
			t.Fatalf("stream %v, second turn: %v", stream, err)
		}
		if got := res.Text(); !strings.Contains(got, `get_weather said {"output":"sunny"}`) {
			t.Errorf("second turn: %q", got)
		}
		model.Parts[0].ThoughtSignature = append([]byte("x"), model.Parts[0].ThoughtSignature...)
		_, err = c.Models.GenerateContent(ctx, "call", next, cfg)
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != 400 || apiErr.Status != "INVALID_ARGUMENT" {
			t.Errorf("altered signature: %v", err)
		}
		model.Parts[0].ThoughtSignature = nil
		if _, err = c.Models.GenerateContent(ctx, "call", next, cfg); !errors.As(err, &apiErr) || apiErr.Code != 400 {
			t.Errorf("missing signature: %v", err)
		}
	}
}

func TestSDKReadsBlocksAndErrors(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	c := sdkClient(t, s)
	ctx := context.Background()
	res, err := c.Models.GenerateContent(ctx, "blocked", genai.Text("Hi"), nil)
	if err != nil || res.PromptFeedback == nil || res.PromptFeedback.BlockReason != genai.BlockedReasonSafety || len(res.Candidates) != 0 {
		t.Errorf("blocked: %v %+v", err, res)
	}
	res, err = c.Models.GenerateContent(ctx, "safety", genai.Text("Hi"), nil)
	if err != nil || res.Candidates[0].FinishReason != genai.FinishReasonSafety || res.Text() != "" {
		t.Errorf("safety: %v %+v", err, res)
	}
	res, err = c.Models.GenerateContent(ctx, "finish:MAX_TOKENS", genai.Text("Hi"), nil)
	if err != nil || res.Candidates[0].FinishReason != genai.FinishReasonMaxTokens || res.Text() == "" {
		t.Errorf("max tokens: %v %+v", err, res)
	}
	for model, code := range map[string]int{"status:429+retry_after=7": 429, "status:503": 503, "status:400": 400} {
		_, err = c.Models.GenerateContent(ctx, model, genai.Text("Hi"), nil)
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != code || apiErr.Status == "" {
			t.Errorf("%s: %v", model, err)
		}
		if code == 429 && (len(apiErr.Details) == 0 || apiErr.Details[0]["retryDelay"] != "7s") {
			t.Errorf("429 without RetryInfo: %+v", apiErr.Details)
		}
	}
	var streamErr error
	chunks := 0
	for _, err := range c.Models.GenerateContentStream(ctx, "error_midstream", genai.Text("Hi"), nil) {
		if err != nil {
			streamErr = err
			break
		}
		chunks++
	}
	var apiErr genai.APIError
	if chunks != 1 || !errors.As(streamErr, &apiErr) || apiErr.Code != 503 {
		t.Errorf("mid-stream error after %d chunks: %v", chunks, streamErr)
	}
	s2 := Start(Options{APIKey: "right"})
	defer s2.Close()
	if _, err := sdkClient(t, s2).Models.GenerateContent(ctx, "text", genai.Text("Hi"), nil); !errors.As(err, &apiErr) || apiErr.Code != 400 {
		t.Errorf("wrong key: %v", err)
	}
}

// The SDK's CountTokens reads the fake's count: "Hello there, count me"
// is 21 bytes (6 tokens) in one turn (3).
func TestSDKCountsTokens(t *testing.T) {
	s := Start(Options{APIKey: "fake-key"})
	defer s.Close()
	res, err := sdkClient(t, s).Models.CountTokens(context.Background(), "text", genai.Text("Hello there, count me"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalTokens != 9 {
		t.Errorf("totalTokens %d, want 9", res.TotalTokens)
	}
}
