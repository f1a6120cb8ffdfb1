package payer_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
)

// TestFindSellersReadsEveryPageCheapestFirst: the Responses sellers of
// the model asked for, from every page of the catalogue, each once at its
// cheapest offer, cheapest first; other models and endpoints that are not
// Responses routes are left out.
func TestFindSellersReadsEveryPageCheapestFirst(t *testing.T) {
	var items []map[string]any
	for i := range 150 { // more than a page of other resources
		items = append(items, payertest.CatalogueItem("https://other"+strconv.Itoa(i)+".example/v1/responses", "other-model", "1", false))
	}
	twice := payertest.CatalogueItem("https://dear.example/v1/responses", "gpt-4.1-mini", "9000", false)
	items = append(items,
		payertest.CatalogueItem("https://dear.example/v1/responses", "gpt-4.1-mini", "2500", false),
		payertest.CatalogueItem("https://weather.example/forecast", "gpt-4.1-mini", "1", false), // not a Responses endpoint
		twice,
		payertest.CatalogueItem("https://cheap.example/v1/responses/", "gpt-4.1-mini", "1000", true))
	srv := payertest.Catalogue(t, items)
	sellers, err := payer.FindSellers(context.Background(), nil, srv.URL+"/", "gpt-4.1-mini")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sellers {
		got = append(got, s.BaseURL+" "+s.Price.String()+" "+s.Scheme+" "+s.Network)
	}
	if want := "https://cheap.example/v1 1000 exact base-sepolia,https://dear.example/v1 2500 exact eip155:84532"; strings.Join(got, ",") != want {
		t.Errorf("sellers %q, want %q", strings.Join(got, ","), want)
	}
}

// TestFindSellersReadsADescriptionOnlyWhenNoModelIsDeclared: an endpoint
// that declares no model is taken at its description's word; one that
// declares another model is not, whatever its description says.
func TestFindSellersReadsADescriptionOnlyWhenNoModelIsDeclared(t *testing.T) {
	undeclared := payertest.CatalogueItem("https://plain.example/v1/responses", "", "10", false)
	delete(undeclared, "extensions")
	undeclared["description"] = "GPT-4.1-mini, paid per call"
	other := payertest.CatalogueItem("https://other.example/v1/responses", "other-model", "5", false)
	other["description"] = "like gpt-4.1-mini, only better"
	srv := payertest.Catalogue(t, []map[string]any{undeclared, other})
	sellers, err := payer.FindSellers(context.Background(), nil, srv.URL, "gpt-4.1-mini")
	if err != nil {
		t.Fatal(err)
	}
	if len(sellers) != 1 || sellers[0].BaseURL != "https://plain.example/v1" {
		t.Errorf("sellers %+v, want plain.example's only", sellers)
	}
}

// TestFindSellersRefusesWhatIsNoListing: a facilitator without a
// catalogue is an error, not an empty list.
func TestFindSellersRefusesWhatIsNoListing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>not here</html>"))
	}))
	defer srv.Close()
	if _, err := payer.FindSellers(context.Background(), nil, srv.URL, "m"); err == nil || !strings.Contains(err.Error(), "not a JSON listing") {
		t.Errorf("got %v, want a refusal of the listing", err)
	}
}
