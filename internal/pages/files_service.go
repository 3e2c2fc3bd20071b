package pages

import (
	"bytes"
	"context"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// Caller is who writes, as far as file copies care: FileRef copies need an
// admin user or a site token, and a copy from another site needs a user who
// is admin there too (a site token never reaches another site).
type Caller struct {
	UserID    string
	Admin     bool
	SiteToken bool
}

// fileValues stores the files of one write. Keys it creates are removed
// again when the write fails or is a dry run (see cleanup), so a failed
// write leaves no orphaned bytes. Replaced files are not deleted: versions
// and drafts may still show them.
type fileValues struct {
	s      *Service
	ctx    context.Context
	tx     store.Tx
	site   *store.Site
	caller Caller
	// dryRun checks FileRef sources without copying them (uploads are
	// stored and removed again, so their bytes are checked in full).
	dryRun bool
	// private stores uploads and copies in private storage (entry fields
	// marked private_storage).
	private bool
	created []string
}

func (s *Service) fileValues(ctx context.Context, tx store.Tx, site *store.Site, caller Caller, dryRun bool) *fileValues {
	return &fileValues{s: s, ctx: ctx, tx: tx, site: site, caller: caller, dryRun: dryRun}
}

// cleanup deletes the blobs this write created, when it did not commit.
func (fv *fileValues) cleanup(committed bool) {
	if fv == nil || committed {
		return
	}
	for _, k := range fv.created {
		_ = fv.s.Files.Delete(context.WithoutCancel(fv.ctx), k)
	}
}

// fileURL is the public URL a stored file is served at.
func (s *Service) fileURL(site *store.Site, key string) string {
	base := ""
	if s.SiteURL != nil {
		base = s.SiteURL(site)
	}
	return base + "/files/" + key
}

func nextVersion(cur *File) int {
	if cur == nil {
		return 1
	}
	return cur.Version + 1
}

// SetFile implements FileValues.
func (fv *fileValues) SetFile(v FileValue) (*File, error) {
	if fv.s.Files == nil {
		return nil, errUploadsUnsupported("File")
	}
	switch v.Kind {
	case FileFromURL:
		// A URL is kept as the file's source; Tessera does not fetch it.
		return &File{Filename: v.Filename, URL: v.URL, Version: nextVersion(v.Current)}, nil
	case FileUpload:
		meta, err := fv.s.Files.Put(fv.ctx, fv.site.ID, v.Filename, v.ContentType, bytes.NewReader(files.Unspill(fv.ctx, v.Data)), MaxFileSize, files.PutOptions{Private: fv.private})
		if err != nil {
			return nil, err
		}
		fv.created = append(fv.created, meta.Key)
		return fv.fromMeta(meta.Key, meta.Filename, meta.ContentType, meta.Checksum, meta.Size, meta.Width, meta.Height, v.Current), nil
	case FileCopy:
		src, err := fv.source(v.Ref)
		if err != nil {
			return nil, err
		}
		if fv.dryRun {
			return fv.fromMeta(src.Key, src.Filename, src.ContentType, src.Checksum, src.Size, src.Width, src.Height, v.Current), nil
		}
		key, err := fv.s.Files.Copy(fv.ctx, src.Key, fv.site.ID, files.PutOptions{Private: fv.private})
		if err != nil {
			return nil, cms.Errorf("copy_failed", "The file could not be copied: %v", err)
		}
		fv.created = append(fv.created, key)
		return fv.fromMeta(key, src.Filename, src.ContentType, src.Checksum, src.Size, src.Width, src.Height, v.Current), nil
	}
	return nil, err422(EInvalidFileFormat, "Unknown file value")
}

func (fv *fileValues) fromMeta(key, name, ctype, sum string, size int64, w, h int, cur *File) *File {
	return &File{Key: key, Filename: name, URL: fv.s.fileURL(fv.site, key), ContentType: ctype, Checksum: sum,
		Size: size, Width: w, Height: h, Version: nextVersion(cur), Private: files.IsPrivateKey(key)}
}

// source resolves a FileRef to the stored file it names, checking that
// the caller may copy it.
func (fv *fileValues) source(ref FileRef) (*File, error) {
	if !fv.caller.Admin {
		return nil, cms.Errorf(cms.EDenied, "FileRef copies need an admin user or a site token")
	}
	src := fv.site
	if ref.SiteShortID != fv.site.ShortID {
		if fv.caller.SiteToken {
			return nil, cms.Errorf(cms.EDenied, "A site token cannot copy files from another site")
		}
		other, err := fv.tx.Sites().GetByShortID(ref.SiteShortID)
		if cms.IsCode(err, cms.ENotFound) {
			return nil, cms.Errorf(cms.ESourceNotFound, "No site %q", ref.SiteShortID)
		} else if err != nil {
			return nil, err
		}
		m, err := fv.tx.Users().Membership(other.ID, fv.caller.UserID)
		if err != nil || m.Role != store.RoleAdmin {
			return nil, cms.Errorf(cms.EDenied, "Copying from site %q needs an admin of that site", ref.SiteShortID)
		}
		src = other
	}
	var f *File
	switch ref.Resource {
	case "pages":
		var err error
		if f, err = fv.pageSource(src, ref); err != nil {
			return nil, err
		}
	case "uploads", "tmp":
		return fv.uploadSource(src, ref)
	case "entries":
		if fv.s.EntryFile == nil {
			return nil, cms.Errorf(cms.ESourceNotFound, "No entry %s on site %q", ref.RecordID, ref.SiteShortID)
		}
		var err error
		if f, err = fv.s.EntryFile(fv.tx, src, ref); err != nil {
			return nil, err
		}
	case "products":
		return nil, cms.Errorf(cms.ESourceNotFound, "This server has no products")
	default:
		return nil, cms.Errorf(cms.ESourceNotFound, "FileRef copies from %s are not available", ref.Resource)
	}
	if !files.SiteKey(f.Key, src.ID) {
		return nil, cms.Errorf(cms.ESourceNotFound, "%s %s has no stored file in %q", ref.Resource, ref.RecordID, ref.Field)
	}
	ok, err := fv.s.Files.Exists(fv.ctx, f.Key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, cms.Errorf(cms.ESourceNotFound, "The stored file of %s %s %q is gone", ref.Resource, ref.RecordID, ref.Field)
	}
	return f, nil
}

// pageSource finds the stored file a FileRef names on a page of src.
func (fv *fileValues) pageSource(src *store.Site, ref FileRef) (*File, error) {
	rec, err := fv.tx.Pages().Get(src.ID, ref.RecordID)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, cms.Errorf(cms.ESourceNotFound, "No page %s on site %q", ref.RecordID, ref.SiteShortID)
	} else if err != nil {
		return nil, err
	}
	p, err := decodePage(rec)
	if err != nil {
		return nil, err
	}
	var f *File
	if ref.Field == "og_image" {
		f = p.OGImage
	} else if it := p.Item(ref.Field); it != nil {
		f = it.File(src.DefaultLocale, src.DefaultLocale)
	}
	if f == nil || f.Key == "" {
		return nil, cms.Errorf(cms.ESourceNotFound, "Page %s has no stored file in %q", ref.RecordID, ref.Field)
	}
	return f, nil
}
