package charge

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// A stored answer leaves out what it repeats of the request (the response
// object echoes instructions, tools, metadata...: up to the whole body
// limit, three times in a stream), so a payer's stored bytes are what the
// model made, not what it sent. A retry carries the same body (the
// purchase is the authorization and the body's hash), so the replay
// takes those bytes again from the retried request and is byte for byte
// the answer first written.
//
// Format: answerCompact, the CRC-32 of the echo it was stored with (a
// replay whose echo differs is refused rather than served altered), then
// segments, each a uvarint tag: len<<1 followed by len literal bytes, or
// i<<1|1 for echo part i. The segments spell the answer's plain form (its
// kind byte, then the object or the recorded stream).
const answerCompact = 'c'

// minEcho: echo parts shorter than this are stored as they are.
const minEcho = 64

// answerWriter builds a stored answer, leaving the echo out.
type answerWriter struct {
	echo [][]byte
	out  []byte
}

func newAnswerWriter(echo [][]byte, kind byte) *answerWriter {
	w := &answerWriter{echo: echo, out: []byte{answerCompact}}
	w.out = binary.BigEndian.AppendUint32(w.out, echoSum(echo))
	w.write([]byte{kind})
	return w
}

// echoSum identifies an echo.
func echoSum(echo [][]byte) uint32 {
	var sum uint32
	var n [binary.MaxVarintLen64]byte
	for _, p := range echo {
		sum = crc32.Update(sum, crc32.IEEETable, n[:binary.PutUvarint(n[:], uint64(len(p)))])
		sum = crc32.Update(sum, crc32.IEEETable, p)
	}
	return sum
}

// write appends b, each echo part in it as a reference.
func (w *answerWriter) write(b []byte) {
	for len(b) > 0 {
		at, k := -1, 0
		for i, p := range w.echo {
			if len(p) < minEcho || len(p) > len(b) {
				continue
			}
			if j := bytes.Index(b, p); j >= 0 && (at < 0 || j < at) {
				at, k = j, i
			}
		}
		if at < 0 {
			w.literal(b)
			return
		}
		w.literal(b[:at])
		w.out = binary.AppendUvarint(w.out, uint64(k)<<1|1)
		b = b[at+len(w.echo[k]):]
	}
}

func (w *answerWriter) literal(b []byte) {
	if len(b) > 0 {
		w.out = binary.AppendUvarint(w.out, uint64(len(b))<<1)
		w.out = append(w.out, b...)
	}
}

// expandAnswer is a stored answer's plain form, its echo taken from the
// retried request; an answer stored plain comes back as it is.
func expandAnswer(stored []byte, echo [][]byte) ([]byte, error) {
	if len(stored) == 0 || stored[0] != answerCompact {
		return stored, nil
	}
	if len(stored) < 5 || binary.BigEndian.Uint32(stored[1:]) != echoSum(echo) {
		return nil, errBadStoredAnswer
	}
	size := len(stored)
	for _, p := range echo {
		size += 3 * len(p)
	}
	out := make([]byte, 0, size)
	for b := stored[5:]; len(b) > 0; {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errBadStoredAnswer
		}
		b = b[n:]
		if tag&1 == 1 {
			if tag>>1 >= uint64(len(echo)) {
				return nil, errBadStoredAnswer
			}
			out = append(out, echo[tag>>1]...)
			continue
		}
		if tag>>1 > uint64(len(b)) {
			return nil, errBadStoredAnswer
		}
		out = append(out, b[:tag>>1]...)
		b = b[tag>>1:]
	}
	return out, nil
}
