package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
)

// handleChannelList handles "GET /api/channels".
func (s *Server) handleChannelList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	docs, total, err := s.Entries.ListChannels(r.Context(), principal(r).Site, listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeRawList(w, r, docs, total, page, perPage)
	return nil
}

// handleChannelCount handles "GET /api/channels/count".
func (s *Server) handleChannelCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Entries.CountChannels(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleChannelCreate handles "POST /api/channels".
func (s *Server) handleChannelCreate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, err := s.Entries.CreateChannel(r.Context(), principal(r).Site, body)
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusCreated, out)
	return nil
}

// handleChannelGet handles "GET /api/channels/{channel}".
func (s *Server) handleChannelGet(w http.ResponseWriter, r *http.Request) error {
	out, err := s.Entries.Channel(r.Context(), principal(r).Site, r.PathValue("channel"))
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, out)
	return nil
}

// handleChannelCustomizations handles "GET /api/channels/{channel}/customizations".
func (s *Server) handleChannelCustomizations(w http.ResponseWriter, r *http.Request) error {
	out, err := s.Entries.Customizations(r.Context(), principal(r).Site, r.PathValue("channel"))
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, out)
	return nil
}

// handleChannelUpdate handles "PATCH /api/channels/{channel}" (and PUT):
// customizations merge into the channel's fields, or with ?replace=1
// replace them.
func (s *Server) handleChannelUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, err := s.Entries.UpdateChannel(r.Context(), principal(r).Site, r.PathValue("channel"), body, flag(r, "replace"))
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, out)
	return nil
}

// handleChannelDelete handles "DELETE /api/channels/{channel}".
func (s *Server) handleChannelDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Entries.DeleteChannel(r.Context(), principal(r).Site, r.PathValue("channel")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleChannelEmpty handles "POST /api/channels/{channel}/empty": every
// entry of the channel is deleted, the channel stays. The body's confirm
// must be the channel's slug.
func (s *Server) handleChannelEmpty(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var req struct {
		Confirm string `json:"confirm"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			return cms.Errorf(cms.EInvalidJSON, "The body must be {\"confirm\": \"<channel slug>\"}.")
		}
	}
	n, err := s.Entries.EmptyChannel(r.Context(), principal(r).Site, r.PathValue("channel"), req.Confirm)
	if err != nil {
		return err
	}
	noun := "entries"
	if n == 1 {
		noun = "entry"
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "deleted": n,
		"message": fmt.Sprintf("Deleted %d %s.", n, noun)})
	return nil
}

// entryReadOptions reads the query options and headers of an entry read.
func entryReadOptions(r *http.Request) entries.ReadOptions {
	opt := entries.ReadOptions{
		ClientVersion: clientVersion(r),
		IncludeSlugs:  flag(r, "include_slugs"),
	}
	for _, v := range query(r)["resolve"] {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				opt.Resolve = append(opt.Resolve, name)
			}
		}
	}
	return opt
}

// entryQuery reads the filters of an entry list: where= (repeatable, every
// condition must hold), search, content_locale and sort.
func entryQuery(r *http.Request) (entries.Query, error) {
	q := query(r)
	eq := entries.Query{Search: q.Get("search"), Locale: q.Get("content_locale")}
	for _, v := range q["where"] {
		conds, err := entries.ParseWhere(v)
		if err != nil {
			return eq, cms.Errorf(cms.EBadRequest, "Invalid where: %v", err)
		}
		eq.Where = append(eq.Where, conds...)
	}
	if v := q.Get("sort"); v != "" {
		keys, err := entries.ParseSort(v)
		if err != nil {
			return eq, cms.Errorf(cms.EBadRequest, "Invalid sort: %v", err)
		}
		eq.Sort = keys
	}
	return eq, nil
}

// handleEntryList handles "GET /api/channels/{channel}/entries".
func (s *Server) handleEntryList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	q, err := entryQuery(r)
	if err != nil {
		return err
	}
	body, total, err := s.Entries.ListJSON(r.Context(), principal(r).Site, r.PathValue("channel"), q,
		entryReadOptions(r), listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeArray(w, r, body, total, page, perPage)
	return nil
}

// handleEntryCount handles "GET /api/channels/{channel}/entries/count".
func (s *Server) handleEntryCount(w http.ResponseWriter, r *http.Request) error {
	q, err := entryQuery(r)
	if err != nil {
		return err
	}
	n, err := s.Entries.Count(r.Context(), principal(r).Site, r.PathValue("channel"), q)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// entryWriteOptions reads the query options of an entry write.
func entryWriteOptions(r *http.Request) entries.WriteOptions {
	return entries.WriteOptions{Locale: query(r).Get("content_locale"), Caller: caller(r),
		ClientVersion: clientVersion(r), IfMatch: r.Header.Get("If-Match")}
}

// handleEntryCreate handles "POST /api/channels/{channel}/entries".
func (s *Server) handleEntryCreate(w http.ResponseWriter, r *http.Request) error {
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	out, err := s.Entries.CreateEntry(r.Context(), principal(r).Site, r.PathValue("channel"), body, entryWriteOptions(r))
	if err != nil {
		return err
	}
	setETag(w, entryETag(out))
	writeRawJSON(w, http.StatusCreated, out)
	return nil
}

// handleEntryGet handles "GET /api/channels/{channel}/entries/{entry}":
// with content_locale, localized fields show that locale's values at the
// top level (a list keeps the default locale's, as the spec says).
func (s *Server) handleEntryGet(w http.ResponseWriter, r *http.Request) error {
	opt := entryReadOptions(r)
	opt.Locale = query(r).Get("content_locale")
	out, err := s.Entries.Entry(r.Context(), principal(r).Site, r.PathValue("channel"), r.PathValue("entry"), opt)
	if err != nil {
		return err
	}
	setETag(w, entryETag(out))
	writeRawJSON(w, http.StatusOK, out)
	return nil
}

// handleEntryUpdate handles "PUT /api/channels/{channel}/entries/{entry}"
// (and PATCH): only the fields sent change.
func (s *Server) handleEntryUpdate(w http.ResponseWriter, r *http.Request) error {
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	out, err := s.Entries.UpdateEntry(r.Context(), principal(r).Site, r.PathValue("channel"), r.PathValue("entry"),
		body, entryWriteOptions(r))
	if err != nil {
		return err
	}
	setETag(w, entryETag(out))
	writeRawJSON(w, http.StatusOK, out)
	return nil
}

// handleEntryDelete handles "DELETE /api/channels/{channel}/entries/{entry}".
func (s *Server) handleEntryDelete(w http.ResponseWriter, r *http.Request) error {
	err := s.Entries.DeleteEntryIf(r.Context(), principal(r).Site, r.PathValue("channel"), r.PathValue("entry"),
		r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleEntryDeleteMany handles "POST /api/channels/{channel}/entries/delete"
// with {"ids": [...]}: the entries (ids or slugs) are deleted in one
// transaction, all of them or, when one is missing, none.
func (s *Server) handleEntryDeleteMany(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var req struct {
		IDs []string `json:"ids"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return cms.Errorf(cms.EInvalidJSON, "The body must be {\"ids\": [\"<entry id or slug>\", ...]}.")
	}
	ids, err := s.Entries.DeleteEntries(r.Context(), principal(r).Site, r.PathValue("channel"), req.IDs)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "deleted": ids})
	return nil
}

// entryETag is the ETag of an entry's read shape, from its id and
// updated_at (entries.ETag), which the shape begins with: only the keys
// before updated_at are decoded.
func entryETag(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	var id string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		switch k {
		case "id":
			if json.Unmarshal(v, &id) != nil {
				return ""
			}
		case "updated_at":
			var at string
			if json.Unmarshal(v, &at) != nil || id == "" {
				return ""
			}
			t, err := cms.ParseTime(at)
			if err != nil {
				return ""
			}
			return entries.ETag(id, t)
		}
	}
	return ""
}
