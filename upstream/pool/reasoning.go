package pool

import (
	"strings"

	"github.com/farebox/farebox/responses"
)

// The providers whose encrypted reasoning a supplier can take back.
const (
	// ProviderAnthropic: thinking blocks, carried as encrypted_content
	// under responses.AnthropicThinkingPrefix or AnthropicRedactedPrefix.
	ProviderAnthropic = "anthropic"
	// ProviderOpenAI: OpenAI's own encrypted reasoning (no prefix).
	ProviderOpenAI = "openai"
	// ProviderGemini: Gemini's thought signatures, carried under
	// responses.GeminiThoughtPrefix.
	ProviderGemini = "gemini"
)

// ownedBy names the provider whose encrypted reasoning enc is.
func ownedBy(enc string) string {
	if strings.HasPrefix(enc, responses.AnthropicThinkingPrefix) || strings.HasPrefix(enc, responses.AnthropicRedactedPrefix) {
		return ProviderAnthropic
	}
	if strings.HasPrefix(enc, responses.GeminiThoughtPrefix) {
		return ProviderGemini
	}
	return ProviderOpenAI
}

// forSupplier is req as supplier i may receive it: a pool that mixes
// providers may have answered an earlier turn with another provider's
// reasoning, whose encrypted_content this supplier cannot verify and
// would refuse with a 400; such items are left out (and logged), as a
// provider that cannot read them would have to. A supplier whose provider
// is not known (an x402 seller, the scripted model) gets everything.
func (p *Pool) forSupplier(i int, req *responses.Request) *responses.Request {
	prov := p.cfg.Suppliers[i].Provider
	if prov == "" {
		return req
	}
	dropped := 0
	for _, it := range req.Input {
		if foreign(it, prov) {
			dropped++
		}
	}
	if dropped == 0 {
		return req
	}
	cp := *req
	cp.Input = make([]responses.Item, 0, len(req.Input)-dropped)
	for _, it := range req.Input {
		if !foreign(it, prov) {
			cp.Input = append(cp.Input, it)
		}
	}
	p.cfg.Log.Info("reasoning of another provider left out for this supplier",
		"supplier", p.cfg.Suppliers[i].Name, "provider", prov, "items", dropped)
	return &cp
}

// foreign reports a reasoning item whose encrypted content is another
// provider's than prov.
func foreign(it responses.Item, prov string) bool {
	return it.Type == responses.ItemReasoning && it.EncryptedContent != "" && ownedBy(it.EncryptedContent) != prov
}
