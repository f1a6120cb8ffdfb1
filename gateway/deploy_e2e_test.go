package gateway_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	oresponses "github.com/openai/openai-go/v3/responses"
	"gopkg.in/yaml.v3"
)

// deployFiles are the operator's dashboards and alerts for the tools they
// already run, at the repository's root.
var deployFiles = []string{"../deploy/grafana/farebox.json", "../deploy/prometheus/farebox-rules.yml"}

// metricNames are the farebox_* names a file refers to.
func metricNames(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bfarebox_[a-zA-Z0-9_]+`).FindAllString(string(b), -1) {
		seen[m] = true
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestDeployDashboardsNameOnlyExportedMetrics: the Grafana dashboard and
// the Prometheus rules parse, every panel and rule has a query, and every
// farebox_* metric they name is on /metrics after ordinary traffic (a
// paid call, a streamed paid call, a free call, a 402 and a 400, and a
// call to a pooled model on a server that has one).
func TestDeployDashboardsNameOnlyExportedMetrics(t *testing.T) {
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	b, err := os.ReadFile(deployFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("%s: %v", deployFiles[0], err)
	}
	if len(dash.Panels) == 0 {
		t.Fatalf("%s has no panels", deployFiles[0])
	}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 || p.Targets[0].Expr == "" {
			t.Errorf("panel %q has no query", p.Title)
		}
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if b, err = os.ReadFile(deployFiles[1]); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &rules); err != nil {
		t.Fatalf("%s: %v", deployFiles[1], err)
	}
	if len(rules.Groups) == 0 || len(rules.Groups[0].Rules) == 0 {
		t.Fatalf("%s has no rules", deployFiles[1])
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || strings.TrimSpace(r.Expr) == "" {
				t.Errorf("rule %+v: want an alert name and an expression", r)
			}
		}
	}
	if promtool, err := exec.LookPath("promtool"); err == nil {
		if out, err := exec.Command(promtool, "check", "rules", deployFiles[1]).CombinedOutput(); err != nil {
			t.Errorf("promtool check rules: %v\n%s", err, out)
		}
	}

	ts, c := startPaid(t, "after")
	var receipts []*x402.Receipt
	cl := payingClient(t, ts, c, &receipts)
	if _, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: paid, Input: userText("a paid call")}); err != nil {
		t.Fatal(err)
	}
	collect(t, cl, oresponses.ResponseNewParams{Model: paid, Input: userText("a streamed paid call")})
	if res, _ := post(t, ts.URL+"/responses", `{"model":"`+free+`","input":"a free call"}`); res.StatusCode != http.StatusOK {
		t.Fatalf("free call: %d", res.StatusCode)
	}
	if res, _ := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"unpaid"}`); res.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("unpaid call: %d", res.StatusCode)
	}
	if res, _ := post(t, ts.URL+"/responses", `{"model":`); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("malformed call: %d", res.StatusCode)
	}
	fams := scrape(t, strings.TrimSuffix(ts.URL, "/v1")+"/metrics")
	// A pooled model's supplier series exist on a server that has one.
	pts := startServer(t, gateway.Config{Models: []gateway.ModelConfig{{Name: pooled, Price: "0",
		Suppliers: []gateway.SupplierConfig{{Name: "first", Upstream: "scripted"}, {Name: "second", Upstream: "scripted"}}}}},
		gateway.Options{})
	if res, _ := post(t, pts.URL+"/responses", `{"model":"`+pooled+`","input":"a pooled call"}`); res.StatusCode != http.StatusOK {
		t.Fatalf("pooled call: %d", res.StatusCode)
	}
	maps.Copy(fams, scrape(t, strings.TrimSuffix(pts.URL, "/v1")+"/metrics"))
	exported := func(name string) bool {
		if _, ok := fams[name]; ok {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok {
				if _, ok := fams[base]; ok {
					return true
				}
			}
		}
		return false
	}
	for _, path := range deployFiles {
		names := metricNames(t, path)
		if len(names) == 0 {
			t.Errorf("%s names no farebox metric", path)
		}
		for _, n := range names {
			if !exported(n) {
				t.Errorf("%s names %s, which /metrics does not export", path, n)
			}
		}
	}
}
