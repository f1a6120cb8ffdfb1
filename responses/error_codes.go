package responses

// responseErrorCodes is the spec's ResponseErrorCode enum: the only codes
// a response object's error may carry (a test checks it against the
// vendored spec).
var responseErrorCodes = map[string]bool{
	"server_error": true, "rate_limit_exceeded": true, "invalid_prompt": true,
	"data_residency_mismatch": true, "bio_policy": true, "vector_store_timeout": true,
	"invalid_image": true, "invalid_image_format": true, "invalid_base64_image": true,
	"invalid_image_url": true, "image_too_large": true, "image_too_small": true,
	"image_parse_error": true, "image_content_policy_violation": true, "invalid_image_mode": true,
	"image_file_too_large": true, "unsupported_image_media_type": true, "empty_image_file": true,
	"failed_to_download_image": true, "image_file_not_found": true,
}

// ResponseErrorCode is the code err carries in a failed response object:
// its own when the spec's enum has it, rate_limit_exceeded for a 429,
// else server_error. The error event before it keeps err's own code (a
// free string there), so a payment reason is not lost.
func ResponseErrorCode(err *Error) string {
	switch {
	case responseErrorCodes[err.Code]:
		return err.Code
	case err.Status == 429:
		return "rate_limit_exceeded"
	}
	return "server_error"
}

// StatelessHint ends every refusal that comes from farebox keeping no
// state, so the gateway's refusals of stateful routes say the same.
const StatelessHint = statelessHint
