package chat

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/fakeupstream"
	"github.com/farebox/farebox/internal/upstreamtest"
	"github.com/tidwall/gjson"
)

const goldenRequest = `{"model":"client-model","input":"Weather in Paris?","tools":[
 {"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},
 {"type":"function","name":"get_time","parameters":{"type":"object","properties":{"zone":{"type":"string"}}}}]}`

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
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	names := fakeupstream.Fixtures("chat")
	if len(names) == 0 {
		t.Fatal("no chat fixtures")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, err := New(Config{BaseURL: up.URL(), Model: "fixture:" + name})
			if err != nil {
				t.Fatal(err)
			}
			got, events, final := upstreamtest.Transcript(t, m, goldenRequest)
			if final != nil {
				checkCalls(t, name, final)
				checkNoDone(t, events)
			}
			upstreamtest.Golden(t, filepath.Join("testdata", "streams", name+".txt"), got, *update)
		})
	}
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
