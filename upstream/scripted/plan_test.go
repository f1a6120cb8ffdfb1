package scripted

import (
	"slices"
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
)

// parse builds a Request the way the gateway does, from a request body.
func parse(t *testing.T, body string) *responses.Request {
	t.Helper()
	req, err := responses.Parse([]byte(body))
	if err != nil {
		t.Fatalf("parse %s: %v", body, err.Message)
	}
	return req
}

const threeTools = `[
 {"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
 {"type":"function","name":"search","parameters":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}},
 {"type":"function","function":{"name":"send_email","parameters":{"type":"object","properties":{"to":{"type":"string","format":"email"}}}}}]`

func TestChooseUnderEachToolChoice(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		extra string // more top-level fields
		tools string
		want  []string
	}{
		{"no tools", "call get_weather", ``, ``, nil},
		{"auto, nothing named", "hello there", ``, threeTools, nil},
		{"auto, one named", "what does get_weather say?", ``, threeTools, []string{"get_weather"}},
		{"auto, order of the message", "first search, then get_weather and send_email", ``, threeTools, []string{"search", "get_weather", "send_email"}},
		{"named twice is called once", "search search get_weather", ``, threeTools, []string{"search", "get_weather"}},
		{"case-insensitive", "use GET_WEATHER please", ``, threeTools, []string{"get_weather"}},
		{"whole words only", "research get_weather_v2 send_emails", ``, threeTools, nil},
		{"parallel off keeps the first", "search and get_weather", `,"parallel_tool_calls":false`, threeTools, []string{"search"}},
		{"max_tool_calls caps", "search and get_weather and send_email", `,"max_tool_calls":2`, threeTools, []string{"search", "get_weather"}},
		{"none", "search and get_weather", `,"tool_choice":"none"`, threeTools, nil},
		{"required, named", "get_weather please", `,"tool_choice":"required"`, threeTools, []string{"get_weather"}},
		{"required, nothing named", "hello", `,"tool_choice":"required"`, threeTools, []string{"get_weather"}},
		{"function forces one", "search and get_weather", `,"tool_choice":{"type":"function","name":"send_email"}`, threeTools, []string{"send_email"}},
		{"function, Chat form", "hello", `,"tool_choice":{"type":"function","function":{"name":"search"}}`, threeTools, []string{"search"}},
		{"allowed auto filters", "search and get_weather", `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"get_weather"}]}`, threeTools, []string{"get_weather"}},
		{"allowed auto, none named", "search only", `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"get_weather"}]}`, threeTools, nil},
		{"allowed required, named", "send_email and search", `,"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get_weather"},{"type":"function","name":"search"}]}`, threeTools, []string{"search"}},
		{"allowed required, none named", "hello", `,"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"search"},{"type":"function","name":"get_weather"}]}`, threeTools, []string{"search"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"model":"m","input":` + quote(tc.text) + tc.extra
			if tc.tools != "" {
				body += `,"tools":` + tc.tools
			}
			req := parse(t, body+`}`)
			got := choose(req)
			if !slices.Equal(got, tc.want) {
				t.Errorf("choose = %q, want %q", got, tc.want)
			}
			for _, n := range got {
				if !req.Permits(n) {
					t.Errorf("chose %s, which the request does not permit", n)
				}
			}
		})
	}
}

func TestChooseReadsOnlyTheLastUserMessage(t *testing.T) {
	req := parse(t, `{"model":"m","tools":`+threeTools+`,"input":[
		{"role":"user","content":"search for it"},
		{"role":"assistant","content":"sure"},
		{"role":"user","content":[{"type":"input_text","text":"now"},{"type":"input_text","text":"get_weather"}]}]}`)
	if got, want := choose(req), []string{"get_weather"}; !slices.Equal(got, want) {
		t.Errorf("choose = %q, want %q", got, want)
	}
}

func TestPlanAnswersOutputsWithText(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"string output", `[{"role":"user","content":"get_weather in Paris"},
			{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{}"},
			{"type":"function_call_output","call_id":"call_1","output":"Sunny, 21 °C"}]`,
			"get_weather returned: Sunny, 21 °C"},
		{"array output with an image", `[{"role":"user","content":"search"},
			{"type":"function_call","call_id":"call_1","name":"search","arguments":"{}"},
			{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"found"},{"type":"input_image","image_url":"https://example.com/a.png"},{"type":"input_text","text":"two"}]}]`,
			"search returned: found [image] two"},
		{"parallel outputs in order", `[{"role":"user","content":"search and get_weather"},
			{"type":"function_call","call_id":"call_a","name":"search","arguments":"{}"},
			{"type":"function_call","call_id":"call_b","name":"get_weather","arguments":"{}"},
			{"type":"function_call_output","call_id":"call_a","output":"A"},
			{"type":"reasoning","id":"rs_1","summary":[]},
			{"type":"function_call_output","call_id":"call_b","output":"B"}]`,
			"search returned: A\nget_weather returned: B"},
		{"only the last round", `[{"role":"user","content":"search"},
			{"type":"function_call","call_id":"call_a","name":"search","arguments":"{}"},
			{"type":"function_call_output","call_id":"call_a","output":"old"},
			{"role":"assistant","content":"search returned: old"},
			{"role":"user","content":"again: search"},
			{"type":"function_call","call_id":"call_b","name":"search","arguments":"{}"},
			{"type":"function_call_output","call_id":"call_b","output":"new"}]`,
			"search returned: new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, choice := range []string{`"auto"`, `"required"`} {
				req := parse(t, `{"model":"m","tools":`+threeTools+`,"tool_choice":`+choice+`,"input":`+tc.input+`}`)
				p := makePlan(req)
				if len(p.calls) != 0 || p.text != tc.want {
					t.Errorf("tool_choice %s: plan = %+v, want text %q", choice, p, tc.want)
				}
			}
		})
	}
}

func TestPlanEchoesTheLastUserMessage(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"string input", `{"model":"m","input":"Hello!"}`, "You said: Hello!"},
		{"instructions do not change the echo", `{"model":"m","instructions":"Talk like a pirate.","input":"Hello!"}`, "You said: Hello!"},
		{"parts with an image", `{"model":"m","input":[{"role":"system","content":"be brief"},{"type":"message","role":"user","content":[{"type":"input_text","text":"What is this?"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}]}`,
			"You said: What is this? [image]"},
		{"multi-turn", `{"model":"m","input":[{"role":"user","content":"one"},{"role":"assistant","content":"You said: one"},{"role":"user","content":"two"}]}`, "You said: two"},
		{"tools named but tool_choice none", `{"model":"m","tool_choice":"none","tools":` + threeTools + `,"input":"search"}`, "You said: search"},
		{"no user message", `{"model":"m","input":[{"role":"developer","content":"hi"}]}`, "There is no user message to answer."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := makePlan(parse(t, tc.body))
			if len(p.calls) != 0 || p.text != tc.want {
				t.Errorf("plan = %+v, want text %q", p, tc.want)
			}
		})
	}
}

func TestPlanCallsCarryValidArgumentsAndFreshIDs(t *testing.T) {
	body := `{"model":"m","tools":` + threeTools + `,"input":[
		{"role":"user","content":"search"},
		{"type":"function_call","call_id":"call_old","name":"search","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_old","output":"x"},
		{"role":"user","content":"search and send_email"}]}`
	p := makePlan(parse(t, body))
	if len(p.calls) != 2 {
		t.Fatalf("plan = %+v, want two calls", p)
	}
	if p.calls[0].Arguments != `{"query":"weather in Paris"}` || p.calls[1].Arguments != `{"to":"ada@example.com"}` {
		t.Errorf("arguments = %s, %s", p.calls[0].Arguments, p.calls[1].Arguments)
	}
	if p.calls[0].ID == p.calls[1].ID || p.calls[0].ID == "call_old" || !strings.HasPrefix(p.calls[0].ID, "call_") {
		t.Errorf("call ids %s, %s are not fresh", p.calls[0].ID, p.calls[1].ID)
	}
	again := makePlan(parse(t, body))
	if !slices.Equal(p.calls, again.calls) {
		t.Errorf("not deterministic: %+v then %+v", p.calls, again.calls)
	}
	other := makePlan(parse(t, strings.Replace(body, "search and send_email", "search and send_email now", 1)))
	if other.calls[0].ID == p.calls[0].ID {
		t.Errorf("another conversation got the same call id %s", p.calls[0].ID)
	}
}

func TestCallIDsSkipIDsAlreadyTaken(t *testing.T) {
	seed := []byte("conversation")
	first := deriveCallIDs(seed, map[string]bool{}, 3)
	taken := map[string]bool{first[0]: true, first[2]: true}
	again := deriveCallIDs(seed, taken, 3)
	seen := map[string]bool{}
	for _, id := range again {
		if id == first[0] || id == first[2] {
			t.Errorf("id %s was already taken", id)
		}
		if seen[id] {
			t.Errorf("id %s repeats", id)
		}
		seen[id] = true
	}
}

func TestClipNeverSplitsARune(t *testing.T) {
	tests := []struct {
		text  string
		limit int64
		want  string
		cut   bool
	}{
		{"hello", 64, "hello", false},
		{"hello", 5, "hello", false},
		{"hello", 3, "hel", true},
		{"héllo", 2, "h", true},
		{"☃☃", 5, "☃", true},
		{"abc", 0, "", true},
	}
	for _, tc := range tests {
		got, cut := clip(tc.text, tc.limit)
		if got != tc.want || cut != tc.cut {
			t.Errorf("clip(%q, %d) = %q, %v; want %q, %v", tc.text, tc.limit, got, cut, tc.want, tc.cut)
		}
	}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
