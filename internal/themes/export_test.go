package themes

import "fmt"

// ScanTokens exposes the scanner to the differential fuzz test: the tags
// and outputs of src as "line tag name args" and "line obj args".
func ScanTokens(src string) ([]string, error) {
	toks, err := scanTemplate("fuzz", src)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		if t.obj {
			out[i] = fmt.Sprintf("%d obj %q", t.line, t.args)
		} else {
			out[i] = fmt.Sprintf("%d tag %s %q", t.line, t.name, t.args)
		}
	}
	return out, nil
}
