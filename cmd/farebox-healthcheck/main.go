// Command farebox-healthcheck is the container image's HEALTHCHECK: it gets
// farebox's /healthz and exits 0 on 200, 1 otherwise, with one line saying why.
// The image is FROM scratch, which has no curl or wget to do this.
//
// The URL is the first argument, else $FAREBOX_HEALTHCHECK_URL, else
// http://127.0.0.1:8402/healthz.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// defaultURL is where farebox listens in the image (FAREBOX_ADDR=0.0.0.0:8402).
const defaultURL = "http://127.0.0.1:8402/healthz"

func main() {
	url := os.Getenv("FAREBOX_HEALTHCHECK_URL")
	if len(os.Args) > 1 {
		url = os.Args[1]
	}
	if url == "" {
		url = defaultURL
	}
	if err := probe(url, 3*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, "farebox-healthcheck:", err)
		os.Exit(1)
	}
}

// probe gets url within timeout and fails unless the answer is 200.
func probe(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, res.Status)
	}
	return nil
}
