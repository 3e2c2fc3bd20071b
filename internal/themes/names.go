package themes

import (
	"regexp"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// LiquidExt is the extension theme tools give Liquid files.
const LiquidExt = ".liquid"

// segmentPattern is one folder or file name of a theme file's path: no
// leading dot (so "..", ".git" and hidden files never name a file), no
// trailing dot or space (which some file systems drop), no slashes or other
// characters unsafe in URLs and file names.
var segmentPattern = regexp.MustCompile(`^[A-Za-z0-9_](?:[A-Za-z0-9_. -]{0,126}[A-Za-z0-9_-])?$`)

// maxNameBytes and maxNameDepth bound a theme file's path.
const (
	maxNameBytes = 255
	maxNameDepth = 8
)

// IsLiquid reports whether files of kind are Liquid (layouts, templates,
// snippets); assets are not.
func IsLiquid(kind string) bool { return kind != store.KindAssets }

// CanonicalName is the name a file of kind is stored and looked up under:
// Liquid files without their ".liquid" extension, so "page" and
// "page.liquid" name the same template and a theme cannot hold both.
// Names are paths: "customers/login", "stylesheets/site.css".
func CanonicalName(kind, name string) string {
	name = strings.Trim(name, "/")
	if IsLiquid(kind) {
		name = strings.TrimSuffix(name, LiquidExt)
	}
	return name
}

// ToolName is the name theme tools know a file by: Liquid files with
// their ".liquid" extension.
func ToolName(kind, name string) string {
	if IsLiquid(kind) {
		return name + LiquidExt
	}
	return name
}

// Path is where a file lies in a theme's folder layout: Liquid files under
// their kind's folder, assets named after one of the AssetFolders
// ("stylesheets/site.css") at that name, other assets under assets/.
func Path(kind, name string) string {
	if IsLiquid(kind) {
		return kind + "/" + name + LiquidExt
	}
	if first, _, ok := strings.Cut(name, "/"); ok && slices.Contains(AssetFolders, first) {
		return name
	}
	return store.KindAssets + "/" + name
}

// checkName validates a canonical name.
func checkName(kind, name string) error {
	bad := func() error {
		return cms.Errorf(cms.EInvalid, "Invalid %s name %q: use folders and names of letters, digits, '_', '-', '.' and spaces, separated by '/'.", kind, name)
	}
	if name == "" || len(name) > maxNameBytes {
		return bad()
	}
	segs := strings.Split(name, "/")
	if len(segs) > maxNameDepth {
		return bad()
	}
	for _, s := range segs {
		if !segmentPattern.MatchString(s) || strings.Contains(s, "..") {
			return bad()
		}
	}
	return nil
}
