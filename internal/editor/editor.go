// Package editor holds the browser editor served at /admin/: one HTML
// page, a stylesheet and plain ES modules, embedded in the binary so that
// building Tessera needs only Go. The editor is a client of the public API
// (docs/api.md, "Editor sessions and first run"); httpapi serves these
// files and decides every header and status.
package editor

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// Index is the file served for /admin/ and for every path under it that
// names no file: the editor's routes live in the URL's fragment.
const Index = "index.html"

// Files returns the editor's files, rooted where Index is.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the directory is embedded: it is always there
	}
	return sub
}
