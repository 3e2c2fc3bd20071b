package cms

import (
	"strings"
	"unicode"
)

// asciiFold maps lower-case Latin letters with diacritics (Latin-1 and
// Latin Extended-A, plus Romanian ș and ț) to ASCII.
var asciiFold = func() map[rune]string {
	groups := map[string]string{
		"a": "àáâãäåāăą", "ae": "æ", "c": "çćĉċč", "d": "ðďđ", "e": "èéêëēĕėęě",
		"g": "ĝğġģ", "h": "ĥħ", "i": "ìíîïĩīĭįı", "ij": "ĳ", "j": "ĵ", "k": "ķĸ",
		"l": "ĺļľŀł", "n": "ñńņňŉŋ", "o": "òóôõöøōŏő", "oe": "œ", "r": "ŕŗř",
		"s": "śŝşšſș", "ss": "ß", "t": "ţťŧț", "th": "þ", "u": "ùúûüũūŭůűų",
		"w": "ŵ", "y": "ýÿŷ", "z": "źżž",
	}
	m := make(map[rune]string, 200)
	for ascii, letters := range groups {
		for _, r := range letters {
			m[r] = ascii
		}
	}
	return m
}()

// Slugify turns s into a slug (of a page, channel, entry or option): letters
// are lower-cased; Latin letters
// with diacritics are folded to ASCII (é -> e, ß -> ss, æ -> ae, ø -> o,
// ł -> l); letters and digits of other scripts are kept; combining marks
// are dropped; every other run of characters (spaces, punctuation,
// underscores, symbols) becomes one '-'; leading and trailing dashes are
// trimmed. "Über uns & Café_2" gives "uber-uns-cafe-2". Slugify is
// idempotent and may return "".
func Slugify(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	dash := false
	for _, r := range s {
		switch {
		case r < 0x80 && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
		case r < 0x80 && 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			r = unicode.ToLower(r)
			if f, ok := asciiFold[r]; ok {
				if dash && b.Len() > 0 {
					b.WriteByte('-')
				}
				dash = false
				b.WriteString(f)
				continue
			}
		default:
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	return b.String()
}
