// Package chat is the codec of OpenAI's Chat Completions wire: it decodes
// a POST /v1/chat/completions body into farebox's canonical request
// (responses.Request, through responses.ParseWith, so validation, limits
// and the deny-all tool policy are the Responses code) and encodes the
// emitter's Responses events as chat.completion.chunk frames (NewStream)
// or the final response object as one chat.completion (Object). It knows
// no HTTP framework and no payment: an adapter reads the body, calls
// Decode, runs the paid call with NewStream or responses.Discard as the
// emitter's sink, and writes what this package returns.
package chat
