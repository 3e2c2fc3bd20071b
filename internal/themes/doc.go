// Package themes keeps a site's themes and reads what their templates
// declare.
//
// A theme is a set of files (layouts, templates, snippets and assets)
// stored per site (Service: push all-or-nothing, put, delete, list, and
// the folder layout theme tools use, LoadDir and WriteDir). The parser
// (Parse) reads the editable tags of a template and the snippets it
// includes into a Template: the schema of the items and canvases its pages
// hold, which package pages writes and reads against. It also names
// templates and files (names.go), bounds nesting before anything is
// parsed (CheckDepth) and gives a new site its starter theme (Starter).
// Rendering the templates is package render's job.
package themes
