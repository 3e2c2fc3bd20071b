package edit

// What the engine asks of the service: look-ups by name, reference checks
// and file storage, each on top of the service's transaction.

import (
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
)

// Resolver looks up what a write names by id, name or path. The service
// implements it on top of its transaction. Each method returns "" or nil for
// no match; an error aborts the write and is returned wrapped.
type Resolver interface {
	// Template returns the template of the site's active theme whose name
	// or id is ref, or nil.
	Template(ref string) (*doc.TemplateInfo, error)
	// PageID returns the id of the page whose id, or fullpath (no leading
	// slash) in locale, is ref.
	PageID(ref, locale string) (string, error)
	// ChannelSlug returns the slug of the channel whose slug or id is ref.
	ChannelSlug(ref string) (string, error)
	// ReferenceID returns the id of the record of refType (as in
	// Editable.Reference) whose slug in locale is slug; for pages the slug
	// is a fullpath without leading slash.
	ReferenceID(refType, slug, locale string) (string, error)
}

// ReferenceChecker tells whether reference targets exist. The service
// implements it on top of its transaction.
type ReferenceChecker interface {
	// Exists returns the ids among ids (lower-case object ids, no
	// duplicates) that name no record of refType ("pages",
	// "channels.articles", as in themes.Editable.Reference). A *cms.Error
	// becomes the operation's error; any other error aborts the batch.
	Exists(refType string, ids []string) (missing []string, err error)
}

// FileValues stores the files batch and PUT writes bring (a *files.Writer
// in the service). A *cms.Error becomes the operation's error: for FileRef
// sources unauthorized, not_found, gone, validation_failed or copy_failed;
// for bytes and URLs invalid_content_type, file_too_large or
// invalid_file_format. Any other error aborts the batch.
type FileValues interface {
	Store(v files.Value, private bool) (*files.File, error)
}

type nopResolver struct{}

func (nopResolver) Template(string) (*doc.TemplateInfo, error) { return nil, nil }

func (nopResolver) PageID(string, string) (string, error) { return "", nil }

func (nopResolver) ChannelSlug(string) (string, error) { return "", nil }

func (nopResolver) ReferenceID(string, string, string) (string, error) { return "", nil }
