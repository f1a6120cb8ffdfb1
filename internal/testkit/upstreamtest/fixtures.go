package upstreamtest

import (
	"path/filepath"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/upstream/upstreamhttp"
)

// GoldenRequest is the client request every fixture is replayed against: a
// string input and two function tools, so tool-call fixtures have names to
// call.
const GoldenRequest = `{"model":"client-model","input":"Weather in Paris?","tools":[
 {"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},
 {"type":"function","name":"get_time","parameters":{"type":"object","properties":{"zone":{"type":"string"}}}}]}`

// FixturesGolden replays every fakeupstream fixture of kind ("chat" or
// "responses") through the model newModel builds, pins each Transcript of
// GoldenRequest to testdata/streams/<fixture>.txt (rewritten when update is
// set), and hands the events and final object of every fixture that
// produced one to check, for what must hold whatever the golden file says.
func FixturesGolden(t *testing.T, kind string, newModel NewModel, update bool, check func(t *testing.T, fixture, events string, final []byte)) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	names := fakeupstream.Fixtures(kind)
	if len(names) == 0 {
		t.Fatalf("no %s fixtures", kind)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, err := newModel(up.URL(), "", "fixture:"+name, upstreamhttp.Timeouts{})
			if err != nil {
				t.Fatal(err)
			}
			got, events, final := Transcript(t, m, GoldenRequest)
			if final != nil {
				check(t, name, events, final)
			}
			Golden(t, filepath.Join("testdata", "streams", name+".txt"), got, update)
		})
	}
}
