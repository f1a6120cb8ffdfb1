package requestcases

import (
	"embed"
	"path"
)

// Requests recorded from OpenAI's Codex CLI 0.169.0 (`codex exec`) against
// a capture server: its first turn, and follow-ups replaying a reasoning
// item with encrypted_content next to a function call and its output, and
// next to a custom (freeform) tool call and its output.
//
//go:embed testdata/codex-*.json
var codexFS embed.FS

// Codex files, by name.
const (
	CodexExec                   = "codex-exec.json"
	CodexExecFunctionFollowup   = "codex-exec-function-followup.json"
	CodexExecCustomCallFollowup = "codex-exec-custom-followup.json"
)

// CodexRequest returns one recorded Codex request body.
func CodexRequest(name string) []byte {
	b, err := codexFS.ReadFile(path.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return b
}
