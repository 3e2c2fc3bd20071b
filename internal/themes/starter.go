package themes

import "github.com/tessera-cms/tessera/internal/store"

// StarterName is the name of the theme a new site starts with.
const StarterName = "default"

// Starter returns the files of the starter theme: a layout and a page
// template with a title and a body, the least a site needs to make pages
// (a page names a template) and show them. A theme pushed later takes
// over as the active one, or a theme copy writes over these files.
func Starter() []File {
	return []File{
		{Kind: store.KindLayouts, Name: "default.liquid", Code: `<!doctype html>
<html lang="{{ locale }}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{{ page.title | escape }} · {{ site.name | escape }}</title>
</head>
<body>
  {{ content_for_layout }}
</body>
</html>
`},
		{Kind: store.KindTemplates, Name: "page.liquid", Code: `<article>
  <h1>{{ page.title | escape }}</h1>
  {% editable_text 'Body' %}{% endeditable_text %}
</article>
`},
	}
}
