package apps

import (
	"regexp"
	"strconv"
)

// Problem is a compile error placed in its file, so that an editor shows
// it at its line. File, Line and Column are absent when the error names no
// place (a limit the loading code reached, say).
type Problem struct {
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

var (
	// syntaxAt is where goja's parser puts a syntax error:
	// "SyntaxError: broken.js: Line 3:7 Unexpected token ...".
	syntaxAt = regexp.MustCompile(`(?:^|\s)([^\s:][^:]*): Line (\d+):(\d+)`)
	// thrownAt is the first frame of an exception thrown while the code
	// loaded: "... at broken.js:3:7(12)".
	thrownAt = regexp.MustCompile(`\bat (?:[^\s(]+ \()?([^\s():][^():]*):(\d+):(\d+)`)
)

// problemsOf places each compile error in one of files (the app's file
// names) where its message says: a place in a file the app does not have
// is left out, so that a message never points an editor elsewhere.
func problemsOf(errs []string, files []string) []Problem {
	out := make([]Problem, 0, len(errs))
	for _, e := range errs {
		p := Problem{Message: e}
		for _, re := range []*regexp.Regexp{syntaxAt, thrownAt} {
			m := re.FindStringSubmatch(e)
			if m == nil || !contains(files, m[1]) {
				continue
			}
			line, err1 := strconv.Atoi(m[2])
			col, err2 := strconv.Atoi(m[3])
			if err1 != nil || err2 != nil || line < 1 {
				continue
			}
			p.File, p.Line, p.Column = m[1], line, max(col, 0)
			break
		}
		out = append(out, p)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
