package chaintest

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/testenv"
)

// FacilitatorDir is the workspace folder of the reference facilitator
// script and its pins (@x402/core, @x402/evm, viem).
func FacilitatorDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "facilitator")
}

// InstallFacilitator reports whether the facilitator's npm packages are
// installed (by scripts/test.sh).
func InstallFacilitator() error {
	return testenv.RequireNodeModules(FacilitatorDir(), filepath.Join("@x402", "evm", "package.json"))
}

// Facilitator is a running x402 reference facilitator (@x402/core's
// x402Facilitator with @x402/evm's exact scheme) on loopback.
type Facilitator struct {
	// URL is its base URL: POST URL/verify, POST URL/settle, GET URL/supported.
	URL string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	output strings.Builder // its stderr and stdout after the URL, for failure messages
}

// StartFacilitator skips tb under -short; else it starts the
// reference facilitator on the chain at rpcURL, paying gas with key; it
// stops when the test ends and fails the test on any error. It returns the
// facilitator's base URL.
func StartFacilitator(tb testing.TB, rpcURL string, key *ecdsa.PrivateKey) string {
	tb.Helper()
	testenv.SkipShort(tb, "the reference facilitator")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f, err := StartReferenceFacilitator(ctx, rpcURL, key)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.Stop)
	return f.URL
}

// StartReferenceFacilitator is StartFacilitator for callers without a
// testing.TB (TestMain, sync.Once): the caller must call Stop.
func StartReferenceFacilitator(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey) (*Facilitator, error) {
	return startFacilitator(ctx, rpcURL, key)
}

// StartBatchFacilitator is StartFacilitator with @x402/evm's
// batch-settlement scheme registered too: authorizer's address is the
// receiverAuthorizer it advertises in /supported, and it signs the claims
// and refunds servers delegate to it.
func StartBatchFacilitator(tb testing.TB, rpcURL string, key, authorizer *ecdsa.PrivateKey) string {
	tb.Helper()
	testenv.SkipShort(tb, "the reference facilitator")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f, err := startFacilitator(ctx, rpcURL, key, "FACILITATOR_AUTHORIZER_KEY="+hexutil.Encode(crypto.FromECDSA(authorizer)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.Stop)
	return f.URL
}

func startFacilitator(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey, env ...string) (*Facilitator, error) {
	if err := InstallFacilitator(); err != nil {
		return nil, err
	}
	f := &Facilitator{done: make(chan struct{})}
	f.cmd = exec.Command("node", filepath.Join(FacilitatorDir(), "facilitator.mjs"))
	f.cmd.Dir = FacilitatorDir()
	f.cmd.Env = append(os.Environ(), "FACILITATOR_RPC_URL="+rpcURL,
		"FACILITATOR_RELAYER_KEY="+hexutil.Encode(crypto.FromECDSA(key)))
	f.cmd.Env = append(f.cmd.Env, env...)
	f.cmd.Stderr = &lockedBuilder{f}
	var err error
	if f.stdin, err = f.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := f.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := f.cmd.Start(); err != nil {
		return nil, fmt.Errorf("chaintest: starting the reference facilitator: %w", err)
	}
	go func() { f.cmd.Wait(); close(f.done) }()
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			url <- strings.TrimSpace(sc.Text())
		}
		io.Copy(&lockedBuilder{f}, out)
	}()
	select {
	case u := <-url:
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			f.Stop()
			return nil, fmt.Errorf("chaintest: the reference facilitator printed %q, not its URL\n%s", u, f.Output())
		}
		f.URL = u
		return f, nil
	case <-f.done:
		return nil, fmt.Errorf("chaintest: the reference facilitator exited before listening\n%s", f.Output())
	case <-ctx.Done():
		f.Stop()
		return nil, errors.Join(fmt.Errorf("chaintest: waiting for the reference facilitator: %w", ctx.Err()), errors.New(f.Output()))
	}
}

// Output is what the facilitator wrote to stderr (and stdout after its
// URL): its log of failed requests.
func (f *Facilitator) Output() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.output.String()
}

// Stop ends the facilitator: closing its stdin makes it exit, a kill
// follows if it has not within five seconds.
func (f *Facilitator) Stop() {
	f.once.Do(func() {
		f.stdin.Close()
		select {
		case <-f.done:
		case <-time.After(5 * time.Second):
			f.cmd.Process.Kill()
			<-f.done
		}
	})
}

// lockedBuilder appends to the facilitator's output under its lock.
type lockedBuilder struct{ f *Facilitator }

func (w *lockedBuilder) Write(p []byte) (int, error) {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	return w.f.output.Write(p)
}
