package responses

import (
	"strconv"
	"strings"
	"testing"
)

// A key sent twice in one object is a 400 naming where, however it is
// spelled: farebox and the provider would otherwise read different
// requests (the first key against the last).
func TestHostileDuplicateKeysAreRefusedNamingThePath(t *testing.T) {
	for _, c := range []struct{ name, body, param string }{
		{"the shell environment attack", `{"model":"m","input":"x","tools":[{"type":"shell","environment":{"type":"local","type":"container_auto","file_ids":["file_1"]}}]}`, "tools[0].environment.type"},
		{"spelled with an escape", `{"model":"m","input":"x","tools":[{"type":"shell","environment":{"type":"local","\u0074ype":"container_auto"}}]}`, "tools[0].environment.type"},
		{"at the top", `{"model":"m","input":"x","model":"n"}`, "model"},
		{"in an input item", `{"model":"m","input":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"input_text","text":"a","text":"b"}]}]}`, "input[1].content[0].text"},
		{"in a tool's schema", `{"model":"m","input":"x","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{},"b":{},"a":{}}}}]}`, "tools[0].parameters.properties.a"},
		{"in a large object", `{"model":"m","input":"x","metadata":{` + manyKeys(40) + `,"k7":"again"}}`, "metadata.k7"},
		{"a tool type, twice", `{"model":"m","input":"x","tools":[{"type":"function","type":"web_search","name":"f"}]}`, "tools[0].type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.body))
			if err == nil || err.Status != 400 || err.Code != "duplicate_key" || err.Param != c.param {
				t.Fatalf("got %+v, want a 400 duplicate_key at %q", err, c.param)
			}
		})
	}
}

// The same key in different objects, and key-like text inside strings,
// are not duplicates.
func TestSameKeyInSeparateObjectsIsFine(t *testing.T) {
	for _, body := range []string{
		`{"model":"m","input":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`,
		`{"model":"m","input":"{\"model\":1,\"model\":2}","instructions":"\"input\": x"}`,
		`{"model":"m","input":"x","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"type":{"type":"string"}}}}]}`,
		`{"model":"m","input":"x","metadata":{` + manyKeys(16) + `}}`,
	} {
		if _, err := Parse([]byte(body)); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":"v"`)
	}
	return b.String()
}

// A hostile body of one object with very many keys is checked in linear
// time (a map past a few keys), and the scan's scratch is not kept.
func TestManyKeysScanFinishes(t *testing.T) {
	body := `{"model":"m","input":"x","text":{` + manyKeys(200000) + `}}`
	if got := scanShape([]byte(body)); got.dup != "" || got.deep {
		t.Fatalf("%+v", got)
	}
	if got := scanShape([]byte(`{"a":{` + manyKeys(200000) + `,"k199999":1}}`)); got.dup != "a.k199999" {
		t.Fatalf("%+v", got)
	}
}
