package files_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/tessera-cms/tessera/internal/files"
)

func get(h http.Handler, target string, hdr http.Header) *httptest.ResponseRecorder {
	return do(h, http.MethodGet, target, hdr)
}

func do(h http.Handler, method, target string, hdr http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://example.test"+target, nil)
	for k, v := range hdr {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHandler(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		s := open(t, files.Options{})
		data := []byte("0123456789abcdefghij")
		m := put(t, s, "digits.txt", "", data)
		h := s.Handler("/files/")
		etag := `"` + m.Checksum + `"`

		t.Run("GET", func(t *testing.T) {
			w := get(h, "/files/"+m.Key, nil)
			if w.Code != 200 || w.Body.String() != string(data) {
				t.Fatalf("got %d %q, want 200 %q", w.Code, w.Body, data)
			}
			want := map[string]string{
				"Content-Type":           "text/plain",
				"Content-Length":         "20",
				"ETag":                   etag,
				"Cache-Control":          "public, max-age=31536000, immutable",
				"X-Content-Type-Options": "nosniff",
				"Accept-Ranges":          "bytes",
			}
			for k, v := range want {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if w.Header().Get("Last-Modified") == "" {
				t.Errorf("no Last-Modified")
			}
		})
		t.Run("HEAD", func(t *testing.T) {
			w := do(h, http.MethodHead, "/files/"+m.Key, nil)
			if w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Content-Length") != "20" || w.Header().Get("ETag") != etag {
				t.Errorf("got %d, %d bytes, headers %v", w.Code, w.Body.Len(), w.Header())
			}
		})
		ranges := []struct {
			name, rng, body, contentRange string
		}{
			{"Range", "bytes=2-5", "2345", "bytes 2-5/20"},
			{"RangeOpenEnd", "bytes=15-", "fghij", "bytes 15-19/20"},
			{"RangeSuffix", "bytes=-3", "hij", "bytes 17-19/20"},
			{"RangePastEnd", "bytes=18-100", "ij", "bytes 18-19/20"},
		}
		for _, rt := range ranges {
			t.Run(rt.name, func(t *testing.T) {
				w := get(h, "/files/"+m.Key, http.Header{"Range": {rt.rng}})
				if w.Code != http.StatusPartialContent || w.Body.String() != rt.body {
					t.Fatalf("got %d %q, want 206 %q", w.Code, w.Body, rt.body)
				}
				if got := w.Header().Get("Content-Range"); got != rt.contentRange {
					t.Errorf("Content-Range = %q, want %q", got, rt.contentRange)
				}
			})
		}
		t.Run("MultiRange", func(t *testing.T) {
			w := get(h, "/files/"+m.Key, http.Header{"Range": {"bytes=0-1,10-11"}})
			if w.Code != http.StatusPartialContent || !strings.HasPrefix(w.Header().Get("Content-Type"), "multipart/byteranges") ||
				!strings.Contains(w.Body.String(), "\r\n\r\n01\r\n") || !strings.Contains(w.Body.String(), "\r\n\r\nab\r\n") {
				t.Errorf("got %d %s %q", w.Code, w.Header().Get("Content-Type"), w.Body)
			}
		})
		t.Run("RangeUnsatisfiable", func(t *testing.T) {
			w := get(h, "/files/"+m.Key, http.Header{"Range": {"bytes=50-60"}})
			if w.Code != http.StatusRequestedRangeNotSatisfiable {
				t.Errorf("got %d, want 416", w.Code)
			}
		})
		t.Run("IfNoneMatch", func(t *testing.T) {
			w := get(h, "/files/"+m.Key, http.Header{"If-None-Match": {etag}})
			if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
				t.Errorf("got %d, %d bytes; want 304", w.Code, w.Body.Len())
			}
			w = get(h, "/files/"+m.Key, http.Header{"If-None-Match": {`"other", ` + etag}})
			if w.Code != http.StatusNotModified {
				t.Errorf("list: got %d, want 304", w.Code)
			}
			w = get(h, "/files/"+m.Key, http.Header{"If-None-Match": {`"other"`}})
			if w.Code != 200 {
				t.Errorf("other etag: got %d, want 200", w.Code)
			}
		})
		t.Run("IfRange", func(t *testing.T) {
			w := get(h, "/files/"+m.Key, http.Header{"Range": {"bytes=0-1"}, "If-Range": {etag}})
			if w.Code != http.StatusPartialContent {
				t.Errorf("matching If-Range: got %d, want 206", w.Code)
			}
			w = get(h, "/files/"+m.Key, http.Header{"Range": {"bytes=0-1"}, "If-Range": {`"stale"`}})
			if w.Code != 200 || w.Body.Len() != 20 {
				t.Errorf("stale If-Range: got %d, want 200 with the whole file", w.Code)
			}
		})
		t.Run("ImageETag", func(t *testing.T) {
			img := put(t, s, "a.png", "", pngBytes(3, 3))
			w := get(h, "/files/"+img.Key, nil)
			if w.Header().Get("ETag") != `"`+img.Checksum+`"` || w.Header().Get("Content-Type") != "image/png" {
				t.Errorf("headers %v", w.Header())
			}
		})
		t.Run("MultipartETag", func(t *testing.T) {
			// Large enough for an S3 multipart upload, whose ETag is not
			// the md5: the handler still answers a strong one.
			big := bytes.Repeat([]byte("0123456789"), 1<<20)
			bm := put(t, s, "big.txt", "", big)
			w := get(h, "/files/"+bm.Key, http.Header{"Range": {"bytes=10485750-"}})
			et := w.Header().Get("ETag")
			if w.Code != 206 || w.Body.String() != "0123456789" || !strings.HasPrefix(et, `"`) || len(et) < 10 {
				t.Fatalf("got %d %q ETag %q", w.Code, w.Body, et)
			}
			t.Logf("ETag %s, md5 %s", et, bm.Checksum)
			if w := get(h, "/files/"+bm.Key, http.Header{"If-None-Match": {et}}); w.Code != 304 {
				t.Errorf("If-None-Match: got %d, want 304", w.Code)
			}
		})
		notFound := []string{
			"/files/sites/site1/files/0123456789abcdef01234567", // well formed, unknown
			"/files/" + m.Key + "x",
			"/files/" + strings.Replace(m.Key, "site1", "..", 1),
			"/files/sites/site1/files/../../../etc/passwd",
			"/files/sites/../" + m.Key,
			"/files/../" + m.Key,
			"/files/other/" + m.Key,
			"/files/" + strings.TrimPrefix(m.Key, "sites/"),
			"/files/",
			"/elsewhere/" + m.Key,
		}
		for _, p := range notFound {
			if w := get(h, p, nil); w.Code != 404 {
				t.Errorf("GET %s: got %d, want 404", p, w.Code)
			}
		}
		w := do(h, http.MethodPost, "/files/"+m.Key, nil)
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("POST: got %d Allow %q, want 405", w.Code, w.Header().Get("Allow"))
		}
	})
}

func TestHandlerPrivate(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		clk := &clock{t: time.Date(2026, 9, 10, 14, 0, 0, 0, time.UTC)}
		s := open(t, files.Options{Secret: []byte("test secret"), Now: clk.now})
		m, err := s.Put(context.Background(), "site1", "contract.pdf", "", strings.NewReader("%PDF-1.4 private"), 100, files.PutOptions{Private: true})
		if err != nil {
			t.Fatal(err)
		}
		h := s.Handler("/f/")
		exp := clk.t.Add(time.Hour)
		signed := "/f/" + s.SignURL(m.Key, exp)
		sig := signed[strings.Index(signed, "signature=")+len("signature="):]

		w := get(h, signed, nil)
		if w.Code != 200 || w.Body.String() != "%PDF-1.4 private" {
			t.Fatalf("valid signature: got %d %q", w.Code, w.Body)
		}
		if got := w.Header().Get("Cache-Control"); got != "private, max-age=3600" {
			t.Errorf("Cache-Control = %q, want private, max-age=3600", got)
		}
		if w := get(h, signed, http.Header{"Range": {"bytes=1-3"}}); w.Code != 206 || w.Body.String() != "PDF" {
			t.Errorf("signed range: got %d %q", w.Code, w.Body)
		}

		other, err := s.Put(context.Background(), "site1", "b.pdf", "", strings.NewReader("%PDF-1.4 other"), 100, files.PutOptions{Private: true})
		if err != nil {
			t.Fatal(err)
		}
		expStr := strconv.FormatInt(exp.Unix(), 10)
		flipped := []byte(sig)
		flipped[0] ^= 1
		forbidden := map[string]string{
			"Missing":          "/f/" + m.Key,
			"MissingSignature": "/f/" + m.Key + "?expires=" + expStr,
			"MissingExpires":   "/f/" + m.Key + "?signature=" + sig,
			"TamperedSig":      "/f/" + m.Key + "?expires=" + expStr + "&signature=" + string(flipped),
			"ShortSig":         "/f/" + m.Key + "?expires=" + expStr + "&signature=" + sig[:10],
			"NotHex":           "/f/" + m.Key + "?expires=" + expStr + "&signature=zz" + sig[2:],
			"LaterExpiry":      "/f/" + m.Key + "?expires=" + strconv.FormatInt(exp.Unix()+3600, 10) + "&signature=" + sig,
			"PaddedExpiry":     "/f/" + m.Key + "?expires=0" + expStr + "&signature=" + sig,
			"OtherKey":         "/f/" + other.Key + "?expires=" + expStr + "&signature=" + sig,
			"Twice":            signed + "&signature=" + sig,
			"OtherSecret":      "/f/" + openLocalWithSecret(t, "other secret").SignURL(m.Key, exp),
		}
		for name, p := range forbidden {
			if w := get(h, p, nil); w.Code != http.StatusForbidden {
				t.Errorf("%s: GET %s: got %d, want 403", name, p, w.Code)
			}
		}

		clk.t = exp
		if w := get(h, signed, nil); w.Code != http.StatusForbidden {
			t.Errorf("expired: got %d, want 403", w.Code)
		}
		clk.t = exp.Add(-time.Second)
		if w := get(h, signed, nil); w.Code != 200 {
			t.Errorf("one second before expiry: got %d, want 200", w.Code)
		}

		// A valid signature for a key with no blob is 404.
		if err := s.Delete(context.Background(), m.Key); err != nil {
			t.Fatal(err)
		}
		if w := get(h, signed, nil); w.Code != 404 {
			t.Errorf("deleted: got %d, want 404", w.Code)
		}
	})
}

func openLocalWithSecret(t *testing.T, secret string) *files.Store {
	return openLocal(t, files.Options{Secret: []byte(secret)})
}

func TestHandlerPublicIgnoresSignature(t *testing.T) {
	s := openLocal(t, files.Options{})
	m := put(t, s, "a.txt", "", []byte("hi"))
	if w := get(s.Handler("/"), "/"+m.Key+"?expires=1&signature=00", nil); w.Code != 200 {
		t.Errorf("got %d, want 200", w.Code)
	}
}

func TestETagOf(t *testing.T) {
	sum := md5.Sum([]byte("x"))
	tests := []struct {
		name  string
		attrs blob.Attributes
		want  string
	}{
		{"MD5", blob.Attributes{MD5: sum[:], ETag: `"other"`}, `"` + hex.EncodeToString(sum[:]) + `"`},
		{"MultipartETag", blob.Attributes{ETag: `"9b2cf535f27731c974343645a3985328-3"`}, `"9b2cf535f27731c974343645a3985328-3"`},
		{"UnquotedETag", blob.Attributes{ETag: `abc`}, `"abc"`},
		{"WeakETag", blob.Attributes{ETag: `W/"abc"`}, ``},
		{"None", blob.Attributes{}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := files.ETagOf(&tt.attrs); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
