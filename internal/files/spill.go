package files

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"sync"
)

// Large uploads arrive as base64 strings inside JSON bodies. Decoding such a
// body the ordinary way holds the file several times over (the body, the
// decoder's copy, the JSON string, the decoded bytes). SpillUploads takes
// the large base64 strings out of a body before it is decoded: each is
// decoded once, straight from the body's bytes, and replaced by a short
// placeholder that is itself valid base64, so every check the file parsers
// make on the value still runs. When the file is stored (fileValues.SetFile)
// the placeholder's bytes are swapped for the real ones, which the blob
// store checks again (size, sniffed type, image header). Placeholders carry
// a random 128-bit id valid only in the context of their own request.
//
// The scanner cannot tell a file's "data" from a text field or a json value
// that happens to use the same key: it only sees key names. So a spill is a
// guess that the request must confirm. Unspill marks each placeholder it
// swaps back as used; AllSpillsUsed reports whether every one was. A request
// whose placeholder reached anything but a file upload (it would store the
// placeholder instead of the value) must not commit: the caller checks
// AllSpillsUsed before every commit and then runs the request again on the
// body as sent, unspilled (see httpapi's readFileBody).

// spillThreshold is the length from which a JSON string is taken out.
const spillThreshold = 64 << 10

// spillMagic starts the bytes a placeholder decodes to.
var spillMagic = []byte("\x00tessera-spilled-upload\x00")

type spillKey struct{}

// spilled holds the decoded files of one request by placeholder id.
type spilled struct {
	mu    sync.Mutex
	files map[string]*spilledFile
}

type spilledFile struct {
	data []byte
	used bool // swapped back by Unspill for a file upload
}

// SpillUploads returns body with every "attachment" or "data" string value
// longer than spillThreshold that holds base64 (optionally as a data: URL)
// replaced by a placeholder, and ctx carrying the decoded bytes. A string that is not
// plain base64 (escapes, line breaks, anything else) is left as it is, so
// the ordinary path still reports what is wrong with it. A body without
// large strings comes back unchanged.
func SpillUploads(ctx context.Context, body []byte) ([]byte, context.Context) {
	var out []byte
	table := &spilled{files: map[string]*spilledFile{}}
	last := 0
	keyStart, keyEnd := -1, -1 // the previous string, a key when a ':' follows it
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		// Find the end of this string, noting escapes.
		j, escaped := i+1, false
		for ; j < len(body) && body[j] != '"'; j++ {
			if body[j] == '\\' {
				escaped = true
				j++
			}
		}
		if j >= len(body) {
			break // unterminated: the JSON decoder reports it
		}
		if j-i-1 >= spillThreshold && !escaped && isFileDataKey(body, keyStart, keyEnd, i) {
			if repl, data, ok := spillString(body[i+1 : j]); ok {
				id := newSpillID()
				table.files[id] = &spilledFile{data: data}
				out = append(out, body[last:i+1]...)
				out = append(out, repl...)
				out = append(out, base64.StdEncoding.EncodeToString(append(append([]byte{}, spillMagic...), id...))...)
				last = j
			}
		}
		keyStart, keyEnd = i+1, j
		i = j
	}
	if len(table.files) == 0 {
		return body, ctx
	}
	out = append(out, body[last:]...)
	return out, context.WithValue(ctx, spillKey{}, table)
}

// isFileDataKey reports whether the string starting at body[at] is the value
// of an "attachment" or "data" key (the previous string, followed by ':'):
// only file data is taken out, never text content that merely looks like
// base64.
func isFileDataKey(body []byte, keyStart, keyEnd, at int) bool {
	if keyStart < 0 {
		return false
	}
	key := string(body[keyStart:keyEnd])
	if key != "attachment" && key != "data" {
		return false
	}
	between := bytes.TrimSpace(body[keyEnd+1 : at])
	return len(between) == 1 && between[0] == ':'
}

// spillString decodes one string value: plain base64, or a data: URL with
// ";base64,". It returns what must stay in front of the placeholder (the
// data: prefix) and the decoded bytes.
func spillString(s []byte) (prefix []byte, data []byte, ok bool) {
	payload := s
	if len(s) >= 5 && bytes.EqualFold(s[:5], []byte("data:")) {
		comma := bytes.IndexByte(s, ',')
		if comma < 0 || !bytes.HasSuffix(bytes.ToLower(s[:comma]), []byte(";base64")) {
			return nil, nil, false
		}
		prefix, payload = s[:comma+1], s[comma+1:]
	}
	enc := base64.StdEncoding
	if bytes.ContainsAny(payload, "-_") {
		enc = base64.URLEncoding
	}
	enc = enc.WithPadding(base64.NoPadding)
	payload = bytes.TrimRight(payload, "=")
	data = make([]byte, enc.DecodedLen(len(payload)))
	n, err := enc.Decode(data, payload)
	if err != nil {
		return nil, nil, false
	}
	return prefix, data[:n], true
}

func newSpillID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("files: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// Unspill returns the real bytes behind a placeholder's decoded bytes, and
// marks that placeholder used; data itself when it is not a placeholder of
// this request. Only code that stores data as a file upload may call it.
func Unspill(ctx context.Context, data []byte) []byte {
	if !bytes.HasPrefix(data, spillMagic) {
		return data
	}
	table, _ := ctx.Value(spillKey{}).(*spilled)
	if table == nil {
		return data
	}
	table.mu.Lock()
	defer table.mu.Unlock()
	if f, ok := table.files[string(data[len(spillMagic):])]; ok {
		f.used = true
		return f.data
	}
	return data
}

// AllSpillsUsed reports whether every placeholder SpillUploads put into the
// body of ctx's request has been swapped back for a file upload (true when
// nothing was spilled). When it is false, a placeholder went somewhere else
// (a text or json value named "data" or "attachment") and must not be stored.
func AllSpillsUsed(ctx context.Context) bool {
	table, _ := ctx.Value(spillKey{}).(*spilled)
	if table == nil {
		return true
	}
	table.mu.Lock()
	defer table.mu.Unlock()
	for _, f := range table.files {
		if !f.used {
			return false
		}
	}
	return true
}
