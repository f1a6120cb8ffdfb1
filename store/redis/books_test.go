package redis_test

import (
	"testing"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/internal/testkit/bookstest"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/store/redis"
	goredis "github.com/redis/go-redis/v9"
)

func TestBooks(t *testing.T) {
	bookstest.Run(t, func(t *testing.T) books.Store {
		if testing.Short() {
			t.Skip("redis-server: not in -short")
		}
		rdb := goredis.NewClient(&goredis.Options{Addr: redistest.Start(t)})
		t.Cleanup(func() { rdb.Close() })
		return redis.NewBooks(rdb, "test:books:")
	})
}
