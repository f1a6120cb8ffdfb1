package faultproxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

type rpcCall struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// blockParam is the index of the block-tag parameter of the methods that
// read state at a block.
var blockParam = map[string]int{
	"eth_call": 1, "eth_getBalance": 1, "eth_getTransactionCount": 1, "eth_getCode": 1,
	"eth_getStorageAt": 2, "eth_estimateGas": 1, "eth_getBlockByNumber": 0,
}

// serveBehind answers body (one call or a batch) as a node stuck at head.
func (r *RPC) serveBehind(w http.ResponseWriter, body []byte, head uint64) {
	trimmed := bytes.TrimSpace(body)
	batch := len(trimmed) > 0 && trimmed[0] == '['
	var calls []rpcCall
	if batch {
		if err := json.Unmarshal(trimmed, &calls); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	} else {
		var c rpcCall
		if err := json.Unmarshal(trimmed, &c); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		calls = []rpcCall{c}
	}
	answers := make([]rpcAnswer, len(calls))
	for i, c := range calls {
		answers[i] = r.behind(c, head)
	}
	var out any = answers
	if !batch {
		out = answers[0]
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// behind answers one call as a node stuck at head.
func (r *RPC) behind(c rpcCall, head uint64) rpcAnswer {
	headHex := json.RawMessage(strconv.Quote("0x" + strconv.FormatUint(head, 16)))
	if c.Method == "eth_blockNumber" {
		return rpcAnswer{JSONRPC: "2.0", ID: c.ID, Result: headHex}
	}
	if i, ok := blockParam[c.Method]; ok {
		for len(c.Params) <= i {
			c.Params = append(c.Params, json.RawMessage(`"latest"`))
		}
		switch tag := strings.Trim(string(c.Params[i]), `"`); {
		case tag == "latest" || tag == "pending" || tag == "safe" || tag == "finalized":
			c.Params[i] = headHex
		case strings.HasPrefix(tag, "0x") && after(tag, head):
			return rpcAnswer{JSONRPC: "2.0", ID: c.ID, Result: json.RawMessage("null")}
		}
	}
	a := r.one(c)
	if c.Method == "eth_getTransactionReceipt" || c.Method == "eth_getTransactionByHash" {
		var mined struct {
			BlockNumber string `json:"blockNumber"`
		}
		if json.Unmarshal(a.Result, &mined) == nil && after(mined.BlockNumber, head) {
			a.Result = json.RawMessage("null")
		}
	}
	return a
}

// one forwards a single call and returns its answer.
func (r *RPC) one(c rpcCall) rpcAnswer {
	if c.Params == nil {
		c.Params = []json.RawMessage{}
	}
	body, _ := json.Marshal(c)
	res, err := r.forward(body)
	var a rpcAnswer
	if err == nil {
		err = json.Unmarshal(res, &a)
	}
	if err != nil {
		msg, _ := json.Marshal(err.Error())
		return rpcAnswer{JSONRPC: "2.0", ID: c.ID, Error: json.RawMessage(`{"code":-32603,"message":` + string(msg) + `}`)}
	}
	a.ID = c.ID
	return a
}

// after reports whether the hex block number n is past head.
func after(n string, head uint64) bool {
	v, err := strconv.ParseUint(strings.TrimPrefix(n, "0x"), 16, 64)
	return err == nil && v > head
}
