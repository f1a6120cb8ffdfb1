package responses

// This file is how a response ends: completed, incomplete or failed, with
// the terminal event carrying the final object, which Response returns.

import "encoding/json"

// Complete closes the open item and emits the terminal event
// (response.completed or response.incomplete; response.failed when the
// deny-all filter dropped everything), then [DONE] is the sink's business.
// extra fields (e.g. "x402": receipt) are added to the response object of the
// terminal event and of Response().
func (e *Emitter) Complete(extra map[string]json.RawMessage) error {
	if e.status != "" {
		return ErrFinished
	}
	if denied := e.Denied(); denied != nil {
		return e.Fail(denied, extra)
	}
	status := respCompleted
	if e.incomplete != "" {
		status = respIncomplete
	}
	e.closeOpen(status)
	e.start()
	e.status = status
	if status == respCompleted {
		e.completedAt = e.opts.Now().Unix()
	}
	return e.finish("response."+status, extra)
}

// Fail emits an error event and response.failed carrying err's message. An
// item still open is closed first (status incomplete), so every item a
// client saw announced is also finished.
func (e *Emitter) Fail(err *Error, extra map[string]json.RawMessage) error {
	if e.status != "" {
		return ErrFinished
	}
	if err == nil {
		err = &Error{Status: 500, Type: "server_error", Message: "The server had an error while processing your request."}
	}
	e.closeOpen(respIncomplete)
	e.start()
	e.err = err
	// Flat fields and the nested object alike: only the nested one makes
	// all three SDKs raise (docs/wire.md §3).
	b := outErrorFields(e.begin("error"), err)
	b = append(b, `,"error":{"type":`...)
	b = outString(b, outOr(err.Type, "server_error"))
	b = outErrorFields(b, err)
	b = append(b, "}}"...)
	_ = e.emit("error", b)
	e.status = respFailed
	return e.finish("response.failed", extra)
}

// outErrorFields appends ,"code":..,"message":..,"param":.. for err.
func outErrorFields(b []byte, err *Error) []byte {
	b = outKey(b, "code")
	b = outString(b, outErrorCode(err))
	b = outKey(b, "message")
	b = outString(b, err.Message)
	b = outKey(b, "param")
	return outParam(b, err.Param)
}

func outParam(dst []byte, p string) []byte {
	if p == "" {
		return append(dst, "null"...)
	}
	return outString(dst, p)
}

// finish builds the final object once and emits the terminal event.
func (e *Emitter) finish(typ string, extra map[string]json.RawMessage) error {
	e.extra = extra
	e.final = e.outResponse(make([]byte, 0, 1024+len(e.echo.tail)+e.outputSize()), true)
	b := e.begin(typ)
	b = append(b, `,"response":`...)
	b = append(b, e.final...)
	b = append(b, '}')
	return e.emit(typ, b)
}

func (e *Emitter) outputSize() int {
	n := 0
	for i := range e.output {
		n += 256 + len(e.output[i].body)
	}
	return n
}

// Response returns the final response object as JSON (valid after Complete
// or Fail; before, a snapshot of the response in progress). The slice must
// not be modified.
func (e *Emitter) Response() []byte {
	if e.final != nil {
		return e.final
	}
	return e.outResponse(nil, false)
}
