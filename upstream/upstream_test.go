package upstream_test

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
)

type fakeConfig struct{ Key string }

func (*fakeConfig) Validate(upstream.Problems)                {}
func (*fakeConfig) New(upstream.Env) (responses.Model, error) { return nil, nil }
func fakeKind() upstream.Config                               { return new(fakeConfig) }
func otherKind() upstream.Config                              { return new(otherConfig) }

type otherConfig struct{}

func (*otherConfig) Validate(upstream.Problems)                {}
func (*otherConfig) New(upstream.Env) (responses.Model, error) { return nil, nil }

// TestRegistry: a registered kind is found by name, listed in order, and
// resolves to its defaults or to keys of its own type only; a second
// registration of a name panics.
func TestRegistry(t *testing.T) {
	upstream.Register("zz-test-b", upstream.KindFunc(otherKind))
	upstream.Register("zz-test-a", upstream.KindFunc(fakeKind))
	names := strings.Join(upstream.Kinds(), ",")
	if !strings.Contains(names, "zz-test-a,zz-test-b") {
		t.Errorf("Kinds() = %s, want them sorted", names)
	}
	if want := upstream.Want(); !strings.HasSuffix(want, "zz-test-a or zz-test-b") {
		t.Errorf("Want() = %q", want)
	}
	if cfg, err := upstream.Resolve("zz-test-a", nil); err != nil || cfg.(*fakeConfig).Key != "" {
		t.Errorf("defaults: %#v, %v", cfg, err)
	}
	keys := &fakeConfig{Key: "k"}
	if cfg, err := upstream.Resolve("zz-test-a", keys); err != nil || cfg != keys {
		t.Errorf("own keys: %#v, %v", cfg, err)
	}
	if _, err := upstream.Resolve("zz-test-b", keys); err == nil || !strings.Contains(err.Error(), "upstream zz-test-b takes *upstream_test.otherConfig") {
		t.Errorf("another kind's keys: %v", err)
	}
	if _, err := upstream.Resolve("zz-nope", nil); err == nil || !strings.Contains(err.Error(), `unknown upstream "zz-nope" (want `) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := upstream.Resolve("", nil); err == nil || !strings.HasPrefix(err.Error(), "required (") {
		t.Errorf("no kind: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second registration of zz-test-a did not panic")
		}
	}()
	upstream.Register("zz-test-a", upstream.KindFunc(fakeKind))
}
