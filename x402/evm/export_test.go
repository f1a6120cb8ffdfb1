package evm

// OnQueue calls fn with the queue's length after every Broadcast joins it,
// so a test can build a batch of a known shape.
func (s *Settler) OnQueue(fn func(queued int)) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	s.onQueue = fn
}
