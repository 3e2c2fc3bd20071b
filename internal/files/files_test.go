package files_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
)

// backend opens a fresh, empty store.
type backend struct {
	name string
	open func(tb testing.TB, opt files.Options) *files.Store
}

// backends are the stores every test runs against: a local directory and
// an S3 bucket on an in-process fake S3 server.
var backends = []backend{
	{"local", openLocal},
	{"s3", openS3},
}

func openLocal(tb testing.TB, opt files.Options) *files.Store {
	tb.Helper()
	return mustOpen(tb, "file://"+filepath.ToSlash(tb.TempDir())+"/blobs", opt)
}

func openS3(tb testing.TB, opt files.Options) *files.Store {
	tb.Helper()
	return openS3With(tb, opt, nil)
}

// openS3With opens a store on a fresh in-process fake S3 whose handler is
// wrapped by wrap (when not nil).
func openS3With(tb testing.TB, opt files.Options, wrap func(http.Handler) http.Handler) *files.Store {
	tb.Helper()
	mem := s3mem.New()
	if err := mem.CreateBucket("tessera"); err != nil {
		tb.Fatal(err)
	}
	h := gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	q := url.Values{
		"endpoint":                     {srv.URL},
		"region":                       {"us-east-1"},
		"use_path_style":               {"true"},
		"anonymous":                    {"true"},
		"request_checksum_calculation": {"when_required"},
	}
	return mustOpen(tb, "s3://tessera?"+q.Encode(), opt)
}

func mustOpen(tb testing.TB, u string, opt files.Options) *files.Store {
	tb.Helper()
	s, err := files.Open(context.Background(), u, opt)
	if err != nil {
		tb.Fatalf("Open(%s): %v", u, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// eachBackend runs f as a subtest on every backend.
func eachBackend(t *testing.T, f func(t *testing.T, open func(tb testing.TB, opt files.Options) *files.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b.open) })
	}
}

var keyRe = regexp.MustCompile(`^sites/site1/files/[0-9a-f]{24}$`)

func put(t testing.TB, s *files.Store, name, declared string, data []byte) *files.Meta {
	t.Helper()
	m, err := s.Put(context.Background(), "site1", name, declared, bytes.NewReader(data), 32<<20, files.PutOptions{})
	if err != nil {
		t.Fatalf("Put(%q): %v", name, err)
	}
	return m
}

func keys(t testing.TB, s *files.Store) []string {
	t.Helper()
	k, err := files.ListKeys(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *cms.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *cms.Error %s", err, code)
	}
	if e.Code != code {
		t.Fatalf("err = %s, want %s", e.Code, code)
	}
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// Test images, generated.

func pngBytes(w, h int) []byte {
	var b bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func jpegBytes(w, h int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func gifBytes(w, h int) []byte {
	var b bytes.Buffer
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	if err := gif.Encode(&b, img, nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// jpegWithAPP returns a w×h jpeg with n bytes of APP1 segments before its
// frame header, as a camera's EXIF and thumbnail would put there.
func jpegWithAPP(w, h, n int) []byte {
	j := jpegBytes(w, h)
	var b bytes.Buffer
	b.Write(j[:2]) // SOI
	for n > 0 {
		l := min(n, 65533)
		b.Write([]byte{0xff, 0xe1})
		binary.Write(&b, binary.BigEndian, uint16(l+2))
		b.Write(bytes.Repeat([]byte{'x'}, l))
		n -= l
	}
	b.Write(j[2:])
	return b.Bytes()
}

// webpVP8L returns the header of a lossless webp of w×h (enough for
// DecodeConfig and for the sniffer).
func webpVP8L(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14 // alpha 0, version 0
	chunk := []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)}
	return riff("VP8L", chunk)
}

// webpVP8X returns the header of an extended webp whose canvas is w×h.
func webpVP8X(w, h int) []byte {
	chunk := make([]byte, 10)
	put24 := func(b []byte, v int) { b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16) }
	put24(chunk[4:], w-1)
	put24(chunk[7:], h-1)
	return riff("VP8X", chunk)
}

func riff(fourcc string, chunk []byte) []byte {
	var c bytes.Buffer
	c.WriteString("WEBP")
	c.WriteString(fourcc)
	binary.Write(&c, binary.LittleEndian, uint32(len(chunk)))
	c.Write(chunk)
	if len(chunk)%2 == 1 {
		c.WriteByte(0)
	}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(c.Len()))
	b.Write(c.Bytes())
	return b.Bytes()
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a", "b")
	s, err := files.Open(ctx, "file://"+filepath.ToSlash(dir), files.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("Open did not create the directory: %v", err)
	}
	for _, u := range []string{"file://relative/dir", "file:relative", "ftp://x/y", "file:///tmp/x?metadata=skip", "::"} {
		if s, err := files.Open(ctx, u, files.Options{}); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", u)
		}
	}
	s, err = files.Open(ctx, "mem://", files.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func TestPutMetadata(t *testing.T) {
	jp := jpegBytes(5, 4)
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
	tests := []struct {
		name     string
		filename string
		declared string
		data     []byte
		ct       string
		w, h     int
	}{
		{"PNG", "a.png", "", pngBytes(3, 2), "image/png", 3, 2},
		{"JPEG", "photo.JPG", "image/jpeg", jp, "image/jpeg", 5, 4},
		{"GIF", "anim.gif", "", gifBytes(7, 3), "image/gif", 7, 3},
		{"WebPLossless", "w.webp", "", webpVP8L(9, 6), "image/webp", 9, 6},
		{"WebPExtended", "w.webp", "", webpVP8X(300, 200), "image/webp", 300, 200},
		{"BytesWinOverImageExtension", "mislabeled.png", "image/png", jp, "image/jpeg", 5, 4},
		{"UnknownExtensionSniffed", "data.bin", "", pngBytes(2, 2), "image/png", 2, 2},
		{"NoExtensionDeclared", "report", "application/pdf", pdf, "application/pdf", 0, 0},
		{"NoExtensionSniffed", "report", "", pdf, "application/pdf", 0, 0},
		{"ExtensionWinsOverDeclared", "notes.txt", "application/pdf", []byte("hello\n"), "text/plain", 0, 0},
		{"UnknownBinary", "blob.dat", "", []byte{0, 1, 2, 3, 0xff}, "application/octet-stream", 0, 0},
		{"JPEGWithLargeEXIF", "big.jpg", "", jpegWithAPP(11, 12, 300<<10), "image/jpeg", 11, 12},
		{"JPEGHeaderBeyondLimit", "huge.jpg", "", jpegWithAPP(11, 12, 1100<<10), "image/jpeg", 0, 0},
		{"CorruptPNG", "bad.png", "", append([]byte("\x89PNG\r\n\x1a\n"), "garbage!"...), "image/png", 0, 0},
	}
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		s := open(t, files.Options{})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				m, err := s.Put(context.Background(), "site1", tt.filename, tt.declared, bytes.NewReader(tt.data), 2<<20, files.PutOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !keyRe.MatchString(m.Key) {
					t.Errorf("Key = %q, want sites/site1/files/<24 hex>", m.Key)
				}
				want := files.Meta{Key: m.Key, Filename: tt.filename, ContentType: tt.ct, Size: int64(len(tt.data)),
					Checksum: md5hex(tt.data), Width: tt.w, Height: tt.h}
				if *m != want {
					t.Errorf("got %+v, want %+v", *m, want)
				}
				if ok, err := s.Exists(context.Background(), m.Key); !ok || err != nil {
					t.Errorf("Exists = %v, %v; want true", ok, err)
				}
			})
		}
	})
}

func TestPutRefusedTypes(t *testing.T) {
	tests := []struct {
		name     string
		filename string
		declared string
		data     string
	}{
		{"DeclaredHTML", "a.png", "text/html; charset=utf-8", "\x89PNG\r\n\x1a\n"},
		{"DeclaredSVG", "a.bin", "image/svg+xml", "plain"},
		{"DeclaredJS", "a.bin", "application/javascript", "plain"},
		{"DeclaredXHTML", "a", "application/xhtml+xml", "plain"},
		{"ExtensionHTML", "index.html", "", "plain"},
		{"ExtensionUpperSVG", "logo.SVG", "", "plain"},
		{"ExtensionJS", "app.js", "", "alert(1)"},
		{"ExtensionMJS", "app.mjs", "", "alert(1)"},
		{"ExtensionCSS", "style.css", "", "body{}"},
		{"ExtensionXML", "feed.xml", "", "plain"},
		{"ExtensionAfterTrailingDot", "evil.html.", "", "plain"},
		{"ExtensionAfterNUL", "x.png\x00.html", "", "\x89PNG\r\n\x1a\n"},
		{"SniffedHTML", "page.txt", "text/plain", "<html><body>hi</body></html>"},
		{"SniffedHTMLLeadingSpace", "page.txt", "", "\n\n   <!DOCTYPE html><p>x"},
		{"SniffedScript", "page.txt", "", "<script>alert(1)</script>"},
		{"SniffedXML", "data.txt", "", "<?xml version=\"1.0\"?><a/>"},
		{"SniffedSVG", "pic.txt", "", "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"},
		{"SniffedSVGWithBOM", "pic.png", "", "\xef\xbb\xbf<SVG></SVG>"},
		{"ImageExtensionOnText", "image.png", "", "hello"},
		{"ImageDeclaredOnText", "image", "image/gif", "hello"},
	}
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		s := open(t, files.Options{})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.Put(context.Background(), "site1", tt.filename, tt.declared, strings.NewReader(tt.data), 1<<20, files.PutOptions{})
				wantCode(t, err, files.EInvalidContentType)
			})
		}
		if k := keys(t, s); len(k) != 0 {
			t.Errorf("refused uploads left blobs: %q", k)
		}
	})
}

func TestPutEmpty(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		s := open(t, files.Options{})
		_, err := s.Put(context.Background(), "site1", "a.txt", "", strings.NewReader(""), 100, files.PutOptions{})
		wantCode(t, err, files.EInvalidFileFormat)
	})
}

func TestPutHostileFilenames(t *testing.T) {
	long := strings.Repeat("é", 600) + ".png"
	tests := []struct {
		in, want string
	}{
		{"../../etc/passwd", "passwd"},
		{"../../../../tmp/x.png", "x.png"},
		{`C:\Users\me\..\evil.png`, "evil.png"},
		{"a\x00b.png", "ab.png"},
		{"line\r\nbreak.png", "linebreak.png"},
		{"\u202egnp.exe", "gnp.exe"},
		{"", "file"},
		{"..", "file"},
		{"/", "file"},
		{"dir/", "file"},
		{"   ", "file"},
		{"\x00\x01", "file"},
		{"bad\xffutf8.png", "badutf8.png"},
		{" trailing. . ", "trailing"},
		{".hidden", ".hidden"},
		{long, strings.Repeat("é", 125) + ".png"},
	}
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		s := open(t, files.Options{})
		for _, tt := range tests {
			m, err := s.Put(context.Background(), "site1", tt.in, "", bytes.NewReader(pngBytes(1, 1)), 1000, files.PutOptions{})
			if err != nil {
				t.Fatalf("Put(%q): %v", tt.in, err)
			}
			if m.Filename != tt.want {
				t.Errorf("Put(%q).Filename = %q, want %q", tt.in, m.Filename, tt.want)
			}
			if !keyRe.MatchString(m.Key) {
				t.Errorf("Put(%q).Key = %q", tt.in, m.Key)
			}
		}
		if k := keys(t, s); len(k) != len(tests) {
			t.Errorf("stored %d blobs, want %d: %q", len(k), len(tests), k)
		}
	})
}

func TestPutInvalidSiteID(t *testing.T) {
	s := openLocal(t, files.Options{})
	for _, id := range []string{"", "..", "a/b", "a\x00", strings.Repeat("a", 65)} {
		if _, err := s.Put(context.Background(), id, "a.txt", "", strings.NewReader("x"), 10, files.PutOptions{}); err == nil {
			t.Errorf("Put with site id %q succeeded", id)
		}
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// zeros is an endless reader of 'a'.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestPutSizeLimit(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		ctx := context.Background()
		s := open(t, files.Options{})
		t.Run("Exact", func(t *testing.T) {
			m, err := s.Put(ctx, "site1", "a.txt", "", strings.NewReader(strings.Repeat("a", 1000)), 1000, files.PutOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if m.Size != 1000 {
				t.Errorf("Size = %d, want 1000", m.Size)
			}
			if err := s.Delete(ctx, m.Key); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("WithinHead", func(t *testing.T) {
			_, err := s.Put(ctx, "site1", "a.txt", "", strings.NewReader(strings.Repeat("a", 100)), 99, files.PutOptions{})
			wantCode(t, err, files.EFileTooLarge)
		})
		t.Run("OneByteOver", func(t *testing.T) {
			_, err := s.Put(ctx, "site1", "a.txt", "", strings.NewReader(strings.Repeat("a", 100001)), 100000, files.PutOptions{})
			wantCode(t, err, files.EFileTooLarge)
		})
		t.Run("EndlessStream", func(t *testing.T) {
			r := &countingReader{r: endless{}}
			_, err := s.Put(ctx, "site1", "a.txt", "", r, 1<<20, files.PutOptions{})
			wantCode(t, err, files.EFileTooLarge)
			if r.n > 1<<20+64<<10 {
				t.Errorf("read %d bytes of an endless stream, want at most the limit and one buffer", r.n)
			}
		})
		t.Run("PartialBlobRemoved", func(t *testing.T) {
			// Several S3 parts, so the multipart upload has started
			// (and parts are stored) when the limit is hit.
			r := io.LimitReader(endless{}, 13<<20)
			_, err := s.Put(ctx, "site1", "a.txt", "", r, 12<<20, files.PutOptions{Private: true})
			wantCode(t, err, files.EFileTooLarge)
		})
		if k := keys(t, s); len(k) != 0 {
			t.Errorf("refused uploads left blobs: %q", k)
		}
	})
}

func TestPutLeavesNoTempFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "blobs")
	s := mustOpen(t, "file://"+filepath.ToSlash(dir), files.Options{})
	ctx := context.Background()
	m := put(t, s, "a.txt", "", []byte("kept"))
	_, err := s.Put(ctx, "site1", "b.txt", "", io.LimitReader(endless{}, 300<<10), 200<<10, files.PutOptions{})
	wantCode(t, err, files.EFileTooLarge)
	var found []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	want := []string{m.Key, m.Key + ".attrs"}
	if strings.Join(found, ",") != strings.Join(want, ",") {
		t.Errorf("files on disk = %q, want %q", found, want)
	}
}

// TestS3MultipartAborted checks that an upload refused or failed after its
// S3 multipart upload has begun aborts it, so no parts stay billed.
func TestS3MultipartAborted(t *testing.T) {
	var mu sync.Mutex
	var started, finished int
	s := openS3With(t, files.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			mu.Lock()
			switch {
			case r.Method == http.MethodPost && q.Has("uploads"):
				started++
			case q.Has("uploadId") && (r.Method == http.MethodDelete || r.Method == http.MethodPost):
				finished++ // aborted or completed
			}
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	ctx := context.Background()
	_, err := s.Put(ctx, "site1", "a.txt", "", io.LimitReader(endless{}, 13<<20), 12<<20, files.PutOptions{})
	wantCode(t, err, files.EFileTooLarge)
	_, err = s.Put(ctx, "site1", "a.txt", "", &failingReader{n: 11 << 20}, 20<<20, files.PutOptions{})
	if err == nil {
		t.Fatal("Put with a failing reader succeeded")
	}
	mu.Lock()
	st, fin := started, finished
	mu.Unlock()
	if st != 2 || fin != 2 {
		t.Errorf("multipart uploads: %d started, %d aborted; want 2 and 2", st, fin)
	}
	if k := keys(t, s); len(k) != 0 {
		t.Errorf("left blobs: %q", k)
	}
}

// failingReader fails after n bytes.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), f.n)
	for i := range p[:n] {
		p[i] = 'a'
	}
	f.n -= n
	return n, nil
}

func TestPutReaderError(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		s := open(t, files.Options{})
		_, err := s.Put(context.Background(), "site1", "a.txt", "", &failingReader{n: 100 << 10}, 1<<20, files.PutOptions{})
		var ce *cms.Error
		if err == nil || errors.As(err, &ce) {
			t.Fatalf("err = %v, want the reader's error", err)
		}
		if k := keys(t, s); len(k) != 0 {
			t.Errorf("failed upload left blobs: %q", k)
		}
	})
}

func TestCopyDeleteExists(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		ctx := context.Background()
		s := open(t, files.Options{})
		data := pngBytes(4, 4)
		m := put(t, s, "a.png", "", data)

		c, err := s.Copy(ctx, m.Key, "site2", files.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^sites/site2/files/[0-9a-f]{24}$`).MatchString(c) || c == m.Key {
			t.Fatalf("Copy key = %q", c)
		}
		p, err := s.Copy(ctx, m.Key, "site1", files.PutOptions{Private: true})
		if err != nil {
			t.Fatal(err)
		}
		if !files.IsPrivateKey(p) || !strings.HasPrefix(p, "sites/site1/private/") {
			t.Fatalf("private Copy key = %q", p)
		}

		// Deleting the original leaves the copies' bytes.
		if err := s.Delete(ctx, m.Key); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.Exists(ctx, m.Key); ok || err != nil {
			t.Errorf("Exists(deleted) = %v, %v; want false", ok, err)
		}
		h := s.Handler("/f/")
		rec := get(h, "/f/"+c, nil)
		if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), data) {
			t.Errorf("copy after deleting the original: status %d, %d bytes; want 200, %d bytes", rec.Code, rec.Body.Len(), len(data))
		}
		if ct := rec.Header().Get("Content-Type"); ct != "image/png" {
			t.Errorf("copy Content-Type = %q, want image/png", ct)
		}
		if ok, _ := s.Exists(ctx, p); !ok {
			t.Errorf("private copy gone")
		}

		// Missing keys.
		if err := s.Delete(ctx, m.Key); err != nil {
			t.Errorf("Delete(missing) = %v, want nil", err)
		}
		if _, err := s.Copy(ctx, m.Key, "site1", files.PutOptions{}); !cms.IsCode(err, cms.ENotFound) {
			t.Errorf("Copy(missing) = %v, want not_found", err)
		}
		for _, bad := range []string{"../x", "sites/site1/files/../../x", "other/site1/files/0123456789abcdef01234567", ""} {
			if _, err := s.Copy(ctx, bad, "site1", files.PutOptions{}); err == nil {
				t.Errorf("Copy(%q) succeeded", bad)
			}
			if err := s.Delete(ctx, bad); err == nil {
				t.Errorf("Delete(%q) succeeded", bad)
			}
			if ok, err := s.Exists(ctx, bad); ok || err != nil {
				t.Errorf("Exists(%q) = %v, %v", bad, ok, err)
			}
		}
		if k := keys(t, s); len(k) != 2 {
			t.Errorf("keys = %q, want the two copies", k)
		}
	})
}

func TestPutPrivate(t *testing.T) {
	eachBackend(t, func(t *testing.T, open func(testing.TB, files.Options) *files.Store) {
		s := open(t, files.Options{})
		m, err := s.Put(context.Background(), "site1", "a.txt", "", strings.NewReader("secret"), 100, files.PutOptions{Private: true})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Private || !regexp.MustCompile(`^sites/site1/private/[0-9a-f]{24}$`).MatchString(m.Key) || !files.IsPrivateKey(m.Key) {
			t.Errorf("got %+v, want a private key", m)
		}
	})
}

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }
