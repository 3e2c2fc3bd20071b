package files

import (
	"bytes"
	"encoding/base64"
	"mime"
	"net/http" // DetectContentType only: the WHATWG sniffing rules browsers apply
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFilenameBytes is the longest display filename CleanFilename keeps.
const MaxFilenameBytes = 255

// CleanFilename returns the display filename for a user-supplied name: its
// base name only (after either kind of slash), without control characters,
// bidirectional-text overrides or invalid UTF-8, without leading spaces or
// trailing dots and spaces, at most MaxFilenameBytes long (keeping a short
// extension). A name that ends up empty, "." or ".." becomes "file".
// The result never contains '/', '\\' or NUL and is never empty.
func CleanFilename(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || isBidiControl(r) {
			return -1
		}
		return r
	}, name)
	name = trimName(name)
	if len(name) > MaxFilenameBytes {
		ext := path.Ext(name)
		if len(ext) > 32 {
			ext = ""
		}
		name = trimName(truncateUTF8(name[:len(name)-len(ext)], MaxFilenameBytes-len(ext)) + ext)
	}
	if name == "" || name == "." || name == ".." {
		return "file"
	}
	return name
}

// trimName drops leading white space and trailing dots and white space:
// Windows drops trailing dots when saving, so "evil.html." must be judged
// as "evil.html".
func trimName(s string) string {
	return strings.TrimRightFunc(strings.TrimLeftFunc(s, unicode.IsSpace), func(r rune) bool {
		return r == '.' || unicode.IsSpace(r)
	})
}

func isBidiControl(r rune) bool {
	return r == '\u200e' || r == '\u200f' || r == '\u061c' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// truncateUTF8 cuts s to at most n bytes without splitting a rune.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// extTypes maps lower-case extensions to the stored content type. The
// table is fixed so that every host answers alike (mime.TypeByExtension
// reads the machine's mime.types).
var extTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg",
	".jfif": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".avif": "image/avif",
	".heic": "image/heic", ".heif": "image/heif", ".bmp": "image/bmp", ".ico": "image/x-icon",
	".tif": "image/tiff", ".tiff": "image/tiff",

	".pdf": "application/pdf", ".txt": "text/plain", ".text": "text/plain", ".log": "text/plain",
	".csv": "text/csv", ".tsv": "text/tab-separated-values", ".md": "text/markdown",
	".markdown": "text/markdown", ".json": "application/json", ".rtf": "application/rtf",
	".ics": "text/calendar", ".vtt": "text/vtt", ".srt": "application/x-subrip",
	".epub": "application/epub+zip",

	".doc":  "application/msword",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xls":  "application/vnd.ms-excel",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".ppt":  "application/vnd.ms-powerpoint",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".odt":  "application/vnd.oasis.opendocument.text",
	".ods":  "application/vnd.oasis.opendocument.spreadsheet",
	".odp":  "application/vnd.oasis.opendocument.presentation",

	".zip": "application/zip", ".gz": "application/gzip", ".tgz": "application/gzip",
	".tar": "application/x-tar", ".7z": "application/x-7z-compressed",
	".rar": "application/vnd.rar",

	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".oga": "audio/ogg",
	".opus": "audio/opus", ".m4a": "audio/mp4", ".flac": "audio/flac", ".aac": "audio/aac",
	".mp4": "video/mp4", ".m4v": "video/mp4", ".mov": "video/quicktime", ".webm": "video/webm",
	".ogv": "video/ogg", ".avi": "video/x-msvideo", ".mkv": "video/x-matroska",

	".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
}

// refused is why a file of a forbidden type is not accepted.
const refused = "html, js, svg, xml and css files are not accepted"

// forbiddenExts are the html, js, svg, xml and css extensions.
var forbiddenExts = map[string]bool{
	".html": true, ".htm": true, ".xhtml": true, ".xht": true, ".shtml": true, ".mht": true,
	".mhtml": true, ".js": true, ".mjs": true, ".cjs": true, ".jsx": true, ".svg": true,
	".svgz": true, ".xml": true, ".xsl": true, ".xslt": true, ".css": true,
}

// sniffedImages are the image types http.DetectContentType recognises.
var sniffedImages = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true,
	"image/bmp": true, "image/x-icon": true,
}

// forbiddenExt reports whether a file name or URL path (escaped or not)
// ends in an html, js, svg, xml or css extension.
func forbiddenExt(name string) bool {
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	return forbiddenExts[strings.ToLower(path.Ext(name))]
}

// forbiddenType reports whether a media type, with or without parameters,
// is html, js, svg, xml or css. It reads the type loosely, so that a
// declaration mime.ParseMediaType would refuse cannot slip past.
func forbiddenType(mt string) bool {
	mt = looseMediaType(mt)
	switch mt {
	case "text/html", "application/xhtml+xml", "text/css", "image/svg+xml", "text/xml",
		"application/xml", "text/xsl", "application/xslt+xml":
		return true
	}
	return strings.HasSuffix(mt, "+xml") || strings.Contains(mt, "javascript") ||
		strings.Contains(mt, "ecmascript")
}

// mediaType returns s's media type in lower case without parameters, or ""
// when s is not a media type.
func mediaType(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
}

// looseMediaType lower-cases a media type and drops its parameters,
// without judging the rest.
func looseMediaType(s string) string {
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// sniffedMarkup reports whether head (the first bytes of a file) looks like
// html, xml or svg. http.DetectContentType finds html and xml; svg without
// an xml declaration sniffs as text, so look for its tag too.
func sniffedMarkup(head []byte, sniffed string) bool {
	if sniffed == "text/html" || sniffed == "text/xml" {
		return true
	}
	h := bytes.TrimLeft(head, "\xef\xbb\xbf \t\r\n\f")
	return len(h) >= 4 && bytes.EqualFold(h[:4], []byte("<svg"))
}

// contentType decides the stored content type of a file called name (a
// CleanFilename result) with the declared media type and first bytes head
// (at most 512). ok is false when the upload must be refused with
// invalid_content_type; why then says why.
func contentType(name, declared string, head []byte) (ct string, ok bool, why string) {
	ext := strings.ToLower(path.Ext(name))
	if forbiddenType(declared) || forbiddenExt(name) {
		return "", false, refused
	}
	sniffed := mediaType(http.DetectContentType(head))
	if sniffedMarkup(head, sniffed) {
		return "", false, refused
	}
	ct = extTypes[ext]
	switch {
	case ct != "":
	case declared != "" && declared != "application/octet-stream":
		ct = declared
	default:
		ct = sniffed
	}
	if sniffedImages[ct] && ct != sniffed {
		if !sniffedImages[sniffed] {
			return "", false, "the file content is not a " + strings.TrimPrefix(ct, "image/") + " image"
		}
		ct = sniffed
	}
	if forbiddenType(ct) {
		return "", false, refused
	}
	return ct, true, ""
}

// inlineTypes are the media types a browser may show in place: images,
// audio, video, plain text and PDF. Everything else is served as an
// attachment. An allow-list, not a deny-list: a type nobody thought of is
// downloaded, never rendered.
var inlineTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/avif": true,
	"image/bmp": true, "image/x-icon": true, "image/tiff": true, "image/heic": true, "image/heif": true,
	"application/pdf": true, "text/plain": true, "text/csv": true,
	"audio/mpeg": true, "audio/wav": true, "audio/ogg": true, "audio/opus": true, "audio/mp4": true,
	"audio/flac": true, "audio/aac": true,
	"video/mp4": true, "video/webm": true, "video/ogg": true, "video/quicktime": true,
	"font/woff": true, "font/woff2": true, "font/ttf": true, "font/otf": true,
}

// Inline reports whether a stored file of this content type may be shown
// in place rather than downloaded.
func Inline(contentType string) bool { return inlineTypes[looseMediaType(contentType)] }

// themeAssetTypes are the types of the theme asset files that uploads
// refuse but a theme serves from its own site: styles, scripts, images.
var themeAssetTypes = map[string]string{
	".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
	".svg": "image/svg+xml", ".map": "application/json", ".json": "application/json",
	".txt": "text/plain; charset=utf-8",
}

// AssetType is the content type a theme asset is served with, from its
// name: the fixed table of uploads, plus styles, scripts and SVG, which a
// site serves from its own theme.
func AssetType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := themeAssetTypes[ext]; ok {
		return t
	}
	if t, ok := extTypes[ext]; ok {
		return t
	}
	return "application/octet-stream"
}

// MaxAssetBytes bounds one theme asset.
const MaxAssetBytes = 8 << 20

// CheckAsset applies the upload rules to a theme asset named name holding
// data: its type comes from its name and must agree with its bytes (an
// image must be one). Unlike uploads, a theme may hold the styles,
// scripts, SVG, JSON and source maps its own pages load, as UTF-8 text;
// HTML and XML stay refused, since a theme asset is served from the site's
// own origin. Errors: invalid_content_type, file_too_large.
func CheckAsset(name string, data []byte) error {
	if len(data) > MaxAssetBytes {
		return err422(EFileTooLarge, "Theme asset %s is larger than %d MiB.", name, MaxAssetBytes>>20)
	}
	ext := strings.ToLower(path.Ext(name))
	if _, ok := themeAssetTypes[ext]; ok {
		if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
			return err422(EInvalidContentType, "Theme asset %s must be UTF-8 text.", name)
		}
		if ext == ".svg" && !bytes.Contains(bytes.ToLower(data[:min(len(data), 4096)]), []byte("<svg")) {
			return err422(EInvalidContentType, "Theme asset %s is not an SVG image.", name)
		}
		return nil
	}
	if _, ok, why := contentType(name, "", data[:min(len(data), 512)]); !ok {
		return err422(EInvalidContentType, "Theme asset %s: %s.", name, why)
	}
	return nil
}

// ParseAssetSource returns the bytes of a theme asset sent in the File
// upload form, {"__type": "File", "filename", "attachment": <base64>}
// (theme tools add "content_type"). Only the bytes are taken: an asset's
// type comes from its name (CheckAsset), so the upload rules that refuse
// styles, scripts and SVG do not apply, and a declared content_type or
// filename does not change what the asset is. An empty attachment is an
// empty file. Errors: invalid_file_format, invalid_base64, file_too_large.
func ParseAssetSource(v any, where string) ([]byte, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, err422(EInvalidFileFormat, "%s must be a File upload object {__type: File, filename, attachment}", where)
	}
	raw, ok := m["attachment"]
	if !ok {
		raw, ok = m["data"]
	}
	s, isString := raw.(string)
	if !ok || !isString {
		return nil, err422(EInvalidFileFormat, "%s: attachment must be the file's bytes in base64", where)
	}
	if len(s) >= 5 && strings.EqualFold(s[:5], "data:") {
		return nil, err422(EInvalidFileFormat, "%s: attachment is raw base64, without a data: prefix", where)
	}
	s = stripSpace(s)
	if base64.StdEncoding.DecodedLen(len(s)) > MaxAssetBytes+3 {
		return nil, err422(EFileTooLarge, "%s: a theme asset is at most %d MiB", where, MaxAssetBytes>>20)
	}
	data, ok := decodeBase64(s)
	if !ok {
		return nil, err422(EInvalidBase64, "%s: attachment is not valid base64", where)
	}
	return data, nil
}
