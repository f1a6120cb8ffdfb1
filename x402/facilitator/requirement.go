package facilitator

import "github.com/farebox/farebox/x402"

// network names the requirement's network the way a receipt of this
// protocol version does.
func network(version int, r *x402.Requirement) string {
	if r == nil || r.Network == nil {
		return ""
	}
	if version == 1 && r.Network.V1Name != "" {
		return r.Network.V1Name
	}
	return r.Network.CAIP2
}
