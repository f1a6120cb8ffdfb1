package main

import (
	"context"
	"errors"
)

// NodeVoucherResult is the official Node client's voucher calls, timed in Node.
type NodeVoucherResult struct {
	Version string  `json:"x402_evm_version"`
	Warm    int     `json:"warm_calls"`
	Calls   int     `json:"calls"`
	P50us   float64 `json:"p50_us"`
	P99us   float64 `json:"p99_us"`
}

func (h *harness) runNodeVoucher(ctx context.Context, va *voucherArm, n int) (*NodeVoucherResult, error) {
	return nil, errors.New("not yet")
}
