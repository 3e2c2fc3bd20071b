package files

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http" // serves file bytes under /files/: the one HTTP handler outside httpapi
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// maxAge is how long a public file may be cached: its key never changes
// content.
const maxAge = 365 * 24 * 60 * 60

// SignURL returns the path, relative to the handler's prefix, under which
// the file at key is served until expires:
// "<key>?expires=<unix seconds>&signature=<hex>". Only private files need
// it; a public file is served without a signature (any is ignored).
func (s *Store) SignURL(key string, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return key + "?expires=" + exp + "&signature=" + s.sign(key, exp)
}

func (s *Store) sign(key, expires string) string {
	m := hmac.New(sha256.New, s.secret)
	io.WriteString(m, "tessera-file-v1\n"+key+"\n"+expires)
	return hex.EncodeToString(m.Sum(nil))
}

// verify reports whether query carries a valid, unexpired signature for
// key, and returns its expiry.
func (s *Store) verify(key string, query map[string][]string) (time.Time, bool) {
	exps, sigs := query["expires"], query["signature"]
	if len(exps) != 1 || len(sigs) != 1 {
		return time.Time{}, false
	}
	exp, err := strconv.ParseInt(exps[0], 10, 64)
	if err != nil || exps[0] != strconv.FormatInt(exp, 10) {
		return time.Time{}, false
	}
	got, err := hex.DecodeString(sigs[0])
	if err != nil {
		return time.Time{}, false
	}
	want, _ := hex.DecodeString(s.sign(key, exps[0]))
	if !hmac.Equal(got, want) {
		return time.Time{}, false
	}
	t := time.Unix(exp, 0)
	return t, s.now().Before(t)
}

// Handler returns a handler serving GET and HEAD of <prefix><key>: the
// stored bytes with their content type, a strong ETag, Last-Modified,
// conditional and Range requests (through http.ServeContent). Public files
// are cacheable for a year; private ones need a SignURL signature (else
// 403) and are cached privately until it expires. A malformed or unknown
// key is 404.
func (s *Store) Handler(prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		key, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok || !ValidKey(key) {
			http.NotFound(w, r)
			return
		}
		cache := "public, max-age=" + strconv.Itoa(maxAge) + ", immutable"
		if IsPrivateKey(key) {
			exp, ok := s.verify(key, r.URL.Query())
			if !ok {
				http.Error(w, "Forbidden", http.StatusForbidden)
				return
			}
			left := int(min(exp.Sub(s.now())/time.Second, maxAge))
			cache = "private, max-age=" + strconv.Itoa(left)
		}
		attrs, err := s.bucket.Attributes(r.Context(), key)
		if err != nil {
			if gcerrors.Code(err) == gcerrors.NotFound {
				http.NotFound(w, r)
				return
			}
			s.log.Error("files: serve", "method", r.Method, "path", r.URL.Path, "err", err)
			http.Error(w, "Internal error.", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", attrs.ContentType)
		h.Set("Cache-Control", cache)
		h.Set("X-Content-Type-Options", "nosniff")
		if !Inline(attrs.ContentType) {
			// Served from the API's origin, a type a browser might run or
			// render as a document (message/rfc822, multipart/x-mixed-replace,
			// anything unforeseen) is downloaded instead.
			h.Set("Content-Disposition", "attachment")
		}
		if etag := etagOf(attrs); etag != "" {
			h.Set("ETag", etag)
		}
		body := &rangeReader{ctx: r.Context(), bucket: s.bucket, key: key, size: attrs.Size}
		defer body.Close()
		http.ServeContent(w, r, "", attrs.ModTime, body)
	})
}

// etagOf returns the quoted strong ETag of a blob: its md5 where the
// backend records one, else the backend's own strong ETag.
func etagOf(a *blob.Attributes) string {
	if len(a.MD5) == 16 {
		return `"` + hex.EncodeToString(a.MD5) + `"`
	}
	e := a.ETag
	if e == "" || strings.HasPrefix(e, "W/") {
		return ""
	}
	if !strings.HasPrefix(e, `"`) {
		e = `"` + e + `"`
	}
	return e
}

// rangeReader is an io.ReadSeeker over a blob of known size that opens a
// range read only when read, from where it was sought to. So HEAD and 304
// answers read nothing, and a Range request reads only its range.
type rangeReader struct {
	ctx    context.Context
	bucket *blob.Bucket
	key    string
	size   int64
	off    int64
	r      *blob.Reader
}

func (rr *rangeReader) Read(p []byte) (int, error) {
	if rr.off >= rr.size {
		return 0, io.EOF
	}
	if rr.r == nil {
		r, err := rr.bucket.NewRangeReader(rr.ctx, rr.key, rr.off, rr.size-rr.off, nil)
		if err != nil {
			return 0, err
		}
		rr.r = r
	}
	n, err := rr.r.Read(p)
	rr.off += int64(n)
	return n, err
}

func (rr *rangeReader) Seek(offset int64, whence int) (int64, error) {
	var off int64
	switch whence {
	case io.SeekStart:
		off = offset
	case io.SeekCurrent:
		off = rr.off + offset
	case io.SeekEnd:
		off = rr.size + offset
	}
	if off < 0 {
		return rr.off, errNegativeSeek
	}
	if off != rr.off {
		rr.Close()
		rr.off = off
	}
	return off, nil
}

// Close closes the open range read, if any.
func (rr *rangeReader) Close() error {
	if rr.r == nil {
		return nil
	}
	err := rr.r.Close()
	rr.r = nil
	return err
}

type seekError string

func (e seekError) Error() string { return string(e) }

const errNegativeSeek = seekError("files: seek before the start of the blob")
