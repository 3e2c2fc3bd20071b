package pages

import (
	"context"

	"github.com/tessera-cms/tessera/internal/store"
)

// File actions, for callers outside the package.
const (
	FileKeep  = fileKeep  // leave the current file as it is
	FileClear = fileClear // remove the file
	FileStore = fileStore // store the FileValue
)

// ParseFileValue parses a file value written to the field name with the
// rules of page PUT (see parsePutFile) against the current file cur:
// channel entries take the same forms. Errors: 422 invalid_file_format,
// invalid_base64, file_too_large, invalid_content_type, validation_failed
// (bad FileRef URI).
func ParseFileValue(v any, cur *File, name string) (FileValue, FileAction, error) {
	return parsePutFile(cur, v, name)
}

// FileWriter stores the files of one write of another resource (a channel
// entry) with the same rules as page writes: FileRef permissions, dry runs
// that check without copying, and blobs removed again when the write does
// not commit.
type FileWriter struct{ fv *fileValues }

// NewFileWriter returns a FileWriter for one write in tx on site.
func (s *Service) NewFileWriter(ctx context.Context, tx store.Tx, site *store.Site, caller Caller, dryRun bool) *FileWriter {
	return &FileWriter{fv: s.fileValues(ctx, tx, site, caller, dryRun)}
}

// Store stores v, in private storage when private is set, and returns the
// file object to keep. Errors are those of FileValues.SetFile.
func (w *FileWriter) Store(v FileValue, private bool) (*File, error) {
	w.fv.private = private
	defer func() { w.fv.private = false }()
	return w.fv.SetFile(v)
}

// Finish removes the blobs this writer created unless the write committed.
func (w *FileWriter) Finish(committed bool) { w.fv.cleanup(committed) }
