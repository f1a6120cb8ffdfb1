package main

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// settleStandIn is the settlement endpoint's stand-in for timing purposes:
// an HTTP server speaking the facilitator API's POST /settle shape that
// answers success WITHOUT verifying or settling anything. A pure benchmark
// has no chain; in production settlement is a network call to a
// facilitator (tens of milliseconds to seconds), which is not farebox's
// work. With this stand-in the paid arm's figures hold everything farebox
// itself does (decode, local verification, the journal entry and its states,
// building the settle request, reading its answer, the receipt header) plus
// one loopback round trip, measured on its own as "settle round trip".
// Its transaction hashes are keccak256 of the request body: labelled fake.
type settleStandIn struct {
	srv   *http.Server
	ln    net.Listener
	calls atomic.Int64
}

func startSettleStandIn() (*settleStandIn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &settleStandIn{ln: ln}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /settle", s.settle)
	mux.HandleFunc("GET /supported", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		// farebox asks at start whether its facilitator settles its
		// network and scheme: the stand-in says it does.
		io.WriteString(w, `{"kinds":[{"x402Version":2,"scheme":"exact","network":"`+benchNetwork.CAIP2+`"}],"extensions":[],"signers":{}}`)
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the base URL farebox's facilitator settler is pointed at.
func (s *settleStandIn) URL() string { return "http://" + s.ln.Addr().String() }

func (s *settleStandIn) close() { s.srv.Close() }

func (s *settleStandIn) settle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		return
	}
	var in struct {
		PaymentPayload struct {
			Payload struct {
				Authorization struct {
					From string `json:"from"`
				} `json:"authorization"`
			} `json:"payload"`
			Accepted struct {
				Network string `json:"network"`
			} `json:"accepted"`
			Network string `json:"network"`
		} `json:"paymentPayload"`
		PaymentRequirements struct {
			Network string `json:"network"`
		} `json:"paymentRequirements"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, `{"success":false,"errorReason":"invalid_payload"}`, http.StatusBadRequest)
		return
	}
	s.calls.Add(1)
	out := map[string]any{
		"success":     true,
		"payer":       in.PaymentPayload.Payload.Authorization.From,
		"transaction": "0x" + hex.EncodeToString(crypto.Keccak256(body)),
		"network":     in.PaymentRequirements.Network,
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
