package themes

import "strings"

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
