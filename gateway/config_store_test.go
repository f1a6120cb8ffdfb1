package gateway

import (
	"strings"
	"testing"
)

// Each key that chooses the storage still works alone, the older two
// meaning what they always meant.
func TestStoreSettingComesFromOneKey(t *testing.T) {
	for _, tc := range []struct {
		cfg          Config
		key, setting string
	}{
		{Config{}, "store", "memory"},
		{Config{Store: "redis://cache:6379/0"}, "store", "redis://cache:6379/0"},
		{Config{DataDir: "/var/lib/farebox"}, "data_dir", "bolt:/var/lib/farebox"},
		{Config{Payments: PaymentsConfig{RedisURL: "redis://cache:6379/0"}}, "payments.redis_url", "redis://cache:6379/0"},
	} {
		key, setting, err := tc.cfg.storeSetting()
		if err != nil || key != tc.key || setting != tc.setting {
			t.Errorf("%+v: %q %q %v, want %q %q", tc.cfg, key, setting, err, tc.key, tc.setting)
		}
	}
}

// Two keys choosing the storage are refused by Validate (serve --check) and
// by New, in one line naming both and saying which to keep, without the
// Redis URL (it may hold a password).
func TestTwoStorageKeysAreRefused(t *testing.T) {
	url := "redis://:secret@cache:6379/0"
	for _, tc := range []struct {
		name string
		cfg  Config
		keep string
	}{
		{"store and data_dir", Config{Store: "bolt:/a", DataDir: "/b"}, "keep store"},
		{"store and redis_url", Config{Store: "bolt:/a", Payments: PaymentsConfig{RedisURL: url}}, "keep store"},
		{"data_dir and redis_url", Config{DataDir: "/b", Payments: PaymentsConfig{RedisURL: url}}, "keep payments.redis_url when replicas share the state, else data_dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			both := strings.Split(strings.ReplaceAll(tc.name, "redis_url", "payments.redis_url"), " and ")
			err := tc.cfg.Validate(nil)
			if err == nil {
				t.Fatal("validated")
			}
			var line string
			for _, l := range strings.Split(err.Error(), "\n") {
				if strings.Contains(l, both[0]) && strings.Contains(l, both[1]) {
					line = l
				}
			}
			if line == "" || !strings.Contains(line, tc.keep) || strings.Contains(line, "secret") {
				t.Fatalf("no one line naming %q, saying %q, without the URL's password in:\n%v", both, tc.keep, err)
			}
			if _, err := New(tc.cfg, Options{}); err == nil || err.Error() != line {
				t.Errorf("New: %v, want %q", err, line)
			}
		})
	}
}

// A store setting no linked technology takes, or one its technology
// refuses, is reported under store before anything is opened.
func TestStoreSettingIsValidated(t *testing.T) {
	for _, bad := range []string{"postgres://db", "bolt:", "redis://"} {
		err := Config{Store: bad}.Validate(nil)
		if err == nil || !strings.Contains(err.Error(), "store: ") {
			t.Errorf("%q: %v, want a problem of store", bad, err)
		}
	}
	for _, good := range []string{"memory", "bolt:/var/lib/farebox", "rediss://cache:6380/1"} {
		cfg := Config{Store: good, Models: []ModelConfig{{Name: "m", Upstream: "scripted", Price: "0"}}}
		if err := cfg.Validate(nil); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}
