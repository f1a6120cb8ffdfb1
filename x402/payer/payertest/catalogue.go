package payertest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// CatalogueItem is one resource of a facilitator's discovery catalogue:
// an endpoint at url selling model at amount (atomic units), declared
// as x402 v2 does it, or as v1 (maxAmountRequired, a network name) with v1.
func CatalogueItem(url, model, amount string, v1 bool) map[string]any {
	accept := map[string]any{"scheme": "exact", "network": "eip155:84532", "amount": amount, "payTo": "0x90F79bf6EB2c4f870365E785982E1f101E93b906"}
	if v1 {
		accept = map[string]any{"scheme": "exact", "network": "base-sepolia", "maxAmountRequired": amount}
	}
	return map[string]any{"resource": url, "type": "http", "x402Version": 2, "accepts": []any{accept},
		"extensions": map[string]any{"bazaar": map[string]any{"info": map[string]any{"input": map[string]any{
			"type": "http", "method": "POST", "bodyType": "json", "body": map[string]any{"model": model, "input": "Hello!"}}}}}}
}

// Catalogue serves items as GET /discovery/resources, paged by limit and
// offset as facilitators page it (a test HTTP server closed with the test).
func Catalogue(tb testing.TB, items []map[string]any) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/discovery/resources" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		page := items[min(offset, len(items)):min(offset+limit, len(items))]
		json.NewEncoder(w).Encode(map[string]any{"x402Version": 2, "items": page,
			"pagination": map[string]any{"limit": limit, "offset": offset, "total": len(items)}})
	}))
	tb.Cleanup(srv.Close)
	return srv
}
