package bolt_test

import (
	"path/filepath"
	"testing"

	"github.com/farebox/farebox/internal/testkit/channelstoretest"
	"github.com/farebox/farebox/store/bolt"
)

func TestBoltStore(t *testing.T) {
	s, err := bolt.OpenChannels(filepath.Join(t.TempDir(), "channels.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	channelstoretest.Contract(t, s)
}
