package files

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
