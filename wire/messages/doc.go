// Package messages is the codec of Anthropic's Messages wire: it decodes a
// POST /v1/messages (or /v1/messages/count_tokens) body into farebox's
// canonical request (responses.Request, through responses.ParseWith, so
// validation, limits and the deny-all tool policy are the Responses code),
// and encodes the emitter's Responses events as Anthropic's stream
// (message_start ... message_stop, NewStream) or the final response object
// as one Anthropic message (Object); errors go out in Anthropic's shape
// (ErrorBody). It knows no HTTP framework and no payment.
//
// Thinking blocks travel as reasoning items. Their encrypted_content is
// "anthropic.thinking:" followed by the block's signature, or
// "anthropic.redacted:" followed by a redacted block's data, so
// an Anthropic upstream can send either back byte for byte; the thinking
// text is the item's summary. Reasoning a Responses upstream produced
// (its own encrypted_content E) reaches an Anthropic client as a thinking
// block whose signature is "farebox.responses:" followed by E, and comes
// back as E.
package messages
