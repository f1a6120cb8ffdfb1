package responses_test

import (
	"testing"

	"github.com/farebox/farebox/internal/testkit/requestcases"
	"github.com/farebox/farebox/responses"
)

// TestCodexRequestsParse takes the requests Codex CLI really sends: a
// namespace tool, a web_search tool (dropped, provider-executed),
// client_metadata, reasoning items replayed with encrypted_content, and
// function and custom tool calls with their outputs.
func TestCodexRequestsParse(t *testing.T) {
	for _, name := range []string{requestcases.CodexExec, requestcases.CodexExecFunctionFollowup, requestcases.CodexExecCustomCallFollowup} {
		t.Run(name, func(t *testing.T) {
			req, err := responses.Parse(requestcases.CodexRequest(name))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(req.DroppedTools), 1; got != want || req.DroppedTools[0] != "web_search" {
				t.Fatalf("dropped %v", req.DroppedTools)
			}
			ns := 0
			for _, tl := range req.Tools {
				if tl.Namespace == "multi_agent_v1" {
					ns++
				}
			}
			if ns == 0 {
				t.Fatal("the namespace's functions are missing")
			}
			if !req.IncludesEncryptedReasoning() || len(req.Passthrough) == 0 || req.Passthrough[0].Key != "client_metadata" {
				t.Fatalf("include %v passthrough %v", req.Include, req.Passthrough)
			}
			if _, err := responses.ParseWith(requestcases.CodexRequest(name), responses.HostedRefuse); err == nil || err.Param != "tools[8].type" {
				t.Fatalf("refuse policy: %v", err)
			}
		})
	}
}
