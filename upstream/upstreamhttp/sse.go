package upstreamhttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEvent bounds the data of one SSE event, and so the memory one stream
// can hold: a completed response with all its output fits many times over.
const maxEvent = 32 << 20

// Event is one server-sent event.
type Event struct {
	Type string // the event field; "" when the upstream named none
	Data []byte // the event's data lines, joined with "\n"
	ID   string // the last event ID the stream set, "" if none
}

// errEventTooLarge ends a stream whose event outgrows the decoder's cap.
var errEventTooLarge = errors.New("upstream sent a stream event larger than the limit")

// decoder reads text/event-stream: lines end in LF or CRLF; an empty line
// dispatches the event gathered so far if it has data (an event with no
// data line is dropped); "event", "data" and "id" fields are read, with one
// space after the colon trimmed; comments (a leading colon), "retry" and
// unknown fields are ignored; an event left unfinished at the end of the
// stream is dropped. These are openai-go's ssestream rules (checked against
// it in sse_test.go), except that its data keeps a trailing "\n" and it reads
// no ids. One event's data may not exceed max bytes, nor may a line.
type decoder struct {
	scn *bufio.Scanner
	max int
	id  string
	ev  Event
	err error
}

func newDecoder(r io.Reader, max int) *decoder {
	scn := bufio.NewScanner(r)
	// A line holds at most "data: ", max bytes of data and a CRLF.
	scn.Buffer(nil, max+len("data: \r\n"))
	return &decoder{scn: scn, max: max}
}

// next reads up to the next event; false at the end of the stream or on an
// error (in d.err).
func (d *decoder) next() bool {
	if d.err != nil {
		return false
	}
	var typ string
	var data []byte // each data line followed by "\n"
	for d.scn.Scan() {
		line := d.scn.Bytes()
		if len(line) == 0 {
			if len(data) == 0 {
				typ = ""
				continue
			}
			d.ev = Event{Type: typ, Data: data[:len(data)-1], ID: d.id}
			return true
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "event":
			typ = string(value)
		case "data":
			if len(data)+len(value) > d.max {
				d.err = fmt.Errorf("%w (%d bytes)", errEventTooLarge, d.max)
				return false
			}
			data = append(data, value...)
			data = append(data, '\n')
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				d.id = string(value)
			}
		}
	}
	d.err = d.scn.Err()
	if errors.Is(d.err, bufio.ErrTooLong) {
		d.err = fmt.Errorf("%w (%d bytes)", errEventTooLarge, d.max)
	}
	return false
}
