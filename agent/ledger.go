package agent

import (
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// ErrBudget is returned (wrapped) when the next payment would exceed
// Config.Budget: nothing was signed for it.
var ErrBudget = errors.New("agent: spend budget exhausted")

// Receipt is one paid turn in the ledger.
type Receipt struct {
	ResponseID  string   `json:"response_id"`
	Transaction string   `json:"transaction"`
	Amount      *big.Int `json:"amount"` // atomic units (6 decimals)
	Network     string   `json:"network"`
	Payer       string   `json:"payer"`
	Success     bool     `json:"success"`
	ErrorReason string   `json:"error_reason,omitempty"`
}

// ledger tracks a run's spending: what was signed (and so may be spent),
// counted by a payer.Budget (the paying side's one spend limit: it counts
// an authorization's maximum and a channel deposit when they are signed
// and refuses one over the budget before it is signed), and each turn's
// receipt.
type ledger struct {
	budget *payer.Budget

	mu       sync.Mutex
	turnPaid *big.Int      // amount signed for the current turn
	turnRcpt *x402.Receipt // receipt header of the current turn
	refused  error         // why the current turn was not paid
	receipts []Receipt
}

func newLedger(budget *big.Int) *ledger {
	return &ledger{budget: payer.NewBudget(budget)}
}

// hooks are the transport callbacks for one run.
func (l *ledger) hooks() *payer.Hooks {
	return &payer.Hooks{
		Budget: l.budget,
		Signed: func(req *x402.Requirement, _ *x402.Payment) {
			l.mu.Lock()
			l.turnPaid = new(big.Int).Set(req.Amount)
			l.mu.Unlock()
		},
		Receipt: func(r *x402.Receipt) {
			l.mu.Lock()
			l.turnRcpt = r
			l.mu.Unlock()
		},
		Refused: func(err error) {
			var over *payer.OverBudgetError
			if errors.As(err, &over) {
				err = fmt.Errorf("%w: %v", ErrBudget, err)
			}
			l.mu.Lock()
			l.refused = err
			l.mu.Unlock()
		},
	}
}

// startTurn forgets the previous turn's payment details.
func (l *ledger) startTurn() {
	l.mu.Lock()
	l.turnPaid, l.turnRcpt, l.refused = nil, nil, nil
	l.mu.Unlock()
}

// refusal is why the current turn's 402 was not paid, if it was not.
func (l *ledger) refusal() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refused
}

// endTurn records the turn's receipt: the header, else the in-band `x402`
// field of the response (a stream settled after its answer).
func (l *ledger) endTurn(responseJSON string) *Receipt {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.turnRcpt
	if band := gjson.Get(responseJSON, "x402"); band.IsObject() {
		r = &x402.Receipt{Success: band.Get("success").Bool(), Transaction: band.Get("transaction").String(),
			Payer: band.Get("payer").String(), Network: band.Get("network").String(), ErrorReason: band.Get("errorReason").String()}
	}
	if r == nil && l.turnPaid == nil {
		return nil // a free turn
	}
	rc := Receipt{ResponseID: gjson.Get(responseJSON, "id").String(), Amount: new(big.Int)}
	if l.turnPaid != nil {
		rc.Amount.Set(l.turnPaid)
	}
	if r != nil {
		rc.Transaction, rc.Network, rc.Payer, rc.Success, rc.ErrorReason = r.Transaction, r.Network, r.Payer, r.Success, r.ErrorReason
	}
	l.receipts = append(l.receipts, rc)
	return &rc
}

func (l *ledger) snapshot() (*big.Int, []Receipt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.budget.Signed(), append([]Receipt(nil), l.receipts...)
}
