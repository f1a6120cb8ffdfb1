package charge

import "testing"

// Every combination of what can happen to an answer, and whether the call
// is charged for it.
func TestDueDecidesEveryDelivery(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    delivery
		due  bool
	}{
		{"nothing produced, model failed", delivery{failed: true}, false},
		{"nothing produced, stream, model failed", delivery{failed: true, stream: true}, false},
		{"nothing produced (only denied calls)", delivery{}, false},
		{"nothing produced, client gone", delivery{clientGone: true, stream: true}, false},
		{"answer delivered", delivery{produced: true}, true},
		{"stream delivered", delivery{produced: true, stream: true}, true},
		{"answer failed after output", delivery{produced: true, failed: true}, false},
		{"stream broken by the upstream", delivery{produced: true, failed: true, stream: true}, false},
		{"answer ready, client gone before it was written", delivery{produced: true, clientGone: true}, false},
		{"answer failed, client gone", delivery{produced: true, failed: true, clientGone: true}, false},
		{"stream, client gone mid-stream", delivery{produced: true, stream: true, clientGone: true}, true},
		{"stream, client gone and the upstream call cancelled", delivery{produced: true, stream: true, clientGone: true, failed: true}, true},
	} {
		if got := due(tt.d); got != tt.due {
			t.Errorf("%s: due = %v, want %v", tt.name, got, tt.due)
		}
	}
}

func TestOutcomeNames(t *testing.T) {
	for o, want := range map[Outcome]string{Reserved: "reserved", Settled: "settled", Released: "released", Kept: "kept"} {
		if o.String() != want {
			t.Errorf("%d: %q, want %q", o, o, want)
		}
	}
}
