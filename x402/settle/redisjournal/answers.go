package redisjournal

import (
	"context"
	"errors"
	"time"

	"github.com/farebox/farebox/x402/settle"
	"github.com/redis/go-redis/v9"
)

var _ settle.AnswerStore = (*Journal)(nil)

func (j *Journal) answerKey(name string) string { return j.prefix + "answer:" + name }

// PutAnswer stores a paid answer under <prefix>answer:<KeyName> until its
// authorization expires, so every replica answers a paid retry with it.
func (j *Journal) PutAnswer(ctx context.Context, name string, answer []byte, expires time.Time) error {
	ttl := time.Until(expires)
	if ttl <= 0 {
		return nil
	}
	return j.rdb.Set(ctx, j.answerKey(name), answer, ttl).Err()
}

// Answer returns the stored answer of name, or settle.ErrNotFound.
func (j *Journal) Answer(ctx context.Context, name string) ([]byte, error) {
	b, err := j.rdb.Get(ctx, j.answerKey(name)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, settle.ErrNotFound
	}
	return b, err
}
