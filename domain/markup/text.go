package markup

import (
	"golang.org/x/net/html"
	"unicode"
	"unicode/utf8"
)

// longestLegacyEntity is the longest character reference that HTML decodes
// without a trailing semicolon ("&middot", "&brvbar"); x/net/html uses the
// same bound, and matching must agree with the browser on what a run of
// text says.
const longestLegacyEntity = 6

// longestEntityName bounds the scan for a named reference; the longest name
// in the HTML table is 32 bytes with its semicolon.
const longestEntityName = 33

// nextUnit decodes the character or character reference starting at b[i].
// It returns up to two runes (a few named references expand to two code
// points), how many of them are set, and the number of source bytes used.
// Raw bytes that are not valid UTF-8 decode as U+FFFD, one byte each, so the
// caller always advances.
func nextUnit(b []byte, i int) (r0, r1 rune, nr, size int) {
	c := b[i]
	if c < utf8.RuneSelf {
		if c == '&' {
			if r0, r1, nr, size = decodeReference(b, i); size > 0 {
				return r0, r1, nr, size
			}
		}
		if c == 0 {
			return unicode.ReplacementChar, 0, 1, 1
		}
		return rune(c), 0, 1, 1
	}
	r, n := utf8.DecodeRune(b[i:])
	return r, 0, 1, n
}

// decodeReference decodes a character reference at b[i] == '&'. It returns
// size 0 when the ampersand is a literal one.
func decodeReference(b []byte, i int) (r0, r1 rune, nr, size int) {
	j := i + 1
	if j < len(b) && b[j] == '#' {
		return decodeNumericReference(b, i)
	}
	for j < len(b) && j-i <= longestEntityName && isASCIIAlnum(b[j]) {
		j++
	}
	if j == i+1 {
		return 0, 0, 0, 0
	}
	if j < len(b) && b[j] == ';' {
		if r := commonEntity(b[i+1 : j]); r != 0 {
			return r, 0, 1, j + 1 - i
		}
		if r0, r1, nr = lookupEntity(b[i : j+1]); nr > 0 {
			return r0, r1, nr, j + 1 - i
		}
	}
	// Legacy references without a semicolon: the longest known prefix wins.
	name := j - i - 1
	if name > longestLegacyEntity {
		name = longestLegacyEntity
	}
	for n := name; n >= 2; n-- {
		if r0, r1, nr = lookupEntity(b[i : i+1+n]); nr > 0 {
			return r0, r1, nr, n + 1
		}
	}
	return 0, 0, 0, 0
}

// commonEntity decodes the references that make up nearly all of real text
// without the general lookup, which allocates.
func commonEntity(name []byte) rune {
	switch string(name) {
	case "amp":
		return '&'
	case "nbsp":
		return '\u00A0'
	case "lt":
		return '<'
	case "gt":
		return '>'
	case "quot":
		return '"'
	case "apos":
		return '\''
	case "rsquo":
		return '\u2019'
	case "lsquo":
		return '\u2018'
	case "rdquo":
		return '\u201D'
	case "ldquo":
		return '\u201C'
	case "mdash":
		return '\u2014'
	case "ndash":
		return '\u2013'
	case "hellip":
		return '\u2026'
	case "copy":
		return '\u00A9'
	}
	return 0
}

// lookupEntity asks x/net/html's table so that the set of names and their
// values stays the parser's own.
func lookupEntity(ref []byte) (r0, r1 rune, nr int) {
	s := string(ref)
	d := html.UnescapeString(s)
	if d == s {
		return 0, 0, 0
	}
	r0, n := utf8.DecodeRuneInString(d)
	if n == len(d) {
		return r0, 0, 1
	}
	r1, m := utf8.DecodeRuneInString(d[n:])
	if n+m != len(d) {
		// The reference was not consumed whole; treat the ampersand as text.
		return 0, 0, 0
	}
	return r0, r1, 2
}

func decodeNumericReference(b []byte, i int) (r0, r1 rune, nr, size int) {
	j := i + 2
	hex := j < len(b) && (b[j] == 'x' || b[j] == 'X')
	if hex {
		j++
	}
	start := j
	var v rune
	for ; j < len(b); j++ {
		c := b[j]
		var d rune
		switch {
		case '0' <= c && c <= '9':
			d = rune(c - '0')
		case hex && 'a' <= c && c <= 'f':
			d = rune(c-'a') + 10
		case hex && 'A' <= c && c <= 'F':
			d = rune(c-'A') + 10
		default:
			goto done
		}
		if v <= unicode.MaxRune {
			if hex {
				v = v*16 + d
			} else {
				v = v*10 + d
			}
		}
	}
done:
	if j == start {
		return 0, 0, 0, 0
	}
	if j < len(b) && b[j] == ';' {
		j++
	}
	if v == 0 || v > unicode.MaxRune || (0xD800 <= v && v <= 0xDFFF) {
		v = unicode.ReplacementChar
	} else if 0x80 <= v && v <= 0x9F {
		v = windows1252[v-0x80]
	}
	return v, 0, 1, j - i
}

// windows1252 is how HTML reads numeric references in the C1 range.
var windows1252 = [32]rune{
	'\u20AC', '\u0081', '\u201A', '\u0192', '\u201E', '\u2026', '\u2020', '\u2021',
	'\u02C6', '\u2030', '\u0160', '\u2039', '\u0152', '\u008D', '\u017D', '\u008F',
	'\u0090', '\u2018', '\u2019', '\u201C', '\u201D', '\u2022', '\u2013', '\u2014',
	'\u02DC', '\u2122', '\u0161', '\u203A', '\u0153', '\u009D', '\u017E', '\u0178',
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isSpace reports the characters that separate words for matching; it
// includes the no-break space so "&nbsp;" between two words still matches.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v', '\u00A0', '\u1680', '\u2028', '\u2029',
		'\u202F', '\u205F', '\u3000', '\uFEFF':
		return true
	}
	return '\u2000' <= r && r <= '\u200A'
}

// isWordRune reports letters, digits and combining marks: a mark continues
// the word it sits on (Arabic harakat, Hebrew niqqud, decomposed accents).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isNoSpaceScript reports scripts written without spaces between words, where
// an anchor is matched as a substring and each character counts as a word.
func isNoSpaceScript(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai,
		unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan)
}

// foldRune maps a rune to the form anchors are compared in.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	switch r {
	case 'ς': // final sigma is a positional form of σ
		return 'σ'
	case '\u2019', '\u2018', '\u02BC': // typographic apostrophes
		return '\''
	case '\u2010', '\u2011': // hyphen, non-breaking hyphen
		return '-'
	case 'ё', 'Ё': // Russian writes е for ё at will: "черная" is "чёрная"
		return 'е'
	}
	return unicode.ToLower(r)
}

// wordCounter counts words in a stream of runes: a run of word runes is one
// word, except in no-space scripts where every character is one.
type wordCounter struct {
	inWord  bool
	noSpace bool
}

// step reports whether r begins a new word.
func (w *wordCounter) step(r rune) bool {
	if !isWordRune(r) {
		w.inWord = false
		return false
	}
	ns := isNoSpaceScript(r)
	starts := !w.inWord || ns || w.noSpace
	if ns && unicode.IsMark(r) {
		starts = false
	}
	w.inWord, w.noSpace = true, ns
	return starts
}

// breakWord ends any word in progress, for element boundaries such as <br>.
func (w *wordCounter) breakWord() { w.inWord = false }
