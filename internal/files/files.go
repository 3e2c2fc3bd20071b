package files

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob" // registers s3:// with blob.OpenBucket
	"gocloud.dev/gcerrors"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Error codes Put returns, as the spec names them.
const (
	EFileTooLarge       = "file_too_large"
	EInvalidContentType = "invalid_content_type"
	EInvalidFileFormat  = "invalid_file_format"
)

// s3PartSize and s3Concurrency bound what the S3 upload manager buffers
// per upload: 5 MiB is S3's smallest part. (It also reads up to its 16 MiB
// single-upload threshold into memory first; that is not configurable
// through gocloud.dev.)
const (
	s3PartSize    = 5 << 20
	s3Concurrency = 2
)

// Options configures a Store.
type Options struct {
	// Secret keys the HMAC-SHA256 signatures of private file URLs. Every
	// process serving the same bucket needs the same secret. When empty,
	// Open picks a random one, so signed URLs work only in this process.
	Secret []byte
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Logger logs unexpected errors while serving; nil means slog.Default().
	Logger *slog.Logger
}

// Store keeps file bytes in a blob bucket.
type Store struct {
	bucket *blob.Bucket
	s3     *s3.Client // nil unless the bucket is on S3
	secret []byte
	now    func() time.Time
	log    *slog.Logger
}

// Meta is what Put learns about a stored file.
type Meta struct {
	Key         string // blob key; never derived from the filename
	Filename    string // display name (CleanFilename)
	ContentType string // media type without parameters
	Size        int64
	Checksum    string // lowercase hex md5 of the bytes
	Width       int    // 0 unless a png, jpeg, gif or webp with a readable header
	Height      int
	Private     bool // stored under the private prefix; served only signed
}

// PutOptions are the choices a caller makes per stored file.
type PutOptions struct {
	// Private stores the file under sites/<id>/private/, served only
	// through signed URLs.
	Private bool
}

// Open opens the bucket named by rawURL:
//
//	file:///abs/dir   a local directory, created when missing
//	s3://bucket?endpoint=https://host&region=r&use_path_style=true
//	                  any S3-compatible service (gocloud.dev s3blob parameters;
//	                  credentials from the usual AWS environment and files)
//	mem://            an in-memory bucket, for tests
func Open(ctx context.Context, rawURL string, opt Options) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("files: blob URL: %w", err)
	}
	var b *blob.Bucket
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("files: file URL %q: want file:///absolute/dir", rawURL)
		}
		if u.RawQuery != "" {
			return nil, fmt.Errorf("files: file URL %q takes no parameters", rawURL)
		}
		dir := u.Path
		if dir == "" || !strings.HasPrefix(dir, "/") {
			return nil, fmt.Errorf("files: file URL %q: want an absolute directory", rawURL)
		}
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("files: create %s: %w", dir, err)
		}
		// Temporary files go beside their blob, so the final rename never
		// crosses file systems (os.TempDir may be another mount).
		b, err = fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true})
	case "mem":
		b = memblob.OpenBucket(nil)
	case "s3":
		b, err = blob.OpenBucket(ctx, rawURL)
	default:
		return nil, fmt.Errorf("files: unsupported blob URL scheme %q (want file, s3 or mem)", u.Scheme)
	}
	if err != nil {
		return nil, fmt.Errorf("files: open %s: %w", redact(u), err)
	}
	if ok, err := b.IsAccessible(ctx); !ok || err != nil {
		_ = b.Close()
		if err == nil {
			err = errors.New("bucket does not exist")
		}
		return nil, fmt.Errorf("files: open %s: %w", redact(u), err)
	}
	s := &Store{bucket: b, secret: opt.Secret, now: opt.Now, log: opt.Logger}
	if !b.As(&s.s3) {
		s.s3 = nil
	}
	if len(s.secret) == 0 {
		s.secret = make([]byte, 32)
		_, _ = rand.Read(s.secret)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s, nil
}

// redact returns u without its query (which may name credentials files or
// profiles) for error messages.
func redact(u *url.URL) string {
	c := *u
	c.RawQuery = ""
	c.User = nil
	return c.String()
}

// Close closes the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

var (
	siteIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	keyRe    = regexp.MustCompile(`^sites/[A-Za-z0-9_-]{1,64}/(?:files|private)/[0-9a-f]{24}$`)
)

// ValidKey reports whether key has the form of a key Put or Copy makes.
func ValidKey(key string) bool { return keyRe.MatchString(key) }

// IsPrivateKey reports whether key names a private-storage file.
func IsPrivateKey(key string) bool {
	return ValidKey(key) && strings.Contains(key, "/private/")
}

// SiteKey reports whether key is a valid key of a file of siteID. A key
// read from a stored record is checked with it before it is served, signed
// or copied, so that no record can reach another site's bytes.
func SiteKey(key, siteID string) bool {
	return ValidKey(key) && strings.HasPrefix(key, "sites/"+siteID+"/")
}

// newKey returns a fresh random key for a file of siteID.
func newKey(siteID string, private bool) (string, error) {
	if !siteIDRe.MatchString(siteID) {
		return "", fmt.Errorf("files: invalid site id %q", siteID)
	}
	var r [12]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("files: new key: %w", err)
	}
	dir := "files"
	if private {
		dir = "private"
	}
	return "sites/" + siteID + "/" + dir + "/" + hex.EncodeToString(r[:]), nil
}

func err422(code, format string, args ...any) *cms.Error {
	return &cms.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func errTooLarge(maxSize int64) *cms.Error {
	if maxSize >= 1<<20 && maxSize%(1<<20) == 0 {
		return err422(EFileTooLarge, "files are at most %d MB", maxSize>>20)
	}
	return err422(EFileTooLarge, "files are at most %d bytes", maxSize)
}

// Put streams r into a new blob of siteID and returns its metadata.
// filename is the user's name for the file (only its CleanFilename is kept)
// and declaredType the media type the client declared ("" for none).
// Put reads at most maxSize+1 bytes of r and never holds the whole file in
// memory.
//
// Errors: *cms.Error with Status 422 and code invalid_content_type (html,
// js, svg, xml or css by declared type, extension or content; an image
// extension on bytes that are no image), file_too_large (more than maxSize
// bytes; nothing is left stored) or invalid_file_format (empty file); any
// other error is the reader's or the bucket's.
func (s *Store) Put(ctx context.Context, siteID, filename, declaredType string, r io.Reader, maxSize int64, opt PutOptions) (*Meta, error) {
	key, err := newKey(siteID, opt.Private)
	if err != nil {
		return nil, err
	}
	name := CleanFilename(filename)

	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("files: read upload: %w", err)
	}
	head = head[:n]
	if n == 0 {
		return nil, err422(EInvalidFileFormat, "the file is empty")
	}
	if int64(n) > maxSize {
		return nil, errTooLarge(maxSize)
	}
	ct, ok, why := contentType(name, mediaType(declaredType), head)
	if !ok {
		return nil, err422(EInvalidContentType, "%s", why)
	}

	// Cancelling wctx before Close aborts the write: no blob is created.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, key, &blob.WriterOptions{
		ContentType: ct,
		Metadata:    map[string]string{"filename": name},
		BeforeWrite: s.beforeWrite,
	})
	if err != nil {
		return nil, fmt.Errorf("files: put %s: %w", key, err)
	}
	abort := func(err error) (*Meta, error) {
		cancel()
		_ = w.Close()
		// Drivers drop an aborted write; delete anyway in case one did not.
		dctx, done := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer done()
		if derr := s.Delete(dctx, key); derr != nil {
			s.log.Error("files: delete aborted upload", "key", key, "err", derr)
		}
		return nil, err
	}

	sum := md5.New()
	dims := newDimensions(ct)
	sinks := []io.Writer{w, sum}
	if dims != nil {
		sinks = append(sinks, dims)
	}
	mw := io.MultiWriter(sinks...)
	if _, err := mw.Write(head); err != nil {
		return abort(fmt.Errorf("files: put %s: %w", key, err))
	}
	// Read one byte past the limit to tell "exactly maxSize" from "more".
	rest, err := io.CopyBuffer(mw, io.LimitReader(r, maxSize-int64(n)+1), make([]byte, 64<<10))
	if err != nil {
		return abort(fmt.Errorf("files: put %s: %w", key, err))
	}
	size := int64(n) + rest
	if size > maxSize {
		return abort(errTooLarge(maxSize))
	}
	if err := w.Close(); err != nil {
		return abort(fmt.Errorf("files: put %s: %w", key, err))
	}
	m := &Meta{
		Key:         key,
		Filename:    name,
		ContentType: ct,
		Size:        size,
		Checksum:    hex.EncodeToString(sum.Sum(nil)),
		Private:     opt.Private,
	}
	if dims != nil {
		dims.finish()
		m.Width, m.Height = dims.width, dims.height
	}
	return m, nil
}

// beforeWrite configures the AWS upload manager of an S3 write (s3blob
// hands it out for this; see s3PartSize). s3blob only passes part size and
// concurrency through, not the single-upload threshold.
func (s *Store) beforeWrite(as func(any) bool) error {
	var tm *transfermanager.Client
	if s.s3 == nil || !as(&tm) {
		return nil
	}
	*tm = *transfermanager.New(s.s3, func(o *transfermanager.Options) {
		o.PartSizeBytes = s3PartSize
		o.MultipartUploadThreshold = s3PartSize
		o.Concurrency = s3Concurrency
		// Abort a failed or cancelled multipart upload on a fresh context,
		// so no parts are left behind (the write's own is cancelled).
		o.FailTimeout = 30 * time.Second
		// As s3blob does: third-party S3 services may want when_required.
		o.RequestChecksumCalculation = s.s3.Options().RequestChecksumCalculation
	})
	return nil
}

// Copy copies the blob at srcKey to a new key of siteID (public or private
// as opt says) and returns the new key. The copy is independent: deleting
// either blob leaves the other. A missing source is cms not_found.
func (s *Store) Copy(ctx context.Context, srcKey, siteID string, opt PutOptions) (string, error) {
	if !ValidKey(srcKey) {
		return "", fmt.Errorf("files: copy: invalid key %q", srcKey)
	}
	key, err := newKey(siteID, opt.Private)
	if err != nil {
		return "", err
	}
	if err := s.bucket.Copy(ctx, key, srcKey, nil); err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return "", cms.ErrNotFound()
		}
		return "", fmt.Errorf("files: copy %s: %w", srcKey, err)
	}
	return key, nil
}

// Stat returns the metadata of the blob at key as Put worked it out: the
// display name and content type it was stored with, and the size, md5 and
// image dimensions of its bytes, which it reads once. A missing blob is
// cms not_found.
func (s *Store) Stat(ctx context.Context, key string) (*Meta, error) {
	if !ValidKey(key) {
		return nil, cms.ErrNotFound()
	}
	attrs, err := s.bucket.Attributes(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, cms.ErrNotFound()
	} else if err != nil {
		return nil, fmt.Errorf("files: stat %s: %w", key, err)
	}
	r, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, cms.ErrNotFound()
	} else if err != nil {
		return nil, fmt.Errorf("files: stat %s: %w", key, err)
	}
	defer r.Close()
	m := &Meta{Key: key, Filename: attrs.Metadata["filename"], ContentType: mediaType(attrs.ContentType), Private: IsPrivateKey(key)}
	sum := md5.New()
	dims := newDimensions(m.ContentType)
	sinks := []io.Writer{sum}
	if dims != nil {
		sinks = append(sinks, dims)
	}
	if m.Size, err = io.CopyBuffer(io.MultiWriter(sinks...), r, make([]byte, 64<<10)); err != nil {
		return nil, fmt.Errorf("files: stat %s: %w", key, err)
	}
	m.Checksum = hex.EncodeToString(sum.Sum(nil))
	if dims != nil {
		dims.finish()
		m.Width, m.Height = dims.width, dims.height
	}
	return m, nil
}

// Delete deletes the blob at key. A missing blob is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if !ValidKey(key) {
		return fmt.Errorf("files: delete: invalid key %q", key)
	}
	if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("files: delete %s: %w", key, err)
	}
	return nil
}

// Exists reports whether a blob is stored at key. An invalid key exists
// nowhere.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	if !ValidKey(key) {
		return false, nil
	}
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("files: exists %s: %w", key, err)
	}
	return ok, nil
}

// DeleteSite deletes every blob of a site (public and private), for a
// site that is being removed, and returns how many it deleted.
func (s *Store) DeleteSite(ctx context.Context, siteID string) (int, error) {
	n := 0
	iter := s.bucket.List(&blob.ListOptions{Prefix: "sites/" + siteID + "/"})
	for {
		obj, err := iter.Next(ctx)
		if err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, fmt.Errorf("files: list blobs of site %s: %w", siteID, err)
		}
		if obj.IsDir {
			continue
		}
		if err := s.bucket.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return n, fmt.Errorf("files: delete %s: %w", obj.Key, err)
		}
		n++
	}
}
