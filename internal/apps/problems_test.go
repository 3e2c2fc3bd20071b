package apps

import (
	"testing"
)

func TestProblemsOf(t *testing.T) {
	files := []string{"broken.js", "lib/util.js"}
	for _, c := range []struct {
		msg  string
		want Problem
	}{
		{"SyntaxError: broken.js: Line 3:7 Unexpected token )", Problem{File: "broken.js", Line: 3, Column: 7}},
		{"broken.js: Line 12:1 Unexpected end of input", Problem{File: "broken.js", Line: 12, Column: 1}},
		{"lib/util.js: ReferenceError: nope is not defined\n\tat lib/util.js:4:9(3)", Problem{File: "lib/util.js", Line: 4, Column: 9}},
		{"lib/util.js: Error: boom\n\tat fail (lib/util.js:2:11(5))\n\tat lib/util.js:5:1(9)", Problem{File: "lib/util.js", Line: 2, Column: 11}},
		// A place in a file the app does not have is left out.
		{"other.js: Line 1:1 Unexpected token", Problem{}},
		{"the code did not load: it ran longer than 1s", Problem{}},
		{"Service.Cloud.schedule: no job \"x\" is defined", Problem{}},
		{"broken.js: Line 0:0 nothing", Problem{}},
	} {
		got := problemsOf([]string{c.msg}, files)
		c.want.Message = c.msg
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("problemsOf(%q): got %+v, want %+v", c.msg, got, c.want)
		}
	}
}

// FuzzProblemsOf: any message gives one problem, placed in one of the
// app's files at a line from 1, or nowhere.
func FuzzProblemsOf(f *testing.F) {
	for _, s := range []string{"SyntaxError: a.js: Line 3:7 x", "a.js: Error\n\tat a.js:1:2(3)", "a.js: Line 99999999999999999999:1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := problemsOf([]string{msg}, []string{"a.js"})
		if len(got) != 1 || got[0].Message != msg {
			t.Fatalf("got %+v", got)
		}
		if p := got[0]; p.File != "" && (p.File != "a.js" || p.Line < 1 || p.Column < 0) || p.File == "" && (p.Line != 0 || p.Column != 0) {
			t.Fatalf("placed badly: %+v", p)
		}
	})
}
