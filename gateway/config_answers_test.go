package gateway

import (
	"strings"
	"testing"
)

// stored_answers: the example's values load, defaults fill what is left
// out, and a payer's share above the total (or a negative bound) is an
// error naming its key.
func TestStoredAnswersConfig(t *testing.T) {
	c, err := LoadConfig("../farebox.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if a := c.StoredAnswers; a.MaxBytes != 64<<20 || a.MaxBytesPerPayer != 8<<20 {
		t.Errorf("the example's stored_answers: %+v", a)
	}
	if a := (Config{}).withDefaults().StoredAnswers; a.MaxBytes != 64<<20 || a.MaxBytesPerPayer != 8<<20 {
		t.Errorf("the defaults: %+v", a)
	}
	free := Config{Models: []ModelConfig{{Name: "m", Upstream: "scripted", Price: "0"}}}
	free.StoredAnswers = StoredAnswersConfig{MaxBytes: 1 << 20, MaxBytesPerPayer: 2 << 20}
	if err := free.Validate(nil); err == nil || !strings.Contains(err.Error(), "stored_answers.max_bytes_per_payer") {
		t.Errorf("a share above the total: %v", err)
	}
	free.StoredAnswers = StoredAnswersConfig{MaxBytes: -1}
	if err := free.Validate(nil); err == nil || !strings.Contains(err.Error(), "stored_answers.max_bytes") {
		t.Errorf("a negative bound: %v", err)
	}
}
