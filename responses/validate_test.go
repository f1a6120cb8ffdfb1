package responses

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/requestcases"
)

// base builds a body from a valid minimal request plus extra top-level
// fields (a JSON fragment starting with a comma).
func base(extra string) string { return `{"model":"m","input":"hi"` + extra + `}` }

// in builds a body whose input is the given items.
func in(items string) string { return `{"model":"m","input":[` + items + `]}` }

const fnTools = `,"tools":[{"type":"function","name":"a"},{"type":"function","name":"b"}]`

func TestParseRefusesMalformedAndUnsupportedRequests(t *testing.T) {
	cases := requestcases.Malformed()
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	checkRefusals(t, cases, Parse)
}

func TestParseRefusesHostedToolsUnderRefusePolicy(t *testing.T) {
	checkRefusals(t, requestcases.HostedRefused(), func(b []byte) (*Request, *Error) { return ParseWith(b, HostedRefuse) })
	for _, c := range requestcases.HostedRefused() {
		if _, err := Parse([]byte(c.Body)); err != nil {
			t.Errorf("%s: refused under the drop policy: %s", c.Name, err.Message)
		}
	}
}

func checkRefusals(t *testing.T, cases []requestcases.Case, parse func([]byte) (*Request, *Error)) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r, err := parse([]byte(c.Body))
			if err == nil {
				t.Fatalf("accepted: %+v", r)
			}
			if r != nil {
				t.Errorf("a request came back with the error")
			}
			if got, want := err.Status, 400; got != want {
				t.Errorf("status = %d, want %d", got, want)
			}
			if got, want := err.Type, "invalid_request_error"; got != want {
				t.Errorf("type = %q, want %q", got, want)
			}
			if got, want := err.Param, c.Param; got != want {
				t.Errorf("param = %q, want %q (%s)", got, want, err.Message)
			}
			if got, want := err.Code, c.Code; got != want {
				t.Errorf("code = %q, want %q (%s)", got, want, err.Message)
			}
			if c.Msg != "" && err.Message != c.Msg {
				t.Errorf("message = %q\nwant      %q", err.Message, c.Msg)
			}
			if err.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

func TestRefusalsExplainWhy(t *testing.T) {
	cases := []struct {
		body, contains string
	}{
		{base(`,"tools":[{"type":"web_search"}]`), "farebox runs no tools server-side"},
		{base(`,"tools":[{"type":"mcp"}]`), "tools.hosted"},
		{in(`{"type":"file_search_call","id":"fs"}`), "farebox runs no tools server-side"},
		{base(fnTools + `,"tool_choice":{"type":"code_interpreter"}`), "farebox runs no tools server-side"},
		{in(`{"type":"item_reference","id":"msg_1"}`), "stateless"},
		{base(`,"conversation":"conv_1"`), "stateless"},
		{base(`,"background":true`), "stateless"},
		{base(`,"previous_response_id":"resp_abc"`), "Previous response with id 'resp_abc' not found."},
	}
	for _, c := range cases {
		_, err := ParseWith([]byte(c.body), HostedRefuse)
		if err == nil {
			t.Errorf("%s: accepted", c.body)
			continue
		}
		if !strings.Contains(err.Message, c.contains) {
			t.Errorf("%s: message %q lacks %q", c.body, err.Message, c.contains)
		}
	}
}

func TestDeepNestingIsRefusedWithoutRecursion(t *testing.T) {
	// 20 MiB of '[' overflowed the goroutine stack inside gjson's validator
	// (a fatal error, not a panic) before the depth check existed.
	_, err := Parse([]byte(`{"model":"m","input":` + strings.Repeat("[", 20<<20)))
	if err == nil || err.Code != "invalid_json" {
		t.Fatalf("got %v", err)
	}
	// Brackets inside strings are text, however many there are.
	body := `{"model":"m","input":"` + strings.Repeat("[{", maxDepth) + `\"[" }`
	if _, err := Parse([]byte(body)); err != nil {
		t.Fatalf("brackets in a string refused: %v", err)
	}
	// The deepest nesting allowed still parses.
	deep := strings.Repeat(`{"a":`, maxDepth-3) + "1" + strings.Repeat("}", maxDepth-3)
	if _, err := Parse([]byte(`{"model":"m","input":"x","tools":[{"type":"function","name":"f","parameters":` + deep + `}]}`)); err != nil {
		t.Fatalf("depth %d refused: %v", maxDepth, err)
	}
}

func TestPairingScalesPastTheLinearScan(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"model":"m","input":[`)
	const n = 200
	for i := 0; i < n; i++ {
		id := "call_" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"function_call","call_id":"` + id + `","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"` + id + `","output":"ok"}`)
	}
	b.WriteString(`,{"type":"function_call","call_id":"call_last","name":"f","arguments":"{}"}]}`)
	_, err := Parse([]byte(b.String()))
	if err == nil || err.Message != "No tool output found for function call call_last." {
		t.Fatalf("got %v", err)
	}
	dup := strings.Replace(b.String(), `"call_last"`, `"call_a0"`, 1)
	_, err = Parse([]byte(dup))
	if err == nil || err.Param != "input[400].call_id" {
		t.Fatalf("duplicate past the scan: got %v", err)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}
