package httpapi

import (
	"bytes"
	"net/http"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/translations"
)

// setETag sends a record's entity tag, quoted, as pages send theirs.
func setETag(w http.ResponseWriter, tag string) {
	if tag != "" {
		w.Header()["Etag"] = []string{`"` + tag + `"`}
	}
}

// translationQuery reads the filters of a translation list: key, key.start
// (prefix), updated_at.gte, and locale or content_locale.
func translationQuery(r *http.Request) (translations.Query, error) {
	q := query(r)
	tq := translations.Query{Key: q.Get("key"), KeyPrefix: q.Get("key.start"), Locale: pageLocale(r)}
	if v := q.Get("updated_at.gte"); v != "" {
		t, err := logTime(v)
		if err != nil {
			return tq, cms.Errorf(cms.EBadRequest, "Invalid updated_at.gte %q: use an ISO 8601 time (2026-01-02T15:04:05Z) or seconds since the epoch.", v)
		}
		tq.UpdatedSince = t
	}
	return tq, nil
}

// handleTranslationList handles "GET /api/translations".
func (s *Server) handleTranslationList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	q, err := translationQuery(r)
	if err != nil {
		return err
	}
	list, total, err := s.Translations.List(r.Context(), principal(r).Site, q, listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeList(w, r, list, total, page, perPage)
	return nil
}

// handleTranslationCount handles "GET /api/translations/count".
func (s *Server) handleTranslationCount(w http.ResponseWriter, r *http.Request) error {
	q, err := translationQuery(r)
	if err != nil {
		return err
	}
	n, err := s.Translations.Count(r.Context(), principal(r).Site, q)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleTranslationPost handles "POST /api/translations": an object
// creates a translation or changes the one with its key (201 or 200); an
// array imports every translation in it at once (200).
func (s *Server) handleTranslationPost(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	site := principal(r).Site
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		out, err := s.Translations.Import(r.Context(), site, body)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	out, created, err := s.Translations.Put(r.Context(), site, body, pageLocale(r))
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, out)
	return nil
}

// handleTranslationGet handles "GET /api/translations/{key...}".
func (s *Server) handleTranslationGet(w http.ResponseWriter, r *http.Request) error {
	out, tag, err := s.Translations.Get(r.Context(), principal(r).Site, r.PathValue("key"), pageLocale(r))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleTranslationUpdate handles "PUT /api/translations/{key...}" (and
// PATCH): the values sent change, the others stay.
func (s *Server) handleTranslationUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Translations.Update(r.Context(), principal(r).Site, r.PathValue("key"), body, pageLocale(r), r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleTranslationDelete handles "DELETE /api/translations/{key...}".
func (s *Server) handleTranslationDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Translations.Delete(r.Context(), principal(r).Site, r.PathValue("key"), r.Header.Get("If-Match")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
