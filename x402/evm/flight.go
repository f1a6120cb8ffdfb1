package evm

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/farebox/farebox/x402"
)

// authKey names one authorization inside a batch transaction.
type authKey struct {
	from  common.Address
	nonce [32]byte
}

// carried is one transfer of a batch transaction: its requirement and its
// position in the batch (which decides who bears a fee's odd wei).
type carried struct {
	req *x402.Requirement
	pos int
}

// sentTx is one relayer nonce in flight (own) or a transaction hash someone
// awaits that this process did not send (foreign), until a receipt shows.
type sentTx struct {
	own   bool
	nonce uint64
	// txs are the signed versions of this nonce, the newest last (fee bumps).
	txs []*types.Transaction
	// signedAt is the head number when the newest version was signed.
	signedAt uint64
	// reqs are the transfers it carries, to diagnose a failed one and to
	// share its fee.
	reqs map[authKey]carried
	// call marks a relayer Call (not a batch of transfers), whose fee is
	// reported to the OnCallGas hook once mined; label is its context's
	// WithGasLabel.
	call  bool
	label string
	// refs counts Await calls on a foreign record.
	refs int

	// shallow is the receipt of a version mined fewer than Confirmations
	// blocks deep: the record stays open and its receipt is read again at
	// every head, in case a reorganisation takes it away.
	shallow *types.Receipt
	// refilled marks a resolved record sent again after a deeper
	// reorganisation left a gap at its nonce (see fillGap).
	refilled bool

	done       chan struct{} // closed once receipt (or lost) is set
	receipt    *types.Receipt
	lost       bool   // the nonce was mined by a transaction this process does not know
	resolvedAt uint64 // head number at resolution, for pruning
	misses     int    // heads on which the nonce was mined but no receipt was found
}

// flight tracks every transaction awaiting its receipt. One goroutine
// (follow) runs while any is unresolved: at each new head it collects
// receipts, re-sends what the node may have dropped and bumps the fees of
// what is stuck.
type flight struct {
	mu      sync.Mutex
	byHash  map[common.Hash]*sentTx
	open    map[*sentTx]struct{} // unresolved records
	running bool
}

// keepBlocks is how long a resolved record stays, so a late Await finds it.
const keepBlocks = 64

// track starts following an own transaction.
func (s *Settler) track(rec *sentTx) {
	f := &s.flight
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byHash == nil {
		f.byHash, f.open = map[common.Hash]*sentTx{}, map[*sentTx]struct{}{}
	}
	for _, tx := range rec.txs {
		f.byHash[tx.Hash()] = rec
	}
	f.open[rec] = struct{}{}
	s.startFollowLocked()
	select {
	case s.sent <- struct{}{}:
	default:
	}
}

// watch returns the record of hash, creating a foreign one when this
// process did not send it; release undoes it.
func (s *Settler) watch(hash common.Hash) *sentTx {
	f := &s.flight
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byHash == nil {
		f.byHash, f.open = map[common.Hash]*sentTx{}, map[*sentTx]struct{}{}
	}
	rec, ok := f.byHash[hash]
	if !ok {
		rec = &sentTx{done: make(chan struct{}), txs: nil}
		f.byHash[hash] = rec
		f.open[rec] = struct{}{}
	}
	rec.refs++
	if !isClosed(rec.done) {
		s.startFollowLocked()
	}
	return rec
}

func (s *Settler) release(hash common.Hash, rec *sentTx) {
	f := &s.flight
	f.mu.Lock()
	defer f.mu.Unlock()
	rec.refs--
	if !rec.own && rec.refs == 0 && !isClosed(rec.done) {
		delete(f.byHash, hash)
		delete(f.open, rec)
	}
}

func (s *Settler) startFollowLocked() {
	if !s.flight.running {
		s.flight.running = true
		go s.follow()
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// follow runs while records are open, handling each new head.
func (s *Settler) follow() {
	ctx := context.Background()
	// The heads outlive one run of the follower: the chain's pace learned
	// in one busy spell is right at the start of the next.
	hs := s.heads
	if hs == nil {
		hs = newHeads(ctx, s.backend, s.PollInterval)
		hs.observe, hs.wake = s.latest.seen, s.sent
		s.heads = hs
	} else {
		hs.subscribe(ctx)
	}
	var last uint64
	quiet := time.Now()
	if h, err := s.backend.HeaderByNumber(ctx, nil); err == nil && h.Number.Uint64() > 0 {
		last = h.Number.Uint64() - 1 // look at the current head at once: a receipt may be there
	}
	for {
		s.flight.mu.Lock()
		if len(s.flight.open) == 0 {
			hs.close() // before the next run may start
			s.flight.running = false
			s.flight.mu.Unlock()
			return
		}
		s.flight.mu.Unlock()
		head := hs.next(ctx, last, time.Second)
		if head == nil {
			if time.Since(quiet) >= idleResend {
				s.resendIdle(ctx)
				quiet = time.Now()
			}
			continue
		}
		quiet = time.Now()
		last = head.Number.Uint64()
		s.onHead(ctx, head)
	}
}

// idleResend is how long the chain may show no new head while own
// transactions are pending before they are sent again.
const idleResend = 5 * time.Second

// resendIdle sends again the newest version of every own transaction
// whose nonce is not mined. Re-sending happens on each new head; a chain
// that makes blocks only for transactions (a dev chain) makes none while
// the one it lost (a send that died with the RPC connection) holds the
// relayer's later nonces back, so a quiet chain gets them again too.
func (s *Settler) resendIdle(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	mined, err := s.backend.NonceAt(ctx, s.from, nil)
	if err != nil {
		return
	}
	s.flight.mu.Lock()
	var pending []*types.Transaction
	for rec := range s.flight.open {
		if rec.own && rec.nonce >= mined {
			pending = append(pending, rec.txs[len(rec.txs)-1])
		}
	}
	s.flight.mu.Unlock()
	slices.SortFunc(pending, func(a, b *types.Transaction) int { return cmp.Compare(a.Nonce(), b.Nonce()) })
	for _, tx := range pending {
		_ = s.backend.SendTransaction(ctx, tx) // "already known" when the node has it
	}
}

// onHead resolves the records a new head mined, re-sends own transactions
// still pending (a node that lost its pool gets them again) and replaces
// those pending for BumpAfterBlocks with higher fees.
func (s *Settler) onHead(ctx context.Context, head *types.Header) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	n := head.Number.Uint64()
	s.flight.mu.Lock()
	open := make([]*sentTx, 0, len(s.flight.open))
	for rec := range s.flight.open {
		open = append(open, rec)
	}
	for h, rec := range s.flight.byHash {
		if isClosed(rec.done) && rec.refs == 0 && rec.resolvedAt+keepBlocks < n {
			delete(s.flight.byHash, h)
		}
	}
	s.flight.mu.Unlock()
	slices.SortFunc(open, func(a, b *sentTx) int { return int(a.nonce) - int(b.nonce) })
	mined, nerr := s.backend.NonceAt(ctx, s.from, head.Number)
	if nerr == nil {
		s.fillGap(ctx, open, mined, n)
	}
	// The records whose receipt may be in: their receipts are read together.
	var hashes [][]common.Hash
	for _, rec := range open {
		if s.pending(rec, nerr, mined) {
			continue
		}
		hs := rec.hashes()
		if !rec.own {
			hs = s.foreignHashes(rec)
		}
		hashes = append(hashes, hs)
	}
	receipts := readReceipts(ctx, s.backend, hashes)
	next := 0
	for _, rec := range open {
		if s.pending(rec, nerr, mined) {
			s.keepSending(ctx, rec, n)
			continue
		}
		found := receipts[next]
		next++
		switch {
		case found != nil && !s.deep(found, n):
			s.setShallow(rec, found)
		case found != nil:
			s.resolve(rec, found, false, n)
			if rec.own && rec.call {
				s.reportCall(ctx, rec, found)
			}
		case s.shallowOf(rec) != nil:
			s.reorged(ctx, rec, n)
		case rec.own && nerr == nil:
			// The nonce is mined but none of its versions has a receipt: a
			// lagging index, or another sender with this key.
			if rec.misses++; rec.misses >= 3 {
				s.resolve(rec, nil, true, n)
			}
		case rec.own:
			s.keepSending(ctx, rec, n)
		}
	}
}

// receiptBatch bounds the receipts asked in one JSON-RPC batch (geth
// refuses batches above 1,000 calls by default).
const receiptBatch = 200

// readReceipts returns, per record (hashes[i] being the versions of record
// i, the likeliest first), the first of its versions that has a receipt
// (nil when none has). With a raw JSON-RPC client every version is asked in one
// batch per receiptBatch hashes instead of a request each; a batch that
// fails as a whole falls back to single reads.
func readReceipts(ctx context.Context, b Backend, hashes [][]common.Hash) []*types.Receipt {
	out := make([]*types.Receipt, len(hashes))
	rc, ok := b.(rawClient)
	if !ok || rc.Client() == nil {
		for i, hs := range hashes {
			for _, h := range hs {
				if r, err := b.TransactionReceipt(ctx, h); err == nil && r != nil {
					out[i] = r
					break
				}
			}
		}
		return out
	}
	type ask struct{ rec, version int }
	var asks []ask
	var elems []rpc.BatchElem
	flush := func() {
		if len(elems) == 0 {
			return
		}
		bctx, cancel := boundedBy(ctx, b)
		err := rc.Client().BatchCallContext(bctx, elems)
		cancel()
		if err != nil {
			for k := range elems {
				elems[k].Error = err
			}
		}
		for k, el := range elems {
			r := *el.Result.(**types.Receipt)
			if el.Error != nil {
				// This one failed (or the whole batch): read it alone.
				r, _ = b.TransactionReceipt(ctx, el.Args[0].(common.Hash))
			}
			a := asks[k]
			if r == nil {
				continue
			}
			if cur := out[a.rec]; cur == nil || a.version < versionOf(hashes[a.rec], cur.TxHash) {
				out[a.rec] = r
			}
		}
		asks, elems = asks[:0], elems[:0]
	}
	for i, hs := range hashes {
		for v, h := range hs {
			asks = append(asks, ask{i, v})
			elems = append(elems, rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{h}, Result: new(*types.Receipt)})
			if len(elems) == receiptBatch {
				flush()
			}
		}
	}
	flush()
	return out
}

// versionOf is h's index in hs (len(hs) when absent).
func versionOf(hs []common.Hash, h common.Hash) int {
	for i, x := range hs {
		if x == h {
			return i
		}
	}
	return len(hs)
}

// foreignHashes is the hash a foreign record was created for.
func (s *Settler) foreignHashes(rec *sentTx) []common.Hash {
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	for h, r := range s.flight.byHash {
		if r == rec {
			return []common.Hash{h}
		}
	}
	return nil
}

func (rec *sentTx) hashes() []common.Hash {
	out := make([]common.Hash, len(rec.txs))
	for i, tx := range rec.txs {
		out[len(out)-1-i] = tx.Hash() // newest first: most likely mined
	}
	return out
}

func (s *Settler) resolve(rec *sentTx, r *types.Receipt, lost bool, head uint64) {
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	if isClosed(rec.done) {
		return
	}
	rec.receipt, rec.lost, rec.resolvedAt = r, lost, head
	delete(s.flight.open, rec)
	close(rec.done)
}

// keepSending re-sends the newest version of a pending transaction (the
// node answers "already known" when it still has it), or replaces it with
// higher fees once it has waited BumpAfterBlocks heads, at most
// MaxFeeBumps times (fees compound, so a transaction stuck for another
// reason must not escalate forever).
func (s *Settler) keepSending(ctx context.Context, rec *sentTx, head uint64) {
	if head >= rec.signedAt+s.BumpAfterBlocks && len(rec.txs) <= s.MaxFeeBumps {
		if tx, err := s.bump(ctx, rec.txs[len(rec.txs)-1]); err == nil {
			s.flight.mu.Lock()
			rec.txs = append(rec.txs, tx)
			rec.signedAt = head
			s.flight.byHash[tx.Hash()] = rec
			s.flight.mu.Unlock()
			s.bumps.Add(1)
			return
		}
	}
	if head > rec.signedAt {
		_ = s.backend.SendTransaction(ctx, rec.txs[len(rec.txs)-1]) // "already known" is the common answer
	}
}
