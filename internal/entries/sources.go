package entries

// What entries offer other services: the files FileRefs copy from, and
// the targets of references from page items.

import (
	"encoding/json"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// FileSource finds the stored file a FileRef names on an entry of site:
// service://<site>/entries/<entry id>/<file field>, or
// …/<gallery field>/<image id>. It makes entries a files.Source.
func (s *Service) FileSource(tx store.Tx, site *store.Site, ref files.Ref) (*files.File, error) {
	missing := func(format string, args ...any) (*files.File, error) {
		return nil, cms.Errorf(cms.ESourceNotFound, format, args...)
	}
	rec, err := tx.Entries().Get(site.ID, ref.RecordID)
	if cms.IsCode(err, cms.ENotFound) {
		return missing("No entry %s on site %q", ref.RecordID, site.ShortID)
	} else if err != nil {
		return nil, err
	}
	ch, err := newChannelCache(tx, site, nil).get(rec.ChannelID)
	if err != nil {
		return nil, err
	}
	e, err := decodeEntry(rec)
	if err != nil {
		return nil, err
	}
	f := ch.Field(ref.Field)
	var file *files.File
	switch {
	case f == nil:
	case f.Type == TypeFile && ref.EmbeddedID == "":
		_ = json.Unmarshal(e.Values[f.ID], &file)
	case f.Type == TypeGallery && ref.EmbeddedID != "":
		var images []*GalleryImage
		_ = json.Unmarshal(e.Values[f.ID], &images)
		for _, img := range images {
			if img.ID == ref.EmbeddedID {
				file = img.File
			}
		}
	}
	if file == nil || !files.SiteKey(file.Key, site.ID) {
		return missing("Entry %s has no stored file in %q", ref.RecordID, ref.Field)
	}
	return file, nil
}

// RefTargets resolves references from page items to entries of the
// channel with the given slug: each existing target's slug and title (its
// channel's title field in locale, falling back to the default locale),
// and the updated_at of every id looked at (zero when missing). It makes
// entries the pages.EntryTargets of a page service.
func (s *Service) RefTargets(tx store.Tx, site *store.Site, channel string, ids []string, locale string) (map[string]cms.RefTarget, map[string]time.Time, error) {
	out, stamps := map[string]cms.RefTarget{}, map[string]time.Time{}
	ch, err := findChannel(tx, site, channel, &s.channels)
	if cms.IsCode(err, cms.ENotFound) {
		return out, stamps, nil
	} else if err != nil {
		return nil, nil, err
	}
	if ch.Slug == channel {
		stamps["channel:"+channel] = ch.UpdatedAt
	}
	title := ch.Field(ch.TitleField)
	recs, err := tx.Entries().GetMany(site.ID, ids)
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range recs {
		stamps[rec.ID] = rec.UpdatedAt
		if rec.ChannelID != ch.ID {
			continue
		}
		t := cms.RefTarget{Slug: rec.Slug}
		if title != nil {
			e, err := decodeEntry(rec)
			if err != nil {
				return nil, nil, err
			}
			_ = json.Unmarshal(e.valueOrDefault(title, locale, site.DefaultLocale), &t.Title)
		}
		out[rec.ID] = t
	}
	return out, stamps, nil
}
