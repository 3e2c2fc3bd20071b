package themes

import "strings"

// Format prints t as template source: one editable tag per line, blocks
// indented, defaults as tag bodies, options that differ from their defaults.
// Parse(t.Name, Format(t), nil) gives t back for any t that Parse returned.
// Groups and includes are not kept by Parse, so Format prints none.
//
// Format does not check t; a string holding both kinds of quotes, or "%}",
// cannot be written as a Liquid string, and its output will not parse.
func Format(t *Template) string {
	var b strings.Builder
	formatEditables(&b, t.Editables, 0)
	return b.String()
}

func formatEditables(b *strings.Builder, list []*Editable, indent int) {
	for _, e := range list {
		tag := "editable_" + e.Type
		b.WriteString(strings.Repeat("  ", indent))
		b.WriteString("{% " + tag + " " + quote(e.Slug))
		writeCommon(b, e.Slug, e.Label, e.Hint, e.Icon)
		if e.Type == TypeSelect {
			values, labels := make([]string, len(e.Options)), make([]string, len(e.Options))
			withLabels := false
			for i, o := range e.Options {
				values[i], labels[i] = o.Value, o.Label
				withLabels = withLabels || o.Label != o.Value
			}
			writeOption(b, "options", strings.Join(values, "|"))
			if withLabels {
				writeOption(b, "labels", strings.Join(labels, "|"))
			}
		}
		if e.Type == TypeReference {
			writeOption(b, "to", e.Reference)
			if e.Multiple {
				b.WriteString(", multiple: true")
			}
		}
		b.WriteString(" %}")
		if e.Type != TypeCanvas {
			b.WriteString(e.Default)
			if strings.HasSuffix(e.Default, "{") {
				// Keep it from making "{{%" with the end tag; Parse trims
				// the space.
				b.WriteByte(' ')
			}
		} else {
			b.WriteByte('\n')
			for _, bl := range e.Blocks {
				b.WriteString(strings.Repeat("  ", indent+1))
				b.WriteString("{% repeatable " + quote(bl.Slug))
				writeCommon(b, bl.Slug, bl.Label, bl.Hint, bl.Icon)
				b.WriteString(" %}\n")
				formatEditables(b, bl.Editables, indent+2)
				b.WriteString(strings.Repeat("  ", indent+1))
				b.WriteString("{% endrepeatable %}\n")
			}
			b.WriteString(strings.Repeat("  ", indent))
		}
		b.WriteString("{% end" + tag + " %}\n")
	}
}

// writeCommon writes the label, hint and icon options, leaving out the
// ones Parse would default anyway.
func writeCommon(b *strings.Builder, slug, label, hint, icon string) {
	if label != slug {
		writeOption(b, "label", label)
	}
	if hint != "" {
		writeOption(b, "hint", hint)
	}
	if icon != "" {
		writeOption(b, "icon", icon)
	}
}

func writeOption(b *strings.Builder, key, value string) {
	b.WriteString(", " + key + ": " + quote(value))
}

// quote writes s as a Liquid string, which has no escapes: in single
// quotes unless it holds one.
func quote(s string) string {
	if strings.Contains(s, "'") {
		return `"` + s + `"`
	}
	return "'" + s + "'"
}
