package redistest

import (
	"bufio"
	"net"
	"testing"
	"time"
)

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

// A persistent server keeps a write across a restart on the same address;
// one without persistence comes back empty; a stopped one does not answer.
func TestRestartKeepsTheDataOnlyWithPersistence(t *testing.T) {
	for _, persist := range []bool{true, false} {
		s := StartServer(t, Options{Persist: persist})
		if got := command(t, s.Addr(), "SET k v"); got != "+OK\r\n" {
			t.Fatalf("SET answered %q", got)
		}
		s.Stop()
		if err := ping(s.Addr()); err == nil {
			t.Fatal("a stopped server answers PING")
		}
		s.Start()
		want := "$-1\r\n"
		if persist {
			want = "$1\r\n"
		}
		if got := command(t, s.Addr(), "GET k"); got != want {
			t.Errorf("persist=%v: GET after the restart answered %q, want %q", persist, got, want)
		}
	}
}

// command sends one inline command and returns the first line of its answer.
func command(t *testing.T, addr, line string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(line + "\r\n")); err != nil {
		t.Fatal(err)
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return got
}
