package channel

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// readPayload fills pj from a payload as encoding/json would (members
// matched case-insensitively, the last of duplicates winning and objects
// merging, null leaving a field as it was or a pointer nil, a value of the
// wrong JSON type refused), walking it once with gjson instead of by
// reflection: a voucher is decoded on every paid request. ok is false for
// input encoding/json would refuse.
func readPayload(raw []byte, pj *payloadJSON) (ok bool) {
	if !gjson.ValidBytes(raw) {
		return false
	}
	r := reader{ok: true}
	r.object(gjson.ParseBytes(raw), func(k string, v gjson.Result) {
		switch {
		case fold(k, "type"):
			r.str(v, &pj.Type)
		case fold(k, "channelConfig"):
			if ptr(&pj.ChannelConfig, v) {
				r.config(v, pj.ChannelConfig)
			}
		case fold(k, "voucher"):
			if ptr(&pj.Voucher, v) {
				vj := pj.Voucher
				r.object(v, func(k string, v gjson.Result) {
					switch {
					case fold(k, "channelId"):
						r.str(v, &vj.ChannelID)
					case fold(k, "maxClaimableAmount"):
						r.str(v, &vj.MaxClaimableAmount)
					case fold(k, "signature"):
						r.str(v, &vj.Signature)
					}
				})
			}
		case fold(k, "deposit"):
			if ptr(&pj.Deposit, v) {
				r.deposit(v, pj.Deposit)
			}
		case fold(k, "amount"):
			if ptr(&pj.Amount, v) {
				r.str(v, pj.Amount)
			}
		}
	})
	return r.ok
}

// reader walks decoded JSON, noting the first value of the wrong type.
type reader struct{ ok bool }

func fold(k, name string) bool { return strings.EqualFold(k, name) }

// object calls fn for every member of an object in order; null is nothing.
func (r *reader) object(v gjson.Result, fn func(k string, v gjson.Result)) {
	switch {
	case v.Type == gjson.Null:
	case v.IsObject():
		v.ForEach(func(k, v gjson.Result) bool {
			fn(k.Str, v)
			return true
		})
	default:
		r.ok = false
	}
}

func (r *reader) str(v gjson.Result, dst *string) {
	switch v.Type {
	case gjson.Null:
	case gjson.String:
		*dst = v.Str
		if !utf8.ValidString(v.Str) {
			// encoding/json reads each invalid byte as U+FFFD.
			*dst = string([]rune(v.Str))
		}
	default:
		r.ok = false
	}
}

// ptr sets *p to nil for null and allocates it otherwise, reporting
// whether there is a value to fill (an existing one is filled again).
func ptr[T any](p **T, v gjson.Result) bool {
	if v.Type == gjson.Null {
		*p = nil
		return false
	}
	if *p == nil {
		*p = new(T)
	}
	return true
}

func (r *reader) config(v gjson.Result, c *configJSON) {
	r.object(v, func(k string, v gjson.Result) {
		switch {
		case fold(k, "payer"):
			r.str(v, &c.Payer)
		case fold(k, "payerAuthorizer"):
			r.str(v, &c.PayerAuthorizer)
		case fold(k, "receiver"):
			r.str(v, &c.Receiver)
		case fold(k, "receiverAuthorizer"):
			r.str(v, &c.ReceiverAuthorizer)
		case fold(k, "token"):
			r.str(v, &c.Token)
		case fold(k, "withdrawDelay"):
			c.WithdrawDelay = append(json.RawMessage(nil), v.Raw...)
		case fold(k, "salt"):
			r.str(v, &c.Salt)
		}
	})
}

func (r *reader) deposit(v gjson.Result, d *depositJSON) {
	r.object(v, func(k string, v gjson.Result) {
		switch {
		case fold(k, "amount"):
			r.str(v, &d.Amount)
		case fold(k, "authorization"):
			a := &d.Authorization
			r.object(v, func(k string, v gjson.Result) {
				switch {
				case fold(k, "erc3009Authorization"):
					if ptr(&a.ERC3009, v) {
						e := a.ERC3009
						r.object(v, func(k string, v gjson.Result) {
							switch {
							case fold(k, "validAfter"):
								r.str(v, &e.ValidAfter)
							case fold(k, "validBefore"):
								r.str(v, &e.ValidBefore)
							case fold(k, "salt"):
								r.str(v, &e.Salt)
							case fold(k, "signature"):
								r.str(v, &e.Signature)
							}
						})
					}
				case fold(k, "permit2Authorization"):
					if ptr(&a.Permit2, v) {
						r.permit2(v, a.Permit2)
					}
				}
			})
		}
	})
}

func (r *reader) permit2(v gjson.Result, p *permit2JSON) {
	r.object(v, func(k string, v gjson.Result) {
		switch {
		case fold(k, "from"):
			r.str(v, &p.From)
		case fold(k, "permitted"):
			r.object(v, func(k string, v gjson.Result) {
				switch {
				case fold(k, "token"):
					r.str(v, &p.Permitted.Token)
				case fold(k, "amount"):
					r.str(v, &p.Permitted.Amount)
				}
			})
		case fold(k, "spender"):
			r.str(v, &p.Spender)
		case fold(k, "nonce"):
			r.str(v, &p.Nonce)
		case fold(k, "deadline"):
			r.str(v, &p.Deadline)
		case fold(k, "witness"):
			r.object(v, func(k string, v gjson.Result) {
				if fold(k, "channelId") {
					r.str(v, &p.Witness.ChannelID)
				}
			})
		case fold(k, "signature"):
			r.str(v, &p.Signature)
		}
	})
}
