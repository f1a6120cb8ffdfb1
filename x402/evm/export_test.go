package evm

// OnQueue calls fn with the queue's length after every Broadcast joins it,
// so a test can build a batch of a known shape.
func (s *Settler) OnQueue(fn func(queued int)) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	s.onQueue = fn
}

// OnSimulated calls fn with the number of transfers after a batch's simulation and journal writes, just
// before it is sent: a test can change the chain in between.
func (s *Settler) OnSimulated(fn func(transfers int) error) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	s.onSimulated = fn
}

// DialWithin is Dial bounding every request by timeout instead of
// RequestTimeout.
var DialWithin = dial
