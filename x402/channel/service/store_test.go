package service_test

import (
	"testing"

	"github.com/farebox/farebox/internal/testkit/channelstoretest"
	"github.com/farebox/farebox/x402/channel/service"
)

func TestMemoryStore(t *testing.T) { channelstoretest.Contract(t, service.NewMemoryStore()) }
