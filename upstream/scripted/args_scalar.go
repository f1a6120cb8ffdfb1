package scripted

import (
	"math/big"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// formatValues are valid examples of the string formats clients use.
var formatValues = map[string]string{
	"date":                  "2025-01-15",
	"date-time":             "2025-01-15T09:30:00Z",
	"time":                  "09:30:00Z",
	"duration":              "P1D",
	"email":                 "ada@example.com",
	"idn-email":             "ada@example.com",
	"hostname":              "example.com",
	"idn-hostname":          "example.com",
	"ipv4":                  "192.0.2.1",
	"ipv6":                  "2001:db8::1",
	"uri":                   "https://example.com/",
	"iri":                   "https://example.com/",
	"uri-reference":         "https://example.com/",
	"iri-reference":         "https://example.com/",
	"url":                   "https://example.com/",
	"uri-template":          "https://example.com/{id}",
	"uuid":                  "123e4567-e89b-42d3-a456-426614174000",
	"json-pointer":          "/a",
	"relative-json-pointer": "0",
	"regex":                 ".*",
}

// stringHints are plausible values for common property names, so a
// weather tool gets a city rather than "example".
var stringHints = map[string]string{
	"city": "Paris", "town": "Paris",
	"location": "Paris, France", "place": "Paris, France", "destination": "Paris, France",
	"address": "1 Rue de Rivoli, Paris", "country": "France", "countrycode": "FR",
	"query": "weather in Paris", "q": "weather in Paris", "search": "weather in Paris",
	"searchquery": "weather in Paris", "keywords": "weather Paris", "term": "weather",
	"name": "Ada Lovelace", "fullname": "Ada Lovelace", "firstname": "Ada",
	"lastname": "Lovelace", "username": "ada", "user": "ada",
	"email": "ada@example.com", "url": "https://example.com/", "uri": "https://example.com/",
	"link": "https://example.com/", "website": "https://example.com/",
	"date": "2025-01-15", "time": "09:30", "timezone": "Europe/Paris", "tz": "Europe/Paris",
	"language": "en", "lang": "en", "locale": "en-US", "unit": "celsius", "units": "metric",
	"currency": "USD", "title": "Hello", "subject": "Hello",
	"text": "Hello from farebox", "message": "Hello from farebox", "content": "Hello from farebox",
	"prompt": "Hello from farebox", "body": "Hello from farebox", "description": "An example",
	"path": "README.md", "file": "README.md", "filename": "README.md", "filepath": "README.md",
	// Shell tools (Codex's exec_command and shell, opencode's bash): a
	// short command that runs anywhere, read-only, in the current directory.
	"cmd": "ls", "command": "ls", "commands": "ls", "script": "ls", "shell": "sh",
	"workdir": ".", "cwd": ".", "dir": ".", "directory": ".", "workingdirectory": ".",
	"id": "id-1", "color": "blue", "phone": "+15555550100", "symbol": "AAPL", "ticker": "AAPL",
}

// numberHints are plausible numbers for common property names.
var numberHints = map[string]string{
	"latitude": "48.8566", "lat": "48.8566", "longitude": "2.3522", "lon": "2.3522", "lng": "2.3522",
	"age": "30", "year": "2025", "month": "1", "day": "15", "hour": "9",
	"count": "3", "limit": "3", "n": "3", "num": "3", "maxresults": "3", "topk": "3", "k": "3",
	"size": "3", "page": "1", "temperature": "20", "quantity": "1", "amount": "10",
	"timeout": "10", "timeoutms": "10000", "yieldtimems": "1000", "maxoutputtokens": "1000",
	"maxtokens": "1000",
}

// hintKey normalises a property name for the hint tables.
func hintKey(name string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(name) {
		if r != '_' && r != '-' && r != ' ' {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// str builds a string honouring format, length bounds (in code points, as
// JSON Schema counts) and pattern.
func (g *generator) str(v view, p place) string {
	minLen, _ := v.maxInt("minLength")
	minLen = min(minLen, maxArgumentBytes)
	maxLen, hasMax := v.minInt("maxLength")
	if !hasMax {
		maxLen = -1
	}
	format := ""
	if f, ok := v.first("format"); ok {
		format = f.Str
	}
	base, ok := formatValues[format]
	if !ok {
		base, ok = stringHints[hintKey(p.name)]
	}
	if !ok {
		base = "example"
	}
	suffix := ""
	if p.variant > 0 {
		suffix = strconv.Itoa(p.variant + 1)
		if _, isFormat := formatValues[format]; !isFormat {
			suffix = " " + suffix
		}
	}
	s := fitLength(base, suffix, int(minLen), int(maxLen))

	var patterns []*regexp.Regexp
	var parsed []*syntax.Regexp
	for _, part := range v.parts {
		if pat := part.Get("pattern"); pat.Type == gjson.String {
			re := compiledPattern(pat.Str)
			if re == nil {
				continue
			}
			patterns = append(patterns, re)
			if tree, err := syntax.Parse(pat.Str, syntax.Perl); err == nil {
				parsed = append(parsed, tree)
			}
		}
	}
	fits := func(c string) bool {
		n := utf8.RuneCountInString(c)
		if n < int(minLen) || (maxLen >= 0 && n > int(maxLen)) {
			return false
		}
		for _, re := range patterns {
			if !re.MatchString(c) {
				return false
			}
		}
		return true
	}
	if fits(s) || len(parsed) == 0 || g.work > maxWork {
		return s
	}
	// Build a match of the (first) pattern, growing repetitions and then
	// padding until the length bounds hold too.
	limit := max(1024, 4*int(minLen)+16) // bytes; minLen counts runes
	for extra := 0; extra <= 64; extra++ {
		c := fromPattern(parsed[0], extra+p.variant, limit)
		// Matching costs more than building: charge it (candidates
		// of nested stars grow fast).
		if g.work += 8 * (len(c) + 1); g.work > maxWork {
			break
		}
		if fits(c) {
			return c
		}
		if n := utf8.RuneCountInString(c); n < int(minLen) {
			pad := strings.Repeat("x", int(minLen)-n)
			if fits(c + pad) {
				return c + pad
			}
			if fits(pad + c) {
				return pad + c
			}
		}
	}
	return fromPattern(parsed[0], p.variant, limit)
}

// fitLength cuts or pads base so base+suffix has between lo and hi (-1: no
// limit) code points, keeping the suffix that makes siblings unique.
func fitLength(base, suffix string, lo, hi int) string {
	if hi >= 0 {
		room := hi - utf8.RuneCountInString(suffix)
		if room < 0 {
			suffix, room = string([]rune(suffix)[len([]rune(suffix))-hi:]), 0
		}
		if r := []rune(base); len(r) > room {
			base = string(r[:room])
		}
	}
	s := base + suffix
	if n := utf8.RuneCountInString(s); n < lo {
		s += strings.Repeat("x", lo-n)
	}
	return s
}

// fromPattern writes a string matching re, repeating each starred or
// bounded part `extra` more times than its minimum.
// The result is cut short past limit bytes (nested stars grow fast).
func fromPattern(re *syntax.Regexp, extra, limit int) string {
	var sb strings.Builder
	writePattern(&sb, re, extra, limit)
	return sb.String()
}

func writePattern(sb *strings.Builder, re *syntax.Regexp, extra, limit int) {
	if sb.Len() > limit {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		sb.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		sb.WriteRune(pickRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		sb.WriteByte('a')
	case syntax.OpCapture:
		writePattern(sb, re.Sub[0], extra, limit)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			writePattern(sb, s, extra, limit)
		}
	case syntax.OpAlternate:
		writePattern(sb, re.Sub[0], extra, limit)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		n := lo + extra
		if hi >= 0 && n > hi {
			n = hi
		}
		for i := 0; i < n && sb.Len() <= limit; i++ {
			writePattern(sb, re.Sub[0], extra, limit)
		}
	}
	// Anchors, word boundaries and empty matches add nothing.
}

// pickRune picks a readable rune from a character class given as ranges.
func pickRune(ranges []rune) rune {
	const preferred = "aA0x-_. "
	for _, c := range preferred {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= c && c <= ranges[i+1] {
				return c
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= 0x21 {
			return max(ranges[i], 0x21)
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

// number builds a number within minimum/maximum (inclusive or exclusive, in
// the draft-4 boolean form too) and a multiple of multipleOf, computed
// exactly with rationals.
func (v view) number(p place, integer bool) string {
	var lo, hi *big.Rat
	loEx, hiEx := false, false
	tighten := func(r gjson.Result, isLo, exclusive bool) {
		x, ok := parseRat(r)
		if !ok {
			return
		}
		if isLo {
			if lo == nil || x.Cmp(lo) > 0 || (x.Cmp(lo) == 0 && exclusive) {
				lo, loEx = x, exclusive
			}
		} else if hi == nil || x.Cmp(hi) < 0 || (x.Cmp(hi) == 0 && exclusive) {
			hi, hiEx = x, exclusive
		}
	}
	var step *big.Rat
	for _, part := range v.parts {
		exMin, exMax := part.Get("exclusiveMinimum"), part.Get("exclusiveMaximum")
		tighten(part.Get("minimum"), true, exMin.Type == gjson.True)
		tighten(part.Get("maximum"), false, exMax.Type == gjson.True)
		tighten(exMin, true, true)
		tighten(exMax, false, true)
		if m := part.Get("multipleOf"); step == nil {
			if x, ok := parseRat(m); ok && x.Sign() > 0 {
				step = x
			}
		}
	}
	if integer {
		if step == nil {
			step = big.NewRat(1, 1)
		} else {
			step = new(big.Rat).SetInt(step.Num()) // the smallest integer multiple
		}
	}
	// An integer wherever one is valid, even for "number": clients parse
	// counts and durations into integer types (Codex's usize).
	pref := "1"
	if h, ok := numberHints[hintKey(p.name)]; ok {
		pref = h
	}
	x, _ := new(big.Rat).SetString(pref)
	if p.variant > 0 {
		inc := big.NewRat(int64(p.variant), 1)
		if step != nil {
			inc.Mul(inc, step)
		}
		x.Add(x, inc)
	}
	return formatRat(pickNumber(x, lo, hi, loEx, hiEx, step))
}

// parseRat reads a JSON number exactly, refusing exponents so large that
// the rational itself would take megabytes (a client-chosen 1e999999999).
func parseRat(r gjson.Result) (*big.Rat, bool) {
	if r.Type != gjson.Number || len(r.Raw) > 64 {
		return nil, false
	}
	if i := strings.IndexAny(r.Raw, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(r.Raw[i+1:], "+"))
		if err != nil || exp > 400 || exp < -400 {
			return nil, false
		}
	}
	return new(big.Rat).SetString(r.Raw)
}

// pickNumber returns pref if it is within the bounds and on the step, else
// the nearest acceptable value, else (unsatisfiable bounds) a best effort.
func pickNumber(pref, lo, hi *big.Rat, loEx, hiEx bool, step *big.Rat) *big.Rat {
	ok := func(x *big.Rat) bool {
		if lo != nil && (x.Cmp(lo) < 0 || (loEx && x.Cmp(lo) == 0)) {
			return false
		}
		return hi == nil || !(x.Cmp(hi) > 0 || (hiEx && x.Cmp(hi) == 0))
	}
	if step == nil {
		switch {
		case ok(pref):
			return pref
		case lo != nil && pref.Cmp(lo) <= 0:
			if !loEx {
				return lo
			}
			if hi != nil {
				return mid(lo, hi)
			}
			return new(big.Rat).Add(lo, big.NewRat(1, 1))
		default: // pref is at or above hi
			if !hiEx {
				return hi
			}
			if lo != nil {
				return mid(lo, hi)
			}
			return new(big.Rat).Sub(hi, big.NewRat(1, 1))
		}
	}
	x := multipleAtLeast(pref, step)
	if ok(x) {
		return x
	}
	if lo != nil {
		x = multipleAtLeast(lo, step)
		if loEx && x.Cmp(lo) == 0 {
			x.Add(x, step)
		}
		if ok(x) {
			return x
		}
	}
	if hi != nil {
		x = multipleAtMost(hi, step)
		if hiEx && x.Cmp(hi) == 0 {
			x.Sub(x, step)
		}
	}
	return x
}

func mid(a, b *big.Rat) *big.Rat {
	m := new(big.Rat).Add(a, b)
	return m.Mul(m, big.NewRat(1, 2))
}

// multipleAtLeast is the smallest multiple of step that is >= x.
func multipleAtLeast(x, step *big.Rat) *big.Rat {
	q := new(big.Rat).Quo(x, step)
	k := new(big.Int).Quo(q.Num(), q.Denom()) // truncates toward zero
	if q.Sign() > 0 && !q.IsInt() {
		k.Add(k, big.NewInt(1))
	}
	return new(big.Rat).Mul(new(big.Rat).SetInt(k), step)
}

// multipleAtMost is the largest multiple of step that is <= x.
func multipleAtMost(x, step *big.Rat) *big.Rat {
	q := new(big.Rat).Quo(x, step)
	k := new(big.Int).Quo(q.Num(), q.Denom())
	if q.Sign() < 0 && !q.IsInt() {
		k.Sub(k, big.NewInt(1))
	}
	return new(big.Rat).Mul(new(big.Rat).SetInt(k), step)
}

// formatRat writes x as a JSON number: an integer when it is one, else a
// decimal with trailing zeros removed.
func formatRat(x *big.Rat) string {
	if x.IsInt() {
		return x.Num().String()
	}
	s := strings.TrimRight(x.FloatString(20), "0")
	return strings.TrimSuffix(s, ".")
}
