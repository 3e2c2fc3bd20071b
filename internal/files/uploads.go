package files

import (
	"context"
	"encoding/json"
	"net/url"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

// TmpUploadTTL is how long a tmp upload can be copied from.
const TmpUploadTTL = 24 * time.Hour

// Upload is the API view of an upload. Source is its file object, as a
// page read shows a file (clients of the original service read the file's
// name, URL, type and size from it); UploadSource is the FileRef URI that
// copies it into a record.
type Upload struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	URL       string          `json:"url"`
	Size      int64           `json:"size"`
	MimeType  string          `json:"mime_type"`
	Source    json.RawMessage `json:"source"`
	Checksum  string          `json:"checksum"`
	Width     int             `json:"width,omitempty"`
	Height    int             `json:"height,omitempty"`
	Tmp       bool            `json:"tmp"`
	ExpiresAt *time.Time      `json:"expires_at,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
}

// UploadSource is the FileRef URI of an upload of site.
func UploadSource(site *store.Site, id string) string {
	return "service://" + url.PathEscape(site.ShortID) + "/uploads/" + url.PathEscape(id)
}

// uploadView is the API view of u; typed (the request carried a client
// version) puts __type File in its file object, as in page reads.
func (s *Service) uploadView(site *store.Site, u *store.Upload, typed bool) *Upload {
	url := s.URL(site, u.Key)
	f := &File{Filename: u.Filename, URL: url, ContentType: u.ContentType, Version: 1, Checksum: u.Checksum,
		Size: u.Size, Width: u.Width, Height: u.Height}
	var w jsonw.Writer
	WriteJSON(&w, f, url, ShapePage, typed)
	v := &Upload{
		ID: u.ID, Name: u.Filename, URL: url, Size: u.Size, MimeType: u.ContentType,
		Source: w.B, Checksum: u.Checksum, Width: u.Width, Height: u.Height,
		Tmp: u.Tmp, CreatedAt: u.CreatedAt,
	}
	if u.Tmp && !u.ExpiresAt.IsZero() {
		t := u.ExpiresAt
		v.ExpiresAt = &t
	}
	return v
}

// CreateUpload stores an upload from body {"source": <file upload form or
// FileRef>, "tmp": bool}. The source follows the batch file rules (the same
// validation, and the same FileRef permissions); a URL is not accepted, as
// Tessera does not fetch files. A tmp upload expires after TmpUploadTTL.
func (s *Service) CreateUpload(ctx context.Context, site *store.Site, caller Caller, body []byte, typed bool) (*Upload, error) {
	if jsonw.Kind(body) != '{' {
		return nil, err422(cms.EInvalid, "The body must be a JSON object {\"source\": ..., \"tmp\": false}")
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err422(cms.EInvalid, "Invalid JSON body: %v", err)
	}
	tmp := false
	if raw, ok := req["tmp"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &tmp); err != nil {
			return nil, cms.Errorf(cms.EValidationFailed, "tmp must be true or false")
		}
	}
	raw, ok := req["source"]
	if !ok || jsonw.Kind(raw) != '{' {
		return nil, err422(EInvalidFileFormat, "source must be a File upload {__type: File, filename, attachment} or a FileRef {__type: FileRef, source}")
	}
	var src map[string]any
	if err := json.Unmarshal(raw, &src); err != nil {
		return nil, err422(cms.EInvalid, "Invalid source: %v", err)
	}
	v, action, err := ParseBatchValue(src, nil, "source")
	if err != nil {
		return nil, err
	}
	if action != Set || (v.Kind != KindUpload && v.Kind != KindCopy) {
		return nil, err422(EInvalidFileFormat, "source must be a File upload {__type: File, filename, attachment} or a FileRef {__type: FileRef, source}")
	}
	if s.Blobs == nil {
		return nil, ErrUnsupported("source")
	}
	var rec *store.Upload
	var w *Writer
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		w = s.Writer(ctx, tx, site, caller, false)
		f, err := w.Store(v, false)
		if err != nil {
			return err
		}
		now := tx.Now()
		rec = &store.Upload{
			ID: cms.NewID(now), SiteID: site.ID, Key: f.Key, Filename: f.Filename, ContentType: f.ContentType,
			Size: f.Size, Checksum: f.Checksum, Width: f.Width, Height: f.Height, Tmp: tmp, CreatedAt: now,
		}
		if tmp {
			rec.ExpiresAt = now.Add(TmpUploadTTL)
		}
		if err := tx.Uploads().Create(rec); err != nil {
			return err
		}
		// A temporary upload is scratch space for a later write, not a
		// file of the site's library: it has no events.
		if tmp {
			return nil
		}
		return sitevents.AppendUpload(tx, site.ID, sitevents.UploadCreated, rec.ID, rec.Filename)
	})
	w.Finish(err == nil)
	if err != nil {
		return nil, err
	}
	return s.uploadView(site, rec, typed), nil
}

// GetUpload returns one upload of the site. ENotFound.
func (s *Service) GetUpload(ctx context.Context, site *store.Site, id string, typed bool) (*Upload, error) {
	var u *store.Upload
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		u, err = tx.Uploads().Get(site.ID, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.uploadView(site, u, typed), nil
}

// ListUploads returns a window of the site's uploads, newest first, and their total.
func (s *Service) ListUploads(ctx context.Context, site *store.Site, opt store.ListOptions, typed bool) ([]*Upload, int, error) {
	var recs []*store.Upload
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		recs, total, err = tx.Uploads().List(site.ID, opt)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]*Upload, len(recs))
	for i, u := range recs {
		out[i] = s.uploadView(site, u, typed)
	}
	return out, total, nil
}

// CountUploads returns the number of the site's uploads.
func (s *Service) CountUploads(ctx context.Context, site *store.Site) (n int, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		_, n, err = tx.Uploads().List(site.ID, store.ListOptions{Limit: 1})
		return err
	})
	return n, err
}

// DeleteUpload removes an upload and its blob. Files copied from it are
// independent copies and stay. ENotFound.
func (s *Service) DeleteUpload(ctx context.Context, site *store.Site, id string) error {
	var key string
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		u, err := tx.Uploads().Get(site.ID, id)
		if err != nil {
			return err
		}
		key = u.Key
		if err := tx.Uploads().Delete(site.ID, id); err != nil {
			return err
		}
		if u.Tmp {
			return nil
		}
		return sitevents.AppendUpload(tx, site.ID, sitevents.UploadDeleted, u.ID, u.Filename)
	})
	if err != nil {
		return err
	}
	if s.Blobs != nil && key != "" {
		_ = s.Blobs.Delete(context.WithoutCancel(ctx), key)
	}
	return nil
}

// uploadSource resolves a FileRef to an upload (resource uploads or tmp)
// of src: an expired tmp upload is gone.
func (w *Writer) uploadSource(src *store.Site, ref Ref) (*File, error) {
	u, err := w.tx.Uploads().Get(src.ID, ref.RecordID)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, cms.Errorf(cms.ESourceNotFound, "No upload %s on site %q", ref.RecordID, ref.SiteShortID)
	} else if err != nil {
		return nil, err
	}
	if u.Tmp && !w.tx.Now().Before(u.ExpiresAt) {
		return nil, cms.Errorf(EGone, "The temporary upload %s has expired", ref.RecordID)
	}
	ok, err := w.s.Blobs.Exists(w.ctx, u.Key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, cms.Errorf(EGone, "The stored file of upload %s is gone", ref.RecordID)
	}
	return &File{Key: u.Key, Filename: u.Filename, ContentType: u.ContentType, Checksum: u.Checksum,
		Size: u.Size, Width: u.Width, Height: u.Height}, nil
}

// SweepExpiredUploads deletes temporary uploads that have expired, with
// their bytes, in batches, and returns how many it removed. Several
// processes may sweep at once: a record another sweeper removed first is
// skipped.
func (s *Service) SweepExpiredUploads(ctx context.Context) (int, error) {
	const batch = 100
	removed := 0
	for {
		var expired []*store.Upload
		err := s.Store.View(ctx, func(tx store.Tx) (err error) {
			expired, err = tx.Uploads().Expired(tx.Now(), batch)
			return err
		})
		if err != nil {
			return removed, err
		}
		for _, u := range expired {
			err := s.Store.Update(ctx, func(tx store.Tx) error { return tx.Uploads().Delete(u.SiteID, u.ID) })
			if cms.IsCode(err, cms.ENotFound) {
				continue
			} else if err != nil {
				return removed, err
			}
			if s.Blobs != nil {
				_ = s.Blobs.Delete(ctx, u.Key)
			}
			removed++
		}
		if len(expired) < batch {
			return removed, nil
		}
	}
}
