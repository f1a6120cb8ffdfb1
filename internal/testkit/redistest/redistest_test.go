package redistest

import "testing"

func TestStartGivesEachTestItsOwnServingRedis(t *testing.T) {
	var addrs []string
	t.Run("first", func(t *testing.T) {
		a, b := Start(t), Start(t)
		if a == b {
			t.Fatalf("two servers on one address %s", a)
		}
		for _, addr := range []string{a, b} {
			if err := ping(addr); err != nil {
				t.Fatalf("%s: %v", addr, err)
			}
		}
		addrs = append(addrs, a, b)
	})
	for _, addr := range addrs {
		if err := ping(addr); err == nil {
			t.Errorf("redis on %s still serves after its test ended", addr)
		}
	}
}
