package settle

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// DefaultAnswerBytes bounds the answers a store holds when nothing else
// is configured.
const DefaultAnswerBytes = 64 << 20

// DefaultAnswerBytesPerPayer is a payer's default share of a store: as
// large as the largest answer kept (4 MiB), twice over.
const DefaultAnswerBytesPerPayer = 8 << 20

// MemoryAnswers is the in-process AnswerStore, bounded by the bytes it
// holds in total and per payer. Making room, it drops expired answers,
// then the payer's own oldest (down to its share), then the oldest of
// the payer holding the most: a payer that fills the store evicts itself
// before anyone holding less.
type MemoryAnswers struct {
	mu       sync.Mutex
	max      int
	perPayer int
	size     int
	seq      uint64
	answers  map[string]*memAnswer
	payers   map[common.Address]*payerAnswers
	byBytes  payerHeap // payers holding answers, the most bytes first
	// Now is the clock of expiry; nil means time.Now.
	Now func() time.Time
}

type memAnswer struct {
	b       []byte
	size    int // what it counts against the bounds
	seq     uint64
	expires time.Time
	payer   *payerAnswers
}

// payerAnswers is one payer's answers, oldest first (names whose answer
// went or was replaced are skipped by their seq).
type payerAnswers struct {
	addr  common.Address
	size  int
	queue []queued
	index int // in the heap
}

type queued struct {
	name string
	seq  uint64
}

// NewMemoryAnswers holds at most maxBytes of answers, at most perPayer of
// them one payer's (0: DefaultAnswerBytesPerPayer, at most maxBytes).
func NewMemoryAnswers(maxBytes, perPayer int) *MemoryAnswers {
	if perPayer <= 0 {
		perPayer = DefaultAnswerBytesPerPayer
	}
	return &MemoryAnswers{max: maxBytes, perPayer: min(perPayer, maxBytes),
		answers: make(map[string]*memAnswer), payers: make(map[common.Address]*payerAnswers)}
}

func (m *MemoryAnswers) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// PutAnswer stores answer; one larger than a payer's share is not kept.
func (m *MemoryAnswers) PutAnswer(ctx context.Context, name string, payer common.Address, answer []byte, expires time.Time) error {
	size := len(answer) + len(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.answers[name]; ok {
		m.drop(name, old)
	}
	if size > m.perPayer {
		return nil
	}
	p := m.payers[payer]
	if p == nil {
		p = &payerAnswers{addr: payer}
		m.payers[payer] = p
		heap.Push(&m.byBytes, p)
	}
	for p.size+size > m.perPayer {
		m.dropOldest(p)
	}
	if m.size+size > m.max {
		m.dropExpired()
	}
	for m.size+size > m.max {
		m.dropOldest(m.byBytes[0])
	}
	if m.payers[payer] == nil { // emptied above: back in the heap
		m.payers[payer] = p
		heap.Push(&m.byBytes, p)
	}
	m.seq++
	m.answers[name] = &memAnswer{b: append([]byte(nil), answer...), size: size, seq: m.seq, expires: expires, payer: p}
	p.queue = append(p.queue, queued{name, m.seq})
	p.size += size
	m.size += size
	heap.Fix(&m.byBytes, p.index)
	return nil
}

// drop removes one answer; caller holds mu.
func (m *MemoryAnswers) drop(name string, a *memAnswer) {
	delete(m.answers, name)
	m.size -= a.size
	p := a.payer
	p.size -= a.size
	if p.size == 0 {
		heap.Remove(&m.byBytes, p.index)
		delete(m.payers, p.addr)
		p.queue = nil
		return
	}
	heap.Fix(&m.byBytes, p.index)
}

// dropOldest removes p's oldest answer still held; caller holds mu.
func (m *MemoryAnswers) dropOldest(p *payerAnswers) {
	for len(p.queue) > 0 {
		q := p.queue[0]
		p.queue = p.queue[1:]
		if a, ok := m.answers[q.name]; ok && a.seq == q.seq {
			m.drop(q.name, a)
			return
		}
	}
}

// dropExpired removes every expired answer; caller holds mu.
func (m *MemoryAnswers) dropExpired() {
	now := m.now()
	for name, a := range m.answers {
		if !a.expires.After(now) {
			m.drop(name, a)
		}
	}
}

// Answer returns the stored answer of name.
func (m *MemoryAnswers) Answer(ctx context.Context, name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.answers[name]
	if !ok || !a.expires.After(m.now()) {
		return nil, ErrNotFound
	}
	return append([]byte(nil), a.b...), nil
}

// Bytes is what the stored answers count against the bounds: in total,
// and payer's.
func (m *MemoryAnswers) Bytes(payer common.Address) (total, payers int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.payers[payer]; p != nil {
		payers = p.size
	}
	return m.size, payers
}

// payerHeap orders payers by the bytes they hold, the most first.
type payerHeap []*payerAnswers

func (h payerHeap) Len() int           { return len(h) }
func (h payerHeap) Less(i, j int) bool { return h[i].size > h[j].size }
func (h payerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *payerHeap) Push(x any) {
	p := x.(*payerAnswers)
	p.index = len(*h)
	*h = append(*h, p)
}
func (h *payerHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}
