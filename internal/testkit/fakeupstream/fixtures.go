package fakeupstream

import (
	"bytes"
	"embed"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// The recorded-shape streams. A fixture file is SSE exactly as served;
// lines starting with "#" are notes for the reader and are stripped, and a
// frame "#!abort" cuts the connection at that point (a mid-stream failure).
//
//go:embed fixtures/*.sse
var fixtureFS embed.FS

// fixture is one parsed fixture file: frames to write, possibly ending in an abort.
type fixture struct {
	frames [][]byte
	abort  bool
}

var (
	fixturesOnce sync.Once
	fixtures     map[string]*fixture // "name.api" -> fixture
)

func loadFixtures() {
	fixtures = map[string]*fixture{}
	entries, _ := fixtureFS.ReadDir("fixtures")
	for _, e := range entries {
		data, err := fixtureFS.ReadFile("fixtures/" + e.Name())
		if err != nil {
			continue
		}
		fixtures[strings.TrimSuffix(e.Name(), ".sse")] = parseFixture(data)
	}
}

func parseFixture(data []byte) *fixture {
	f := &fixture{}
	var frame []byte
	flush := func() {
		if len(frame) > 0 {
			f.frames = append(f.frames, append(frame, '\n'))
			frame = nil
		}
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		switch {
		case bytes.Equal(bytes.TrimSpace(line), []byte("#!abort")):
			flush()
			f.abort = true
			return f
		case bytes.HasPrefix(line, []byte("#")):
		case len(bytes.TrimSpace(line)) == 0:
			flush()
		default:
			frame = append(frame, line...)
			frame = append(frame, '\n')
		}
	}
	flush()
	return f
}

// Fixtures lists the fixture names available for api ("chat" or "responses").
func Fixtures(api string) []string {
	fixturesOnce.Do(loadFixtures)
	var names []string
	for k := range fixtures {
		if name, ok := strings.CutSuffix(k, "."+api); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// replay serves a "fixture:NAME" model. Fixtures exist only as streams: a
// non-streaming request for one is a 400.
func (s *Server) replay(c call) {
	fixturesOnce.Do(loadFixtures)
	f := fixtures[c.plan.arg+"."+c.api.String()]
	if f == nil || !c.stream {
		msg := "fakeupstream: no " + c.api.String() + " fixture named " + c.plan.arg
		if f != nil {
			msg = "fakeupstream: fixtures are streams; send stream: true"
		}
		body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": "model", "code": nil}})
		c.write(newAnswer(404, ctJSON, [][]byte{body}))
		return
	}
	c.write(newAnswer(200, ctSSE, f.frames))
	if f.abort {
		http.NewResponseController(c.w).Flush()
		panic(http.ErrAbortHandler)
	}
}
