package gateway_test

import (
	"os"
	"sync"
	"testing"
)

var (
	exitMu    sync.Mutex
	exitFuncs []func()
)

// afterAll registers f to run once every test has finished: the shared
// processes a test binary starts lazily (anvil, the reference facilitator)
// stop there, so none outlives the binary.
func afterAll(f func()) {
	exitMu.Lock()
	defer exitMu.Unlock()
	exitFuncs = append(exitFuncs, f)
}

func TestMain(m *testing.M) {
	code := m.Run()
	exitMu.Lock()
	for i := len(exitFuncs) - 1; i >= 0; i-- {
		exitFuncs[i]()
	}
	exitMu.Unlock()
	os.Exit(code)
}
