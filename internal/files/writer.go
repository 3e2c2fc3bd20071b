package files

import (
	"bytes"
	"context"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service stores the file values of record writes (pages, entries) and
// keeps the uploads resource.
type Service struct {
	Store store.Store
	// Blobs keeps the bytes; nil refuses every file value that stores some.
	Blobs *Store
	// SiteURL returns a site's public base URL without a trailing slash.
	SiteURL func(*store.Site) string

	sources map[string]Source
}

// A Source finds the stored file a FileRef names on a record of site: a
// page item, an entry field. It answers cms.ESourceNotFound when the
// record or its file does not exist.
type Source interface {
	FileSource(tx store.Tx, site *store.Site, ref Ref) (*File, error)
}

// Register makes src answer FileRefs to resource ("pages", "entries").
// Uploads answer "uploads" and "tmp" themselves. Register is called while
// the server is assembled, before it serves.
func (s *Service) Register(resource string, src Source) {
	if s.sources == nil {
		s.sources = map[string]Source{}
	}
	s.sources[resource] = src
}

// URL is the public URL a stored file of site is served at.
func (s *Service) URL(site *store.Site, key string) string {
	base := ""
	if s != nil && s.SiteURL != nil {
		base = s.SiteURL(site)
	}
	return base + "/files/" + key
}

// Caller is who writes, as far as file copies care: FileRef copies need an
// admin user or a site token, and a copy from another site needs a user who
// is admin there too (a site token never reaches another site).
type Caller struct {
	UserID    string
	Admin     bool
	SiteToken bool
}

// Writer stores the files of one record write. Keys it creates are removed
// again when the write fails or is a dry run (see Finish), so a failed
// write leaves no orphaned bytes. Replaced files are not deleted: versions
// and drafts may still show them.
type Writer struct {
	s      *Service
	ctx    context.Context
	tx     store.Tx
	site   *store.Site
	caller Caller
	// dryRun checks FileRef sources without copying them (uploads are
	// stored and removed again, so their bytes are checked in full).
	dryRun  bool
	created []string
}

// Writer returns the Writer of one write in tx on site. A nil Service
// gives a Writer that refuses every value that stores bytes.
func (s *Service) Writer(ctx context.Context, tx store.Tx, site *store.Site, caller Caller, dryRun bool) *Writer {
	return &Writer{s: s, ctx: ctx, tx: tx, site: site, caller: caller, dryRun: dryRun}
}

// Finish deletes the blobs this write created, unless it committed.
func (w *Writer) Finish(committed bool) {
	if w == nil || committed {
		return
	}
	for _, k := range w.created {
		_ = w.s.Blobs.Delete(context.WithoutCancel(w.ctx), k)
	}
}

// ErrUnsupported answers a value that stores bytes on a server without
// file storage.
func ErrUnsupported(where string) *cms.Error {
	return err422(EInvalidFileFormat, "%s: file uploads and FileRef copies are not supported yet", where)
}

func nextVersion(cur *File) int {
	if cur == nil {
		return 1
	}
	return cur.Version + 1
}

// Store stores v, in private storage when private is set, and returns the
// file object the record keeps. A *cms.Error is the caller's to report: for
// FileRef sources and KindStored values unauthorized, not_found, gone,
// validation_failed or copy_failed; for bytes invalid_content_type,
// file_too_large or invalid_file_format.
func (w *Writer) Store(v Value, private bool) (*File, error) {
	if w.s == nil || w.s.Blobs == nil {
		return nil, ErrUnsupported("File")
	}
	opt := PutOptions{Private: private}
	switch v.Kind {
	case KindURL:
		// A URL is kept as the file's source; Tessera does not fetch it.
		return &File{Filename: v.Filename, URL: v.URL, Version: nextVersion(v.Current)}, nil
	case KindUpload:
		meta, err := w.s.Blobs.Put(w.ctx, w.site.ID, v.Filename, v.ContentType, bytes.NewReader(Unspill(w.ctx, v.Data)), MaxValueSize, opt)
		if err != nil {
			return nil, err
		}
		w.created = append(w.created, meta.Key)
		return w.fromMeta(meta.Key, meta.Filename, meta.ContentType, meta.Checksum, meta.Size, meta.Width, meta.Height, v.Current), nil
	case KindCopy, KindStored:
		var src *File
		var err error
		if v.Kind == KindCopy {
			src, err = w.source(v.Ref)
		} else {
			src, err = w.storedSource(v.Key)
		}
		if err != nil {
			return nil, err
		}
		if w.dryRun {
			return w.fromMeta(src.Key, src.Filename, src.ContentType, src.Checksum, src.Size, src.Width, src.Height, v.Current), nil
		}
		key, err := w.s.Blobs.Copy(w.ctx, src.Key, w.site.ID, opt)
		if err != nil {
			return nil, cms.Errorf(ECopyFailed, "The file could not be copied: %v", err)
		}
		w.created = append(w.created, key)
		return w.fromMeta(key, src.Filename, src.ContentType, src.Checksum, src.Size, src.Width, src.Height, v.Current), nil
	}
	return nil, err422(EInvalidFileFormat, "Unknown file value")
}

func (w *Writer) fromMeta(key, name, ctype, sum string, size int64, wd, ht int, cur *File) *File {
	return &File{Key: key, Filename: name, URL: w.s.URL(w.site, key), ContentType: ctype, Checksum: sum,
		Size: size, Width: wd, Height: ht, Version: nextVersion(cur), Private: IsPrivateKey(key)}
}

// source resolves a FileRef to the stored file it names, checking that
// the caller may copy it.
func (w *Writer) source(ref Ref) (*File, error) {
	if !w.caller.Admin {
		return nil, cms.Errorf(cms.EDenied, "FileRef copies need an admin user or a site token")
	}
	src := w.site
	if ref.SiteShortID != w.site.ShortID {
		other, err := w.otherSite(ref.SiteShortID, func() (*store.Site, error) { return w.tx.Sites().GetByShortID(ref.SiteShortID) })
		if err != nil {
			return nil, err
		}
		src = other
	}
	var f *File
	switch ref.Resource {
	case "uploads", "tmp":
		return w.uploadSource(src, ref)
	case "products":
		return nil, cms.Errorf(cms.ESourceNotFound, "This server has no products")
	default:
		from, ok := w.s.sources[ref.Resource]
		if !ok {
			return nil, cms.Errorf(cms.ESourceNotFound, "FileRef copies from %s are not available", ref.Resource)
		}
		var err error
		if f, err = from.FileSource(w.tx, src, ref); err != nil {
			return nil, err
		}
	}
	if !SiteKey(f.Key, src.ID) {
		return nil, cms.Errorf(cms.ESourceNotFound, "%s %s has no stored file in %q", ref.Resource, ref.RecordID, ref.Field)
	}
	ok, err := w.s.Blobs.Exists(w.ctx, f.Key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, cms.Errorf(cms.ESourceNotFound, "The stored file of %s %s %q is gone", ref.Resource, ref.RecordID, ref.Field)
	}
	return f, nil
}

// otherSite returns the site get finds, named name in messages, when the
// caller may copy files from it: a user who is admin there (a site token
// never reaches another site).
func (w *Writer) otherSite(name string, get func() (*store.Site, error)) (*store.Site, error) {
	if w.caller.SiteToken {
		return nil, cms.Errorf(cms.EDenied, "A site token cannot copy files from another site")
	}
	// A site that does not exist and one the caller may not copy from get
	// the same answer, so that copies cannot probe which sites exist.
	denied := cms.Errorf(cms.EDenied, "Copying from site %q needs an admin of that site", name)
	other, err := get()
	if cms.IsCode(err, cms.ENotFound) {
		return nil, denied
	} else if err != nil {
		return nil, err
	}
	m, err := w.tx.Users().Membership(other.ID, w.caller.UserID)
	if cms.IsCode(err, cms.ENotFound) || err == nil && m.Role != store.RoleAdmin {
		return nil, denied
	} else if err != nil {
		return nil, err
	}
	return other, nil
}

// storedSource resolves the key of a KindStored value to the file it
// names, with a FileRef's permissions: the caller is an admin or a site
// token, and an admin of the key's site when that is another site. Only
// public files are copied this way (a private file's URL is a signed,
// expiring one; copy it with a FileRef).
func (w *Writer) storedSource(key string) (*File, error) {
	if !w.caller.Admin {
		return nil, cms.Errorf(cms.EDenied, "Copying a file by its URL needs an admin user or a site token")
	}
	if IsPrivateKey(key) {
		return nil, err422(EInvalidFileFormat, "A private file is copied with a FileRef {__type: FileRef, source}, not by its URL")
	}
	siteID := strings.SplitN(key, "/", 3)[1]
	if siteID != w.site.ID {
		if _, err := w.otherSite(siteID, func() (*store.Site, error) { return w.tx.Sites().Get(siteID) }); err != nil {
			return nil, err
		}
	}
	meta, err := w.s.Blobs.Stat(w.ctx, key)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, cms.Errorf(cms.ESourceNotFound, "The file %s is not stored on this server", key)
	} else if err != nil {
		return nil, err
	}
	return &File{Key: key, Filename: meta.Filename, ContentType: meta.ContentType, Checksum: meta.Checksum,
		Size: meta.Size, Width: meta.Width, Height: meta.Height}, nil
}
