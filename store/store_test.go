package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/farebox/farebox/store"
)

// The default is memory, linked without an import: nothing shared, no
// holds of its own, always ready, the same store each time it is asked.
func TestOpenDefaultsToMemory(t *testing.T) {
	for _, setting := range []string{"", store.Memory} {
		set, err := store.Open(setting, store.Options{})
		if err != nil {
			t.Fatalf("%q: %v", setting, err)
		}
		if set.Instance() != "" || set.Holds() != nil {
			t.Errorf("%q: instance %q, holds %v: want a process's own stores", setting, set.Instance(), set.Holds())
		}
		if err := set.Ready(context.Background()); err != nil {
			t.Errorf("%q: not ready: %v", setting, err)
		}
		a, _ := set.Channels()
		b, _ := set.Channels()
		if a != b || set.Circuits() != set.Circuits() {
			t.Errorf("%q: a store asked for twice is two stores", setting)
		}
		if err := set.Close(); err != nil {
			t.Error(err)
		}
	}
}

// A setting no linked technology takes is refused, before and at opening,
// with the prefixes there are.
func TestUnknownSettingIsRefused(t *testing.T) {
	if _, err := store.Open("postgres://db", store.Options{}); !errors.Is(err, store.ErrUnknown) {
		t.Errorf("open: %v, want ErrUnknown", err)
	}
	err := store.Check("postgres://db")
	if !errors.Is(err, store.ErrUnknown) {
		t.Fatalf("check: %v, want ErrUnknown", err)
	}
	if want := "want one of memory"; !strings.Contains(err.Error(), want) {
		t.Errorf("check: %q does not list the prefixes (%q)", err, want)
	}
}

// Two technologies claiming one prefix is a build mistake, caught at start.
func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second registration of memory was taken")
		}
	}()
	store.Register(store.Memory, func(string, store.Options) (store.Set, error) { return nil, nil })
}

// The longest registered prefix wins, and its check runs.
func TestLongestPrefixWinsAndIsChecked(t *testing.T) {
	refused := errors.New("refused")
	store.Register("test:", func(string, store.Options) (store.Set, error) { return nil, errors.New("short") })
	store.Register("test:long:", func(loc string, o store.Options) (store.Set, error) { return store.Open("", o) })
	store.RegisterCheck("test:long:", func(loc string) error {
		if loc == "test:long:bad" {
			return refused
		}
		return nil
	})
	if _, err := store.Open("test:long:x", store.Options{}); err != nil {
		t.Errorf("the longer prefix did not open: %v", err)
	}
	if err := store.Check("test:long:bad"); !errors.Is(err, refused) {
		t.Errorf("check: %v, want the technology's refusal", err)
	}
	if err := store.Check("test:other"); err != nil {
		t.Errorf("a prefix without a check: %v", err)
	}
}
