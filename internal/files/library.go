package files

// The media library's questions about uploads: finding them by name and
// kind, replacing one's bytes in place, and where the site uses its file.

import (
	"context"
	"encoding/json"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/store"
)

// maxUses is how many records an answer of UploadUsage names at most.
const maxUses = 50

// FindUploads returns a window of the site's uploads that f admits
// (a part of the name, any case; a kind, "image" or "other"), newest
// first, and their total. Another kind is EInvalid.
func (s *Service) FindUploads(ctx context.Context, site *store.Site, f store.UploadFilter, opt store.ListOptions, typed bool) ([]*Upload, int, error) {
	switch f.Kind {
	case "", "image", "other":
	default:
		return nil, 0, err422(cms.EInvalid, "type must be image or other, not %q", f.Kind)
	}
	if len(f.Name) > 255 {
		return nil, 0, err422(cms.EInvalid, "q is longer than 255 bytes")
	}
	var recs []*store.Upload
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		recs, total, err = tx.Uploads().Find(site.ID, f, opt)
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

// ReplaceUpload stores new bytes for upload id from body {"source": <File
// upload form or FileRef>}, as CreateUpload takes them: the upload keeps
// its id (and its FileRef URI) and gets the new file's key, name, type,
// size, checksum and dimensions. The old bytes are deleted once the change
// committed; files copied from the upload are copies and stay. ENotFound.
func (s *Service) ReplaceUpload(ctx context.Context, site *store.Site, caller Caller, id string, body []byte, typed bool) (*Upload, error) {
	v, err := uploadBody(body)
	if err != nil {
		return nil, err
	}
	if s.Blobs == nil {
		return nil, ErrUnsupported("source")
	}
	var rec *store.Upload
	var old string
	var w *Writer
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		u, err := tx.Uploads().Get(site.ID, id)
		if err != nil {
			return err
		}
		w = s.Writer(ctx, tx, site, caller, false)
		f, err := w.Store(v, false)
		if err != nil {
			return err
		}
		old = u.Key
		u.Key, u.Filename, u.ContentType, u.Size, u.Checksum, u.Width, u.Height =
			f.Key, f.Filename, f.ContentType, f.Size, f.Checksum, f.Width, f.Height
		rec = u
		return tx.Uploads().Replace(u)
	})
	if w != nil {
		w.Finish(err == nil)
	}
	if err != nil {
		return nil, err
	}
	if old != "" && old != rec.Key {
		_ = s.Blobs.Delete(context.WithoutCancel(ctx), old)
	}
	return s.uploadView(site, rec, typed), nil
}

// uploadBody reads the file value of {"source": …} (the body of a create
// without tmp, or of a replacement).
func uploadBody(body []byte) (Value, error) {
	if jsonw.Kind(body) != '{' {
		return Value{}, err422(cms.EInvalid, "The body must be a JSON object {\"source\": ...}")
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return Value{}, err422(cms.EInvalid, "Invalid JSON body: %v", err)
	}
	for k := range req {
		if k != "source" {
			return Value{}, err422(cms.EInvalid, "Unknown key %q: a replacement takes only source", k)
		}
	}
	raw, ok := req["source"]
	if !ok || jsonw.Kind(raw) != '{' {
		return Value{}, err422(EInvalidFileFormat, "source must be a File upload {__type: File, filename, attachment} or a FileRef {__type: FileRef, source}")
	}
	var src map[string]any
	if err := json.Unmarshal(raw, &src); err != nil {
		return Value{}, err422(cms.EInvalid, "Invalid source: %v", err)
	}
	v, action, err := ParseBatchValue(src, nil, "source")
	if err != nil {
		return Value{}, err
	}
	if action != Set || (v.Kind != KindUpload && v.Kind != KindCopy) {
		return Value{}, err422(EInvalidFileFormat, "source must be a File upload {__type: File, filename, attachment} or a FileRef {__type: FileRef, source}")
	}
	return v, nil
}

// Use is a record that holds an upload's file: a page or an entry (with
// its channel's slug and its own slug as its title).
type Use struct {
	Resource string `json:"resource"`
	ID       string `json:"id"`
	Channel  string `json:"channel,omitempty"`
	Title    string `json:"title,omitempty"`
}

// Usage says where an upload's file is used.
type Usage struct {
	Used    bool  `json:"used"`
	Records []Use `json:"records"`
	// More reports whether more records than those listed hold it.
	More bool `json:"more"`
}

// UploadUsage returns the pages and entries of the site whose live
// documents hold the upload's file: a copy of it (the same checksum: a
// FileRef copy keeps the bytes) or its own stored file (its key, as a page
// item set to the upload's URL keeps). ENotFound.
func (s *Service) UploadUsage(ctx context.Context, site *store.Site, id string) (*Usage, error) {
	out := &Usage{Records: []Use{}}
	err := s.Store.View(ctx, func(tx store.Tx) error {
		u, err := tx.Uploads().Get(site.ID, id)
		if err != nil {
			return err
		}
		texts := []string{u.Key}
		if len(u.Checksum) >= 8 {
			texts = append(texts, u.Checksum)
		}
		pages, err := tx.Pages().Holding(site.ID, texts, maxUses+1)
		if err != nil {
			return err
		}
		for _, p := range pages {
			out.Records = append(out.Records, Use{Resource: "pages", ID: p.ID})
		}
		ents, err := tx.Entries().Holding(site.ID, texts, maxUses+1)
		if err != nil {
			return err
		}
		slugs := map[string]string{}
		for _, e := range ents {
			use := Use{Resource: "entries", ID: e.ID}
			if _, ok := slugs[e.ChannelID]; !ok {
				if c, err := tx.Channels().Get(site.ID, e.ChannelID); err == nil {
					slugs[e.ChannelID] = c.Slug
				}
			}
			use.Channel = slugs[e.ChannelID]
			if rec, err := tx.Entries().Get(site.ID, e.ID); err == nil {
				use.Title = rec.Slug
			}
			out.Records = append(out.Records, use)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out.Records) > maxUses {
		out.Records, out.More = out.Records[:maxUses], true
	}
	out.Used = len(out.Records) > 0
	return out, nil
}
