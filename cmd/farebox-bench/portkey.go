package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// portkeyVersion is the peer gateway measured side by side (bench/portkey
// pins it in package.json and package-lock.json).
const portkeyVersion = "1.15.2"

// ensurePortkey makes bench/portkey's node_modules hold the pinned Portkey
// gateway, running `npm ci` when it is missing, and returns the path of its
// start-server.js, or why it cannot be had (the caller prints that).
func ensurePortkey(ctx context.Context, root string) (string, error) {
	dir := filepath.Join(root, "bench", "portkey")
	script := filepath.Join(dir, "node_modules", "@portkey-ai", "gateway", "build", "start-server.js")
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("node is not installed")
	}
	if _, err := os.Stat(script); err == nil {
		return script, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("npm is not available to install Portkey in %s", dir)
	}
	fmt.Printf("installing Portkey %s (npm ci in %s) ...\n", portkeyVersion, dir)
	out, err := run(ctx, 3*time.Minute, dir, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	if err != nil {
		return "", fmt.Errorf("npm ci failed (%v): %s", err, lastLines(out, 5))
	}
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("npm ci ran but %s is missing", script)
	}
	return script, nil
}

// startPortkey runs Portkey's server on a free loopback port.
func startPortkey(script, logDir string) (*process, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	p, err := startProcess("portkey", logDir, []string{"NODE_ENV=production"}, "node", script, "--port="+strconv.Itoa(port))
	if err != nil {
		return nil, "", err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	if err := p.waitHTTP(base+"/", 60*time.Second); err != nil {
		p.stop()
		return nil, "", err
	}
	return p, base, nil
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
