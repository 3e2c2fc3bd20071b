package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/tessera-cms/tessera/internal/editor"
)

// editorFile is one of the editor's files, read once at start.
type editorFile struct {
	body, gzipped []byte
	contentType   string
	etag          string
}

// editorFiles serves the editor (package editor) at /admin/. Every answer,
// errors included, carries the editor's Content-Security-Policy: scripts,
// styles and connections only from this origin, no inline code, no
// framing of the editor, frames only from this origin and the sites'
// public origins (the live preview).
type editorFiles struct {
	files map[string]*editorFile
}

func newEditorFiles() (*editorFiles, error) {
	ef := &editorFiles{files: map[string]*editorFile{}}
	root := editor.Files()
	err := fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(body)
		zw.Close()
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(name))
		switch path.Ext(name) {
		case ".js":
			ct = "text/javascript; charset=utf-8"
		case ".css":
			ct = "text/css; charset=utf-8"
		case ".html":
			ct = "text/html; charset=utf-8"
		case ".svg":
			ct = "image/svg+xml"
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		ef.files[name] = &editorFile{body: body, gzipped: gz.Bytes(), contentType: ct,
			etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	return ef, err
}

// handleEditor serves "GET /admin/…": a file of the editor by its path,
// and index.html for /admin/ and for any other path (the editor's routes
// are in the fragment, so a reload of any editor URL lands on the editor).
func (s *Server) handleEditor(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", s.editorCSP(r.Context()))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/admin" {
		http.Redirect(w, r, "/admin/", http.StatusMovedPermanently)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/admin/")
	f, ok := s.editor.files[name]
	if !ok {
		f = s.editor.files[editor.Index]
	}
	// The files change with the binary only: a browser revalidates each
	// load and gets 304 while the binary is the same.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	h.Set("Content-Type", f.contentType)
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = f.gzipped
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// acceptsGzip reports whether the request's Accept-Encoding names gzip.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// editorCSP is the editor's Content-Security-Policy. frame-src names the
// public origins of the sites, where preview links point.
func (s *Server) editorCSP(ctx context.Context) string {
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https: http:; " +
		"frame-src 'self'" + s.editorFrameOrigins(ctx) + "; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
		"form-action 'self'; frame-ancestors 'none'"
}

// editorFrameOrigins returns " origin origin…" for the sites' public
// origins (sites.Service.PublicOrigins); on a store error, what the sites
// service last answered.
func (s *Server) editorFrameOrigins(ctx context.Context) string {
	list, err := s.Sites.PublicOrigins(ctx, s.URLs)
	if err != nil {
		s.Logger.Warn("editor: list sites for frame-src", "err", err)
	}
	if len(list) == 0 {
		return ""
	}
	return " " + strings.Join(list, " ")
}
