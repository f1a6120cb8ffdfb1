package haproxytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestADownBackendIsSkipped: two backends share the requests; once one is
// closed, every request is answered by the other, none fails.
func TestADownBackendIsSkipped(t *testing.T) {
	var servers []*httptest.Server
	var addrs []string
	for i := range 2 {
		name := []string{"a", "b"}[i]
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, name) }))
		servers = append(servers, s)
		addrs = append(addrs, strings.TrimPrefix(s.URL, "http://"))
	}
	lb := Start(t, addrs)
	lb.WaitUp(t, 2)
	servers[0].Close()
	for i := range 20 {
		res, err := http.Post(lb.URL+"/v1/responses", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(b) != "b" || res.Header.Get(ServerHeader) != "r1" {
			t.Fatalf("request %d after r0 closed: %d %q from %q\n%s", i, res.StatusCode, b, res.Header.Get(ServerHeader), lb.Logs())
		}
	}
}
