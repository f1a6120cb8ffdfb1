package gateway

import (
	"fmt"

	"github.com/farebox/farebox/store"
)

// storeKey is the one setting of where farebox keeps its state.
const storeKey = "store"

// storeSetting is where farebox keeps its state, and the key that says so
// (named in errors and warnings): store, else the older data_dir (a bbolt
// file there) or payments.redis_url (Redis), else memory. Two of them set
// at once are refused, in one line naming both: each chose a place, and
// stores split between them (a journal in one, circuits in the other)
// would be a surprise nobody asked for.
func (c Config) storeSetting() (key, setting string, err error) {
	dir, url := c.DataDir, c.Payments.RedisURL
	switch {
	case c.Store != "" && dir != "":
		return "", "", fmt.Errorf("%s and data_dir are both set: keep store (%s: bolt:%s is what data_dir: %s meant) and remove data_dir",
			storeKey, storeKey, dir, dir)
	case c.Store != "" && url != "":
		return "", "", fmt.Errorf("%s and payments.redis_url (or FAREBOX_REDIS_URL) are both set: keep store (%s: with the Redis URL is what payments.redis_url meant) and remove payments.redis_url",
			storeKey, storeKey)
	case dir != "" && url != "":
		return "", "", fmt.Errorf("data_dir and payments.redis_url (or FAREBOX_REDIS_URL) are both set, and farebox keeps its state in one place: keep payments.redis_url when replicas share the state, else data_dir, and remove the other (or replace both with %s)",
			storeKey)
	case dir != "":
		return "data_dir", "bolt:" + dir, nil
	case url != "":
		return "payments.redis_url", url, nil
	case c.Store != "":
		return storeKey, c.Store, nil
	}
	return storeKey, store.Memory, nil
}

// store checks the storage setting: one of the keys that choose it, and a
// setting a linked storage technology takes.
func (v *validation) store(c Config) {
	key, setting, err := c.storeSetting()
	if err != nil {
		v.errs = append(v.errs, err)
		return
	}
	if key != storeKey {
		return // data_dir and payments.redis_url keep their own checks
	}
	if err := store.Check(setting); err != nil {
		v.add(storeKey, "%v", err)
	}
}

// openStores opens the stores the configuration chooses; errors name the
// key that chose them.
func openStores(cfg Config, opts store.Options) (store.Set, string, error) {
	key, setting, err := cfg.storeSetting()
	if err != nil {
		return nil, "", err
	}
	opts.Key = key
	set, err := store.Open(setting, opts)
	if err != nil {
		return nil, key, fmt.Errorf("%s: %w", key, err)
	}
	return set, key, nil
}
