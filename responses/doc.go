// Package responses is the OpenAI Responses wire as farebox speaks it. Parse
// turns a POST /v1/responses body into a validated Request whose tools are
// all tools the client executes (functions, namespaces, custom and built-in
// client tools) under the deny-all policy; provider-executed tools are
// dropped or refused (HostedPolicy). A Model (one per
// upstream kind) feeds its answer to an Output; the Emitter behind it owns
// the ids, order and sequence numbers of the events, and one code path
// builds both the SSE frames (SSEWriter) and the final response object.
// Error is the OpenAI-shaped error a client sees. The package knows nothing
// of echo or of payments.
package responses
