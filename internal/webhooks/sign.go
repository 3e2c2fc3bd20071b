package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery (docs/webhooks.md).
const (
	// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256>": the
	// HMAC, keyed with the webhook's secret, of the timestamp, a dot and
	// the body, byte for byte.
	SignatureHeader = "Tessera-Signature"
	// DeliveryHeader carries the event's id: the same on every try of the
	// same event (retries, redeliveries), so a receiver that keeps the ids
	// it handled handles each event once.
	DeliveryHeader = "Tessera-Delivery"
	// EventHeader carries the event's type.
	EventHeader = "Tessera-Event"
)

// Sign returns the value of SignatureHeader for body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether header is a valid SignatureHeader of body under
// secret, and the time it carries. A receiver should also refuse a time
// too far from its own clock (docs/webhooks.md suggests five minutes), so
// that a captured delivery cannot be replayed later; Verify leaves that to
// the caller, whose clock it is.
func Verify(secret, header string, body []byte) (time.Time, bool) {
	var ts string
	var sigs []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return time.Time{}, false
	}
	want := mac(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return time.Unix(sec, 0).UTC(), true
		}
	}
	return time.Time{}, false
}
