package view

// The version list and a version's detail.

import (
	"time"

	"github.com/tessera-cms/tessera/internal/jsonw"
)

// VersionInfo is what a version list item shows.
type VersionInfo struct {
	ID           string
	PageID       string
	SourceAction string // history.VersionLiveSave, VersionDraftPublish or VersionRestorePublish
	CreatedAt    time.Time
}

// RenderVersionListItem appends a version list item {id, page_id,
// source_action, created_at} to dst.
func RenderVersionListItem(dst []byte, info VersionInfo) []byte {
	w := jsonw.Writer{B: dst}
	w.OpenObject()
	writeVersionInfo(&w, info)
	w.CloseObject()
	return w.B
}

// RenderVersionList appends the array GET /pages/{id}/versions returns to
// dst: one list item per version, in the order given (the service lists
// newest first).
func RenderVersionList(dst []byte, list []VersionInfo) []byte {
	w := jsonw.Writer{B: dst}
	w.OpenArray()
	for _, info := range list {
		w.Elem()
		w.OpenObject()
		writeVersionInfo(&w, info)
		w.CloseObject()
	}
	w.CloseArray()
	return w.B
}

// RenderVersion appends the version detail (GET
// /pages/{id}/versions/{version_id}) to dst: the list item plus snapshot,
// the stored RenderSnapshot bytes embedded as they are (null when empty).
func RenderVersion(dst []byte, info VersionInfo, snapshot []byte) []byte {
	w := jsonw.Writer{B: dst}
	w.OpenObject()
	writeVersionInfo(&w, info)
	w.K("snapshot")
	if len(snapshot) == 0 {
		w.Null()
	} else {
		w.B = append(w.B, snapshot...)
	}
	w.CloseObject()
	return w.B
}

func writeVersionInfo(w *jsonw.Writer, info VersionInfo) {
	w.K("id")
	w.Str(info.ID)
	w.K("page_id")
	w.Str(info.PageID)
	w.K("source_action")
	w.Str(info.SourceAction)
	w.K("created_at")
	w.Time(info.CreatedAt)
}
