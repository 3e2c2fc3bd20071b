package files

import (
	"encoding/base64"
	"net/http" // DetectContentType only: the WHATWG sniffing rules browsers apply
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Error codes of file values beyond Put's.
const (
	EInvalidBase64 = "invalid_base64"
	// EGone: a FileRef names an upload that expired or whose bytes are gone.
	EGone = "gone"
	// ECopyFailed: the bytes a FileRef names could not be copied.
	ECopyFailed = "copy_failed"
)

// MaxValueSize is the largest file a file value may upload.
const MaxValueSize = 25 << 20

// ValueKind is what a file value asks for.
type ValueKind int

// Kinds of file values.
const (
	// KindUpload carries the bytes: Data, Filename, ContentType.
	KindUpload ValueKind = iota + 1
	// KindURL names a remote file (absolute http or https URL) to keep as
	// the file: URL, and Filename from its path. Tessera does not fetch it.
	KindURL
	// KindCopy copies an existing stored file: Source and its parsed Ref.
	KindCopy
	// KindStored copies the stored file of this server that URL names by
	// its Key (a read shape sent back), with the permissions of a FileRef.
	KindStored
)

// Value is a parsed file value, checked for shape, encoding, size and
// content type, ready for a Writer to store.
type Value struct {
	Kind ValueKind
	// Filename is the name without directories ("" for a KindCopy, and
	// possibly for a KindURL).
	Filename string
	// ContentType is the declared media type (content_type, else the data:
	// URL's), lower case without parameters; "" when none was declared.
	ContentType string
	Data        []byte
	URL         string
	Source      string
	Ref         Ref
	// Key is the blob key of a KindStored value.
	Key string
	// Current is the file the field holds now; nil for none.
	Current *File
}

// Action is what a parsed file value asks of the field holding it.
type Action int

const (
	Keep  Action = iota // no change
	Clear               // remove the file
	Set                 // store the Value
)

// Ref is a parsed FileRef source:
// service://<SiteShortID>/<Resource>/<RecordID>/<Field>[/<EmbeddedID>].
type Ref struct {
	SiteShortID string
	Resource    string // entries, products, pages, uploads or tmp
	RecordID    string
	// Field is the field name (the file name for tmp); may be "" for uploads.
	Field      string
	EmbeddedID string
}

// ParseBatchValue parses a file value of a page batch (set and insert)
// against the current file cur; slug names the item in messages. null or
// {remove: true} clears, a {url} or bare string naming cur (SameFile) keeps
// it; uploads ({data} or {attachment}, base64 or a data: URL), FileRef
// copies ({__type: FileRef, source} or any {source}) and remote URLs
// (absolute http or https) are stored. Errors: invalid_file_format,
// invalid_base64, file_too_large, invalid_content_type, and
// validation_failed for a bad FileRef URI.
func ParseBatchValue(v any, cur *File, slug string) (Value, Action, error) {
	where := "File '" + slug + "'"
	switch v := v.(type) {
	case nil:
		return Value{}, Clear, nil
	case string:
		if SameFile(v, cur) {
			return Value{}, Keep, nil
		}
		fv, err := parseURL(v, "", where)
		fv.Current = cur
		return fv, Set, err
	case map[string]any:
		if removes(v) {
			return Value{}, Clear, nil
		}
		t, _ := v["__type"].(string)
		if src, ok := v["source"]; ok || t == "FileRef" {
			s, ok := src.(string)
			if !ok || s == "" {
				return Value{}, 0, err422(EInvalidFileFormat, "%s: a FileRef needs a source string (service://...)", where)
			}
			ref, err := ParseRef(s)
			if err != nil {
				return Value{}, 0, err
			}
			return Value{Kind: KindCopy, Source: s, Ref: ref, Current: cur}, Set, nil
		}
		_, hasData := v["data"]
		_, hasAttachment := v["attachment"]
		if hasData || hasAttachment {
			fv, err := parseUpload(v, where)
			fv.Current = cur
			return fv, Set, err
		}
		if u, ok := v["url"]; ok {
			s, ok := u.(string)
			if !ok {
				return Value{}, 0, err422(EInvalidFileFormat, "%s: url must be a string", where)
			}
			if SameFile(s, cur) {
				return Value{}, Keep, nil
			}
			name, _ := v["filename"].(string)
			fv, err := parseURL(s, name, where)
			fv.Current = cur
			return fv, Set, err
		}
	}
	return Value{}, 0, err422(EInvalidFileFormat,
		"%s takes {data, filename, content_type}, {url}, a URL, a FileRef {__type: FileRef, source}, or null", where)
}

// ParseValue parses a file write form of a page PUT or a channel entry
// against the current file cur; where names the field in messages. Read
// shapes (any object with a url, or a URL naming cur as a string) keep it;
// null and {remove: true} clear it; an upload ({__type: File, filename,
// attachment} with raw base64 and a filename with an extension) or a
// FileRef is parsed and checked like a batch value. The batch-only forms
// (data:, {data}, {url} of another file, bare URLs) are refused.
func ParseValue(v any, cur *File, where string) (Value, Action, error) {
	switch v := v.(type) {
	case nil:
		return Value{}, Clear, nil
	case string:
		if SameFile(v, cur) {
			return Value{}, Keep, nil
		}
		return Value{}, 0, err422(EInvalidFileFormat, "%s: a file is written as a file object ({__type: File, remove: true} clears it)", where)
	case map[string]any:
		if removes(v) {
			return Value{}, Clear, nil
		}
		_, hasSource := v["source"]
		_, hasAttachment := v["attachment"]
		if t, _ := v["__type"].(string); t == "FileRef" || hasSource || hasAttachment {
			if att, ok := v["attachment"].(string); ok && len(att) >= 5 && strings.EqualFold(att[:5], "data:") {
				return Value{}, 0, err422(EInvalidFileFormat, "%s: attachment is raw base64, without a data: prefix", where)
			}
			if fn, ok := v["filename"].(string); hasAttachment && ok && path.Ext(fn) == "" {
				return Value{}, 0, err422(EInvalidFileFormat, "%s: the filename needs an extension (it gives the content type)", where)
			}
			fv, _, err := ParseBatchValue(v, cur, strings.TrimPrefix(where, "items."))
			return fv, Set, err
		}
		if _, ok := v["data"]; ok {
			return Value{}, 0, err422(EInvalidFileFormat, "%s: data is a batch form; PUT uploads send {__type: File, filename, attachment}", where)
		}
		if _, ok := v["url"].(string); ok {
			return Value{}, Keep, nil
		}
		return Value{}, 0, err422(EInvalidFileFormat, "%s: invalid file object", where)
	}
	return Value{}, 0, err422(EInvalidFileFormat, "%s: invalid file value", where)
}

// removes reports whether a file object asks to clear the file
// ({remove: true}, or any switch spelling of true).
func removes(m map[string]any) bool {
	on, ok := cms.Bool(m["remove"])
	return ok && on
}

func parseURL(s, name, where string) (Value, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Value{}, err422(EInvalidFileFormat, "%s: %q is not an http or https URL", where, s)
	}
	if name != "" {
		if name, err = checkFilename(name, where); err != nil {
			return Value{}, err
		}
	} else if base := path.Base(u.Path); base != "/" && base != "." {
		// A name taken from the URL is a hint only: drop it when unusable.
		if name, err = checkFilename(base, where); err != nil {
			name = ""
		}
	}
	if forbiddenExt(u.Path) || forbiddenExt(name) {
		return Value{}, err422(EInvalidContentType, "%s: %s", where, refused)
	}
	return Value{Kind: KindURL, URL: s, Filename: name}, nil
}

func parseUpload(m map[string]any, where string) (Value, error) {
	raw, ok := m["data"]
	if !ok {
		raw = m["attachment"]
	}
	data, ok := raw.(string)
	if !ok || data == "" {
		return Value{}, err422(EInvalidFileFormat, "%s: data must be a base64 string or a data: URL", where)
	}
	fn, _ := m["filename"].(string)
	name, err := checkFilename(fn, where)
	if err != nil {
		return Value{}, err
	}
	if name == "" {
		return Value{}, err422(EInvalidFileFormat, "%s: an upload needs a filename", where)
	}
	ctype := ""
	if ct, ok := m["content_type"]; ok && ct != nil {
		s, ok := ct.(string)
		if !ok {
			return Value{}, err422(EInvalidFileFormat, "%s: content_type must be a string", where)
		}
		ctype = looseMediaType(s)
	}
	payload, b64, urlType := data, true, ""
	if len(data) >= 5 && strings.EqualFold(data[:5], "data:") {
		comma := strings.IndexByte(data, ',')
		if comma < 0 {
			return Value{}, err422(EInvalidFileFormat, "%s: malformed data: URL", where)
		}
		params := strings.Split(data[5:comma], ";")
		urlType = looseMediaType(params[0])
		b64 = strings.EqualFold(strings.TrimSpace(params[len(params)-1]), "base64")
		payload = data[comma+1:]
	}
	if ctype == "" {
		ctype = urlType
	}
	if forbiddenType(ctype) || forbiddenType(urlType) || forbiddenExt(name) {
		return Value{}, err422(EInvalidContentType, "%s: %s", where, refused)
	}
	var content []byte
	if b64 {
		payload = stripSpace(payload)
		if base64.StdEncoding.DecodedLen(len(payload)) > MaxValueSize+3 {
			return Value{}, errValueTooLarge(where)
		}
		var ok bool
		if content, ok = decodeBase64(payload); !ok {
			return Value{}, err422(EInvalidBase64, "%s: data is not valid base64", where)
		}
	} else {
		if len(payload) > 3*MaxValueSize {
			return Value{}, errValueTooLarge(where)
		}
		s, err := url.PathUnescape(payload)
		if err != nil {
			return Value{}, err422(EInvalidFileFormat, "%s: malformed data: URL", where)
		}
		content = []byte(s)
	}
	if len(content) > MaxValueSize {
		return Value{}, errValueTooLarge(where)
	}
	if len(content) == 0 {
		return Value{}, err422(EInvalidFileFormat, "%s: the file is empty", where)
	}
	head := content[:min(len(content), 512)]
	if sniffedMarkup(head, mediaType(http.DetectContentType(head))) {
		return Value{}, err422(EInvalidContentType, "%s: %s", where, refused)
	}
	return Value{Kind: KindUpload, Filename: name, ContentType: ctype, Data: content}, nil
}

func errValueTooLarge(where string) *cms.Error {
	return err422(EFileTooLarge, "%s: files are at most %d MB", where, MaxValueSize>>20)
}

// checkFilename drops directories from a filename a value names and
// refuses control characters and names that are only dots: unlike
// CleanFilename (which makes any name storable), a value's name is the
// client's to fix.
func checkFilename(s, where string) (string, error) {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if strings.Trim(s, ".") == "" || !utf8.ValidString(s) || len(s) > MaxFilenameBytes {
		return s, err422(EInvalidFileFormat, "%s: invalid filename %q", where, s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return s, err422(EInvalidFileFormat, "%s: invalid filename %q", where, s)
		}
	}
	return s, nil
}

// stripSpace drops the white space base64 may be wrapped with.
func stripSpace(s string) string {
	if !strings.ContainsAny(s, " \t\n\r") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r':
			return -1
		}
		return r
	}, s)
}

// decodeBase64 decodes base64 without white space, padded or not, in the
// standard or the URL alphabet.
func decodeBase64(s string) ([]byte, bool) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	out, err := enc.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(s, "="))
	return out, err == nil
}

// ParseRef parses a FileRef source,
// service://<site_short_id>/<resource>/<id>/<field>[/<embedded_id>].
// Segments are URL-decoded. resource is entries, products, pages, uploads
// or tmp; pages and entries need a field, products a field of images or
// attachments and an embedded id, tmp a file name. Errors are
// validation_failed (the spec's code for a bad FileRef URI).
func ParseRef(source string) (Ref, error) {
	bad := func(why string) (Ref, error) {
		return Ref{}, err422(cms.EValidationFailed, "Invalid FileRef source %q: %s", source, why)
	}
	const scheme = "service://"
	if len(source) < len(scheme) || !strings.EqualFold(source[:len(scheme)], scheme) {
		return bad("it must start with " + scheme)
	}
	raw := strings.Split(source[len(scheme):], "/")
	if len(raw) < 3 || len(raw) > 5 {
		return bad("expected service://<site>/<resource>/<id>/<field>[/<embedded_id>]")
	}
	segs := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil || u == "" {
			return bad("empty or malformed segment")
		}
		segs[i] = u
	}
	ref := Ref{SiteShortID: segs[0], Resource: segs[1], RecordID: segs[2]}
	if len(segs) > 3 {
		ref.Field = segs[3]
	}
	if len(segs) > 4 {
		ref.EmbeddedID = segs[4]
	}
	switch ref.Resource {
	case "pages", "entries":
		if ref.Field == "" {
			return bad(ref.Resource + " need a field name")
		}
	case "products":
		if ref.Field != "images" && ref.Field != "attachments" || ref.EmbeddedID == "" {
			return bad("products need images or attachments and an embedded id")
		}
	case "uploads":
	case "tmp":
		if ref.Field == "" || ref.EmbeddedID != "" {
			return bad("tmp needs a file name")
		}
		return ref, nil
	default:
		return bad("resource must be entries, products, pages, uploads or tmp")
	}
	if !cms.IsID(ref.RecordID) {
		return bad("the record id must be a 24-hex id")
	}
	ref.RecordID = strings.ToLower(ref.RecordID)
	return ref, nil
}
