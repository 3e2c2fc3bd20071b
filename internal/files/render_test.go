package files_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/jsonw"
)

func TestWriteJSON(t *testing.T) {
	img := &files.File{Filename: "a.png", URL: "/files/k", ContentType: "image/png", Version: 2, Checksum: "c", Size: 9, Width: 3, Height: 4}
	doc := &files.File{Filename: "a.pdf", URL: "/files/d", ContentType: "application/pdf", Version: 1, Checksum: "d", Size: 7,
		Private: true, PermanentURL: "https://x/p", PermanentRelativeURL: "/p"}
	for _, tt := range []struct {
		name  string
		f     *files.File
		url   string
		shape files.Shape
		typed bool
		want  string
	}{
		{"Nil", nil, "", files.ShapePage, true, `null`},
		{"PageImage", img, img.URL, files.ShapePage, false,
			`{"filename":"a.png","url":"/files/k","content_type":"image/png","version":2,"checksum":"c","size":9,"width":3,"height":4}`},
		{"PagePrivateTyped", doc, doc.URL, files.ShapePage, true,
			`{"__type":"File","filename":"a.pdf","url":"/files/d","content_type":"application/pdf","version":1,"checksum":"d","size":7,"private":true,"permanent_url":"https://x/p","permanent_relative_url":"/p"}`},
		{"PageCompact", img, img.URL, files.ShapePageCompact, false, `{"url":"/files/k","filename":"a.png","width":3,"height":4}`},
		{"PageCompactDoc", doc, doc.URL, files.ShapePageCompact, false, `{"url":"/files/d","filename":"a.pdf"}`},
		{"Entry", doc, "/signed", files.ShapeEntry, false, `{"filename":"a.pdf","url":"/signed","content_type":"application/pdf"}`},
		{"EntryFullImage", img, img.URL, files.ShapeEntryFull, true,
			`{"__type":"File","filename":"a.png","url":"/files/k","content_type":"image/png","size":9,"width":3,"height":4,"version":2,"checksum":"c"}`},
		{"EntryFullPrivate", doc, "/signed", files.ShapeEntryFull, false,
			`{"filename":"a.pdf","url":"/signed","content_type":"application/pdf","size":7,"width":null,"height":null,"version":1,"checksum":"d","private":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w jsonw.Writer
			files.WriteJSON(&w, tt.f, tt.url, tt.shape, tt.typed)
			if got := string(w.B); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
