package files

import (
	"net/url"
	"strings"
)

// File is the metadata of a stored file as a record (a page item, an
// entry field, an upload) keeps it. Key is the blob key, never shown.
type File struct {
	Filename             string `json:"filename"`
	URL                  string `json:"url"`
	ContentType          string `json:"content_type"`
	Version              int    `json:"version"`
	Checksum             string `json:"checksum"`
	Size                 int64  `json:"size"`
	Width                int    `json:"width,omitempty"`
	Height               int    `json:"height,omitempty"`
	Private              bool   `json:"private,omitempty"`
	PermanentURL         string `json:"permanent_url,omitempty"`
	PermanentRelativeURL string `json:"permanent_relative_url,omitempty"`
	Key                  string `json:"key,omitempty"`
}

// IsImage reports whether the file is an image (and so shows width and height).
func (f *File) IsImage() bool {
	return len(f.ContentType) >= 6 && f.ContentType[:6] == "image/"
}

// Clone returns a copy of f, or nil.
func (f *File) Clone() *File {
	if f == nil {
		return nil
	}
	c := *f
	return &c
}

// URLAt returns the URL f is read at when its site's public base URL is
// base (no trailing slash). A stored file's URL is made from its key when it
// is read, so a change of the site's domain or of the server's public URL
// reaches every file written before it; a remote file (a batch {url}, no
// key) keeps the URL it was given, as does a record whose key is not one
// this server's blob store makes.
func (f *File) URLAt(base string) string {
	if !ValidKey(f.Key) {
		return f.URL
	}
	return base + "/files/" + f.Key
}

// KeyOfURL returns the blob key that a URL of this server's file handler
// names (<scheme>://<any host>/files/<key>, or the site-relative
// /files/<key>), and whether s is such a URL. The host is not checked: a
// site answers on several hosts, and its URLs move with its domain.
func KeyOfURL(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return "", false
	}
	switch u.Scheme {
	case "http", "https":
	case "":
		if u.Host != "" {
			return "", false
		}
	default:
		return "", false
	}
	key, ok := strings.CutPrefix(u.Path, "/files/")
	if !ok || !ValidKey(key) {
		return "", false
	}
	return key, true
}

// SameFile reports whether s, a URL a client sends back, names cur: its URL
// as stored, or any URL of its key (as read after a host change).
func SameFile(s string, cur *File) bool {
	if cur == nil || s == "" {
		return false
	}
	if s == cur.URL {
		return true
	}
	key, ok := KeyOfURL(s)
	return ok && cur.Key != "" && key == cur.Key
}
