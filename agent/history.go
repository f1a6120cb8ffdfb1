package agent

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// Item is one conversation item in its Responses wire form: a message, a
// function_call, a function_call_output, a reasoning item. A history is
// plain JSON, so it can be saved and resumed anywhere.
type Item = json.RawMessage

// UserMessage is a user message item.
func UserMessage(text string) Item {
	b, _ := json.Marshal(map[string]any{"type": "message", "role": "user", "content": text})
	return b
}

// FunctionCallOutput is the output item answering the call callID.
func FunctionCallOutput(callID string, o Output) Item {
	b, _ := json.Marshal(map[string]any{"type": "function_call_output", "call_id": callID, "output": outputJSON(o)})
	return b
}

// Call is one function call the model made.
type Call struct {
	ID        string // call_id
	Name      string
	Arguments string // a JSON object
}

func callOf(it gjson.Result) Call {
	return Call{ID: it.Get("call_id").String(), Name: it.Get("name").String(), Arguments: it.Get("arguments").String()}
}

// PendingCalls returns the calls that end history without outputs: what a
// resumed run executes before it asks the model again.
func PendingCalls(history []Item) []Call {
	answered := map[string]bool{}
	var calls []Call
	for i := len(history) - 1; i >= 0; i-- {
		it := gjson.ParseBytes(history[i])
		switch it.Get("type").String() {
		case "function_call_output":
			answered[it.Get("call_id").String()] = true
			continue
		case "function_call":
			if c := callOf(it); !answered[c.ID] {
				calls = append([]Call{c}, calls...)
			}
			continue
		case "reasoning":
			continue
		}
		break
	}
	return calls
}
