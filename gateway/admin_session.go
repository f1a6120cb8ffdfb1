package gateway

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// adminSession is how long the dashboard's login lasts.
const adminSession = 12 * time.Hour

// newSession is a login session: its expiry, a random id and a MAC over
// both keyed by the admin token. It is checked without any state, so every
// replica behind a load balancer accepts it, and a new admin token ends
// every session.
func (s *Server) newSession(now time.Time) string {
	var id [16]byte
	rand.Read(id[:])
	head := strconv.FormatInt(now.Add(adminSession).Unix(), 10) + "." + hex.EncodeToString(id[:])
	return head + "." + s.sessionMAC(head)
}

// sessionValid reports whether v is a session this admin token made that
// has not expired.
func (s *Server) sessionValid(v string, now time.Time) bool {
	i := strings.LastIndexByte(v, '.')
	if i < 0 {
		return false
	}
	head, mac := v[:i], v[i+1:]
	if !hmac.Equal([]byte(mac), []byte(s.sessionMAC(head))) {
		return false
	}
	exp, _, ok := strings.Cut(head, ".")
	n, err := strconv.ParseInt(exp, 10, 64)
	return ok && err == nil && now.Unix() < n
}

func (s *Server) sessionMAC(head string) string {
	m := hmac.New(sha256.New, []byte(s.admin.token))
	m.Write([]byte("farebox admin session\x00" + head))
	return hex.EncodeToString(m.Sum(nil))
}
