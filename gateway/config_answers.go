package gateway

// StoredAnswersConfig bounds the answers farebox keeps for paid retries
// (a retry with the same authorization and body gets the answer it paid
// for instead of another model run), in every store: the process's
// memory (without Redis), or Redis (shared by replicas, under its own
// accounting, never Redis eviction). A stored answer leaves out what it
// repeats of the request (instructions, tools...). Making room drops the
// payer's own oldest answers first, then those of the payer holding the
// most, so one payer cannot evict everyone else's.
type StoredAnswersConfig struct {
	// MaxBytes bounds all stored answers (default 64 MiB). In Redis it is
	// the most they grow its memory by: set Redis's maxmemory above it
	// plus what the journal needs.
	MaxBytes int64 `yaml:"max_bytes"`
	// MaxBytesPerPayer is one payer's share (default 8 MiB, at most
	// MaxBytes); an answer larger than it is not kept, and its retries
	// run the model again a bounded number of times.
	MaxBytesPerPayer int64 `yaml:"max_bytes_per_payer"`
}

// Defaults of stored_answers.
const (
	defaultAnswerBytes         = 64 << 20
	defaultAnswerBytesPerPayer = 8 << 20
)

func (a StoredAnswersConfig) withDefaults() StoredAnswersConfig {
	if a.MaxBytes == 0 {
		a.MaxBytes = defaultAnswerBytes
	}
	if a.MaxBytesPerPayer == 0 {
		a.MaxBytesPerPayer = min(defaultAnswerBytesPerPayer, a.MaxBytes)
	}
	return a
}

// storedAnswers checks the bounds.
func (v *validation) storedAnswers(a StoredAnswersConfig) {
	switch {
	case a.MaxBytes < 0:
		v.add("stored_answers.max_bytes", "%d: want a number of bytes above 0", a.MaxBytes)
	case a.MaxBytesPerPayer < 0 || a.MaxBytesPerPayer > a.MaxBytes:
		v.add("stored_answers.max_bytes_per_payer", "%d: want a number of bytes above 0, at most stored_answers.max_bytes (%d)",
			a.MaxBytesPerPayer, a.MaxBytes)
	}
}
