// Package proxy is the local paying proxy behind `farebox proxy`: an
// OpenAI (or Anthropic) base URL on this machine that pays a paid
// endpoint's x402 402s for any client that cannot pay, such as an SDK
// with a base URL setting, Codex or Claude Code.
//
// A Proxy forwards /v1/* to the upstream's base URL and streams each
// answer back as it comes. A POST to one of its paid routes
// (/v1/responses, /v1/chat/completions, /v1/messages and their
// friends) goes through a payer.Transport, which answers a 402 by
// paying; anything else is forwarded unpaid, so a 402 to it comes back as
// it came. What the proxy signs is bounded by its budget (a payer.Budget,
// counted when signed, never given back on a seller's word), besides the
// transport's own limits.
//
// Only this machine's programs may use it: a request must name the proxy
// by a loopback Host (or one of Config.AllowHosts), since DNS rebinding
// lets a web page reach 127.0.0.1 under its own name, and must carry no
// Origin unless Config.AllowOrigins names it; the upstream's CORS headers
// never come through. Its own errors are in the client's wire shape
// (OpenAI's error object, or Anthropic's on /v1/messages).
//
// A Go program runs one like this:
//
//	tr := payer.NewTransport(payer.NewSigner(key), payer.WithSpendCap(maxPrice))
//	p, err := proxy.New(proxy.Config{
//		Upstream:  "https://seller.example/v1",
//		Transport: tr,
//		Budget:    big.NewInt(1_000_000), // 1 USDC signed at most
//		Log:       os.Stderr,
//	})
//	if err != nil {
//		return err
//	}
//	return http.ListenAndServe("127.0.0.1:8403", p)
package proxy
