package cms

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
	"time"
)

// IDs are 24 lowercase hex characters: 4 bytes of Unix seconds, 5 random
// bytes chosen once per process, and a 3-byte counter, the layout clients of
// the original service expect (they treat any 24-hex string as an id).
var (
	idProcess [5]byte
	idCounter atomic.Uint32
)

func init() {
	if _, err := rand.Read(idProcess[:]); err != nil {
		panic("cms: no randomness for ids: " + err.Error())
	}
	var c [4]byte
	_, _ = rand.Read(c[:])
	idCounter.Store(binary.BigEndian.Uint32(c[:]))
}

// NewID returns a new identifier whose leading bytes encode t.
func NewID(t time.Time) string {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:4], uint32(t.Unix()))
	copy(b[4:9], idProcess[:])
	n := idCounter.Add(1)
	b[9], b[10], b[11] = byte(n>>16), byte(n>>8), byte(n)
	return hex.EncodeToString(b[:])
}

// IsID reports whether s has the shape of an identifier: 24 lowercase or
// uppercase hex characters.
func IsID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
