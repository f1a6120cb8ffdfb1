package responses

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// A body with a key twice in one object has no single reading: gjson (and
// so farebox) reads the first or the last depending on how it is asked,
// OpenAI's parser keeps the last. A shell declared with an environment
// {"type":"local","type":"container_auto"} would be a client tool to one
// and a provider-run container to the other, so such bodies are refused.

// maxDepth bounds the nesting of a body. gjson validates and walks by
// recursion, so a 20 MiB body of '[' would overflow the goroutine stack and
// kill the process; no real request nests anywhere near this deep.
const maxDepth = 256

// smallObject is how many keys an object may have before its keys are
// checked through a map instead of by comparing each with the others.
const smallObject = 16

// keyRef is one key of an open object: the bytes body[off:end] as sent,
// or dec[off:end] when the key had escapes and was decoded.
type keyRef struct {
	off, end int32
	decoded  bool
}

// keyFrame is one open object or array.
type keyFrame struct {
	obj   bool
	first int // index in keyScan.keys of this object's first key
	// name is this container's place in its parent: the key that holds
	// it (parentObj) or its index.
	name      keyRef
	index     int
	parentObj bool
	// elems counts an array's elements so far (the index of the next).
	elems int
	// set holds a large object's keys (nil while it is small).
	set map[string]struct{}
}

// keyScan is the scratch of one scan, pooled so a parse allocates nothing
// for it.
type keyScan struct {
	frames []keyFrame
	keys   []keyRef
	dec    []byte
}

var keyScans = sync.Pool{New: func() any {
	return &keyScan{frames: make([]keyFrame, 0, 16), keys: make([]keyRef, 0, 64)}
}}

// shapeProblem is what scanShape found wrong: nesting deeper than
// maxDepth, or the path of a duplicate key ("" = none).
type shapeProblem struct {
	deep bool
	dup  string
}

// scanShape walks body once, outside gjson, for what gjson does not
// check: nesting depth and duplicate keys. It never fails on malformed
// JSON (gjson.ValidBytes judges that); what it reports about one is
// meaningless and ignored.
func scanShape(body []byte) shapeProblem {
	s := keyScans.Get().(*keyScan)
	defer s.release()
	expectKey := false
	var last keyRef // the last key read: the name of a container opened next
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			j, escaped := stringEnd(body, i)
			if expectKey && len(s.frames) > 0 && s.frames[len(s.frames)-1].obj {
				k := keyRef{off: int32(i + 1), end: int32(j)}
				if escaped {
					k = s.decode(body[i:min(j+1, len(body))])
				}
				if s.seen(body, k) {
					return shapeProblem{dup: s.path(body, k)}
				}
				last, expectKey = k, false
			}
			i = j
		case '{', '[':
			if len(s.frames) == maxDepth {
				return shapeProblem{deep: true}
			}
			f := keyFrame{obj: body[i] == '{', first: len(s.keys)}
			if n := len(s.frames); n > 0 {
				parent := &s.frames[n-1]
				f.parentObj = parent.obj
				f.name, f.index = last, parent.elems
			}
			s.frames = append(s.frames, f)
			expectKey = f.obj
		case '}', ']':
			if n := len(s.frames); n > 0 {
				s.keys = s.keys[:s.frames[n-1].first]
				s.frames[n-1].set = nil
				s.frames = s.frames[:n-1]
			}
			expectKey = false
		case ',':
			if n := len(s.frames); n > 0 {
				if f := &s.frames[n-1]; f.obj {
					expectKey = true
				} else {
					f.elems++
				}
			}
		}
	}
	return shapeProblem{}
}

// stringEnd returns the index of the quote closing the string that opens
// at body[i] (len(body) when it is not closed) and whether it has escapes.
func stringEnd(body []byte, i int) (int, bool) {
	j := i + 1
	q := bytes.IndexByte(body[j:], '"')
	if q < 0 {
		return len(body), false
	}
	e := bytes.IndexByte(body[j:j+q], '\\')
	if e < 0 {
		return j + q, false // the common case: no escapes, found at memchr speed
	}
	for j += e; j < len(body); j++ {
		switch body[j] {
		case '\\':
			j++
		case '"':
			return j, true
		}
	}
	return len(body), true
}

// decode unescapes the quoted key q into dec, as a JSON parser reads it
// ("\u0074ype" is "type").
func (s *keyScan) decode(q []byte) keyRef {
	off := len(s.dec)
	s.dec = append(s.dec, gjson.ParseBytes(q).Str...)
	return keyRef{off: int32(off), end: int32(len(s.dec)), decoded: true}
}

func (s *keyScan) bytes(body []byte, k keyRef) []byte {
	if k.decoded {
		return s.dec[k.off:k.end]
	}
	return body[k.off:k.end]
}

// seen records k as a key of the innermost object and reports whether the
// object already had it.
func (s *keyScan) seen(body []byte, k keyRef) bool {
	f := &s.frames[len(s.frames)-1]
	kb := s.bytes(body, k)
	if f.set != nil {
		if _, dup := f.set[string(kb)]; dup {
			return true
		}
		f.set[string(kb)] = struct{}{}
		s.keys = append(s.keys, k)
		return false
	}
	for _, o := range s.keys[f.first:] {
		if bytes.Equal(s.bytes(body, o), kb) {
			return true
		}
	}
	s.keys = append(s.keys, k)
	if len(s.keys)-f.first > smallObject {
		f.set = make(map[string]struct{}, 2*smallObject)
		for _, o := range s.keys[f.first:] {
			f.set[string(s.bytes(body, o))] = struct{}{}
		}
	}
	return false
}

// path names the duplicate key k of the innermost object the way error
// params do: tools[0].environment.type.
func (s *keyScan) path(body []byte, k keyRef) string {
	var b strings.Builder
	for i := 1; i < len(s.frames); i++ {
		f := &s.frames[i]
		if f.parentObj {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(s.bytes(body, f.name))
		} else {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(f.index))
			b.WriteByte(']')
		}
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.Write(s.bytes(body, k))
	return b.String()
}

// release returns the scratch to the pool, dropping what a huge body grew.
func (s *keyScan) release() {
	for i := range s.frames {
		s.frames[i].set = nil
	}
	s.frames, s.keys, s.dec = s.frames[:0], s.keys[:0], s.dec[:0]
	if cap(s.keys) > 4096 || cap(s.dec) > 64<<10 || cap(s.frames) > maxDepth+1 {
		return // a hostile body's scratch is left to the collector
	}
	keyScans.Put(s)
}

// errDuplicateKey refuses a body that has key twice in one object.
func errDuplicateKey(path string) *Error {
	return Invalid(path, "duplicate_key", "Invalid body: the key '%s' appears twice in the same object. JSON parsers disagree about which one counts, so the request is refused; send each key once.", path)
}
