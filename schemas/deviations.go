package schemas

// Deviation is one deliberate difference between what farebox sends and
// OpenAI's published spec. Patch, when set, loosens the vendored spec just
// enough to admit it (and fails when its target is gone, so a deviation the
// spec no longer needs is noticed); a deviation outside any JSON object
// (the SSE framing) has no patch and is checked where the stream is read.
type Deviation struct {
	Name   string
	Reason string
	Patch  func(components map[string]any) error
}

// Deviations lists every deviation farebox makes; anything else that does
// not validate against the spec fails the conformance suite.
var Deviations = []Deviation{}
