package chat

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/tidwall/gjson"
)

// wantCalls is what each tool-call fixture must come out as, whatever the
// golden file says: (call_id name arguments) per call, in order.
var wantCalls = map[string][]string{
	"parallel_calls":       {`call_w1 get_weather {"city": "Paris"}`, `call_w2 get_weather {"city": "Tokyo"}`},
	"index_zero":           {`call_o1 get_weather {"city":"Paris"}`, `call_o2 get_time {"zone":"Europe/Paris"}`},
	"missing_index":        {`call_g1 get_weather {"city":"Paris"}`, `call_g2 get_time {"zone":"UTC"}`},
	"several_in_one_chunk": {`call_s1 get_weather {"city":"Paris"}`, `call_s2 get_time {"zone":"UTC"}`},
	"args_before_name":     {`call_b1 get_weather {"city": "Paris"}`},
	"whole_call":           {`call_one get_weather {"city":"Paris"}`},
	"text_then_calls":      {`call_t1 get_weather {"city":"Paris"}`},
}

func TestFixturesGolden(t *testing.T) {
	upstreamtest.FixturesGolden(t, "chat", newModel, *update, func(t *testing.T, name, events string, final []byte) {
		checkCalls(t, name, final)
		checkNoDone(t, events)
	})
}

func checkCalls(t *testing.T, name string, final []byte) {
	t.Helper()
	want, ok := wantCalls[name]
	if !ok {
		return
	}
	var got []string
	gjson.GetBytes(final, `output.#(type=="function_call")#`).ForEach(func(_, c gjson.Result) bool {
		got = append(got, c.Get("call_id").Str+" "+c.Get("name").Str+" "+c.Get("arguments").Str)
		return true
	})
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func checkNoDone(t *testing.T, events string) {
	t.Helper()
	if strings.Contains(events, "[DONE]") {
		t.Error("the upstream's [DONE] reached the client's events")
	}
}
