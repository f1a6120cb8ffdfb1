package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `serve --check` refuses a config that chooses the storage twice, in one
// line naming both keys, and takes each key alone.
func TestServeCheckRefusesTwoStorageKeys(t *testing.T) {
	dir := t.TempDir()
	write := func(name, top string) string {
		path := filepath.Join(dir, name)
		cfg := top + "models:\n  - {name: m, upstream: scripted, price: \"0\"}\n"
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	data := filepath.Join(dir, "data")
	both := write("both.yaml", "store: \"bolt:"+data+"\"\ndata_dir: "+data+"\n")
	code, _, stderr := farebox(t, exampleEnv(false), "serve", "--check", "--offline", "--config", both)
	if code == 0 {
		t.Fatal("a config with store and data_dir passed the check")
	}
	found := false
	for _, l := range strings.Split(stderr, "\n") {
		found = found || (strings.Contains(l, "store and data_dir are both set") && strings.Contains(l, "keep store"))
	}
	if !found {
		t.Errorf("no one line naming store and data_dir, saying which to keep:\n%s", stderr)
	}
	for _, top := range []string{"store: \"bolt:" + data + "\"\n", "data_dir: " + data + "\n", "store: memory\n", ""} {
		if code, stdout, stderr := farebox(t, exampleEnv(false), "serve", "--check", "--offline", "--config", write("one.yaml", top)); code != 0 {
			t.Errorf("%q: exit %d\n%s%s", top, code, stdout, stderr)
		}
	}
	if code, _, stderr := farebox(t, exampleEnv(false), "serve", "--check", "--offline", "--config", write("bad.yaml", "store: \"sqlite:x\"\n")); code == 0 || !strings.Contains(stderr, "store: ") {
		t.Errorf("an unknown store: exit %d\n%s", code, stderr)
	}
}
