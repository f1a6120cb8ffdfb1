package channel

import (
	"encoding/json"
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func TestCommitAndJournalRoundTrip(t *testing.T) {
	f := newFixture(t)
	st := f.state()
	v := refVoucher(t, f.c, f.id, big.NewInt(4000), f.payerKey)
	next, err := st.Commit(&v, big.NewInt(640), f.req.Amount, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if next.Charged.Int64() != 3640 || st.Charged.Int64() != 3000 {
		t.Fatalf("charged %s (before %s), want 3640 (3000 untouched)", next.Charged, st.Charged)
	}
	if next.SignedMaxClaimable.Int64() != 4000 || string(next.Signature) != string(v.Signature) {
		t.Error("commit did not keep the voucher")
	}
	if _, err := st.Commit(&v, big.NewInt(1001), f.req.Amount, f.now); err != ErrChargeAboveCeiling {
		t.Errorf("charge above ceiling: %v", err)
	}
	low := refVoucher(t, f.c, f.id, big.NewInt(3500), f.payerKey)
	if _, err := st.Commit(&low, big.NewInt(600), f.req.Amount, f.now); reason(err) != ReasonChargeExceedsSignedCumulative {
		t.Errorf("charge above voucher: %v", err)
	}
	b, err := json.Marshal(next)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, next) {
		t.Fatalf("round trip changed the state:\n%+v\n%+v", &back, next)
	}
	if got := gjson.GetBytes(b, "chargedCumulativeAmount").String(); got != "3640" {
		t.Errorf("journal chargedCumulativeAmount %q", got)
	}
}

func TestMirrorNeverChargesBelowClaimed(t *testing.T) {
	f := newFixture(t)
	st := f.state().Mirror(Onchain{Balance: big.NewInt(100000), TotalClaimed: big.NewInt(5000)}, f.now)
	if st.Charged.Int64() != 5000 {
		t.Fatalf("charged %s after the chain claimed 5000", st.Charged)
	}
}

func TestCorrectiveAccept(t *testing.T) {
	f := newFixture(t)
	st := f.state()
	v := refVoucher(t, f.c, f.id, big.NewInt(4000), f.payerKey)
	st, _ = st.Commit(&v, big.NewInt(700), f.req.Amount, f.now)
	a := Accept(f.req, f.terms, st)
	for path, want := range map[string]string{
		"scheme": "batch-settlement", "amount": "1000", "extra.withdrawDelay": "900",
		"extra.receiverAuthorizer":                   f.terms.ReceiverAuthorizer.Hex(),
		"extra.channelState.chargedCumulativeAmount": "3700", "extra.channelState.balance": "100000",
		"extra.channelState.totalClaimed": "1000", "extra.channelState.refundNonce": "0",
		"extra.voucherState.signedMaxClaimable": "4000", "extra.name": "USDC", "extra.version": "2",
	} {
		if got := gjson.GetBytes(a, path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if gjson.GetBytes(a, "extra.channelState.withdrawRequestedAt").Type != gjson.Number {
		t.Error("withdrawRequestedAt must be a number")
	}
	plain := Accept(f.req, f.terms, nil)
	if gjson.GetBytes(plain, "extra.channelState").Exists() || gjson.GetBytes(plain, "extra.voucherState").Exists() {
		t.Error("a plain offer carries channel state")
	}
	r := st.VoucherReceipt(f.net.CAIP2, big.NewInt(700))
	rb, _ := json.Marshal(r)
	if gjson.GetBytes(rb, "transaction").String() != "" || gjson.GetBytes(rb, "extra.chargedAmount").String() != "700" ||
		!gjson.GetBytes(rb, "amount").Exists() {
		t.Errorf("voucher receipt %s", rb)
	}
}

func TestClaimPolicy(t *testing.T) {
	f := newFixture(t)
	now := f.now
	claimed := f.state() // nothing unclaimed beyond what the chain holds
	claimed.TotalClaimed = big.NewInt(3000)
	owing := f.state()
	owing.Signature = []byte{1}
	withdrawing := f.state()
	withdrawing.Signature = []byte{1}
	withdrawing.WithdrawRequestedAt = uint64(now.Add(-10 * time.Minute).Unix())
	p := ClaimPolicy{Interval: time.Minute, Threshold: big.NewInt(5000), WithdrawLead: 2 * time.Minute}
	cases := []struct {
		name   string
		last   time.Time
		states []*State
		want   string
		next   time.Time
	}{
		{"nothing owed", now, []*State{claimed}, ClaimNone, time.Time{}},
		{"interval not up", now.Add(-30 * time.Second), []*State{owing}, ClaimNone, now.Add(30 * time.Second)},
		{"interval up", now.Add(-time.Minute), []*State{owing}, ClaimInterval, time.Time{}},
		{"threshold", now, []*State{owing, owing, owing}, ClaimThreshold, time.Time{}},
		// 900 s delay, requested 600 s ago: finalizable in 300 s, claim due 120 s before.
		{"withdrawal not yet due", now, []*State{withdrawing}, ClaimNone, now.Add(time.Minute)},
		{"withdrawal due", now, []*State{withdrawing}, ClaimWithdrawal, time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			at := now
			if tc.name == "withdrawal due" {
				at = now.Add(3*time.Minute + time.Second)
			}
			d := p.Decide(at, tc.last, tc.states)
			if d.Reason != tc.want {
				t.Fatalf("reason %q, want %q", d.Reason, tc.want)
			}
			if tc.want != ClaimNone && len(d.Channels) != len(tc.states) {
				t.Errorf("claims %d channels, want %d", len(d.Channels), len(tc.states))
			}
			if !d.Next.Equal(tc.next) {
				t.Errorf("next check %v, want %v", d.Next, tc.next)
			}
		})
	}
	if d := (ClaimPolicy{}).Decide(now, time.Time{}, []*State{withdrawing}); d.Reason != ClaimWithdrawal {
		t.Errorf("zero lead: %q, want an immediate withdrawal claim", d.Reason)
	}
}

// The plan names when the claimer will claim next and why, the earliest
// trigger first: a withdrawal's claim before the interval, the threshold
// at once when reached; it agrees with Decide whenever Decide claims.
func TestClaimPlan(t *testing.T) {
	f := newFixture(t)
	now := f.now
	owing := f.state() // 2000 unclaimed
	owing.Signature = []byte{1}
	withdrawing := f.state()
	withdrawing.ChannelID = [32]byte{7}
	withdrawing.Signature = []byte{1}
	withdrawing.WithdrawRequestedAt = uint64(now.Add(-10 * time.Minute).Unix()) // finalizable in 5 minutes
	unsigned := f.state()                                                       // charged but no voucher kept: not claimable
	p := ClaimPolicy{Interval: time.Hour, Threshold: big.NewInt(5000), WithdrawLead: 2 * time.Minute}
	cases := []struct {
		name   string
		last   time.Time
		states []*State
		at     time.Time
		reason string
		left   int64
	}{
		{"nothing unclaimed", now, []*State{unsigned}, time.Time{}, ClaimNone, 5000},
		{"interval after the last claim", now.Add(-10 * time.Minute), []*State{owing}, now.Add(50 * time.Minute), ClaimInterval, 3000},
		{"no claim yet: the interval is due", time.Time{}, []*State{owing}, now, ClaimInterval, 3000},
		{"a withdrawal claims before the interval", now, []*State{owing, withdrawing}, now.Add(3 * time.Minute), ClaimWithdrawal, 1000},
		{"threshold reached", now, []*State{owing, owing, owing}, now, ClaimThreshold, 0},
		{"the threshold reached claims before a withdrawal is due", now, []*State{owing, owing, withdrawing}, now, ClaimThreshold, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pl := p.Plan(now, tc.last, tc.states)
			if !pl.At.Equal(tc.at) || pl.Reason != tc.reason || pl.ThresholdLeft.Int64() != tc.left {
				t.Fatalf("plan at %v for %q, %v left to the threshold; want %v for %q, %d left", pl.At, pl.Reason, pl.ThresholdLeft, tc.at, tc.reason, tc.left)
			}
			d := p.Decide(now, tc.last, tc.states)
			if claims := tc.reason != ClaimNone && !tc.at.After(now); claims != (d.Reason != ClaimNone) || (claims && d.Reason != pl.Reason) {
				t.Errorf("Decide says %q (next %v), the plan %q at %v", d.Reason, d.Next, pl.Reason, pl.At)
			}
		})
	}
	pl := p.Plan(now, now, []*State{owing, withdrawing})
	w, ok := pl.Withdrawals[withdrawing.ChannelID]
	if !ok || !w.Finalizable.Equal(now.Add(5*time.Minute)) || !w.ClaimDue.Equal(now.Add(3*time.Minute)) || len(pl.Withdrawals) != 1 {
		t.Errorf("withdrawals %+v, want the one finalizable in 5 minutes, claimed 2 minutes before", pl.Withdrawals)
	}
	if pl.Unclaimed.Int64() != 4000 || len(pl.Channels) != 2 {
		t.Errorf("the claim covers %d channels, %s, want 2 and 4000", len(pl.Channels), pl.Unclaimed)
	}
}
