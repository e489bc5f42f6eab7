package markup

import (
	"bytes"
	"strings"
)

// Reading attributes through the tokenizer's TagAttr copies every name and
// value, and it is most of what a start tag costs the scanner. rawAttrs
// reads them from the tag's own bytes instead, following the tokenizer's
// readTag step by step (the fuzz test FuzzRawAttrs holds the two together),
// and gives up, leaving the job to TagAttr, whenever a value it needs would
// be rewritten: character references, carriage returns or NULs.

func isTagSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' }

// rawAttrs reads the attributes of the start tag raw ("<name ...>") into a
// tagAttrs. ok is false when TagAttr must be used instead.
func rawAttrs(raw []byte) (t tagAttrs, ok bool) {
	return rawAttrsInto(raw, nil)
}

// rawAttrsInto is rawAttrs with the values written to strs, when not nil,
// rather than each to a string of its own: a page has hundreds of links,
// and one buffer for all their hrefs saves as many allocations. Strings
// taken from a strings.Builder stay valid as it grows: it only appends.
func rawAttrsInto(raw []byte, strs *strings.Builder) (t tagAttrs, ok bool) {
	var seen uint32 // bits of knownAttrs: the tokenizer keeps the first of repeated names
	var a attrSpan
	for i := nextAttr(raw, attrsStart(raw), &a); a.keyEnd > 0; i = nextAttr(raw, i, &a) {
		k, known := attrIndex(raw[a.keyStart:a.keyEnd])
		if !known {
			return tagAttrs{}, false
		}
		if k >= 0 && seen&(1<<k) == 0 {
			seen |= 1 << k
			val := raw[a.valStart:a.valEnd]
			if needsDecoding(val) {
				return tagAttrs{}, false
			}
			if strs == nil {
				t.set(knownAttrs[k], string(val))
			} else {
				n := strs.Len()
				strs.Write(val)
				t.set(knownAttrs[k], strs.String()[n:])
			}
		}
	}
	return t, true
}

// attrSpan locates one attribute in its start tag's bytes, for readers
// that want the value as written (rawAttrsInto) and for the editor that
// rewrites it in place (EditLinks). The name is raw[keyStart:keyEnd],
// never empty; the value raw[valStart:valEnd], without its quotes.
type attrSpan struct {
	keyStart, keyEnd, valStart, valEnd int
	// hasEq is set when an "=" follows the name, even with nothing after
	// it; a value then goes at valStart. Without one it goes at keyEnd.
	hasEq bool
	// quote is the quote character around the value, 0 for none.
	quote byte
}

// attrsStart is where the attributes of the start tag raw ("<name ...>")
// begin, for the first call of nextAttr.
func attrsStart(raw []byte) int {
	i := 1
	for i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	return skipTagSpace(raw, i)
}

// nextAttr reads the attribute of raw at or after i into a, as the
// tokenizer's readTag does (FuzzRawAttrs holds the two together), and says
// where the next one begins. At the end of the tag a is zeroed: no
// attribute has a keyEnd of 0. Nameless attributes ("<a / >") are skipped,
// as the tokenizer drops them. a is filled in place rather than returned
// because a returned struct costs rawAttrsInto, the scanner's hot path,
// several percent.
func nextAttr(raw []byte, i int, a *attrSpan) (next int) {
	for i < len(raw) && raw[i] != '>' {
		ks := i
		for i < len(raw) {
			c := raw[i]
			if c == '=' && i > ks || isTagSpace(c) || c == '/' || c == '>' {
				break
			}
			i++
		}
		*a = attrSpan{keyStart: ks, keyEnd: i, valStart: i, valEnd: i}
		i = skipTagSpace(raw, i)
		if i < len(raw) {
			switch c := raw[i]; {
			case c == '/':
				i++
			case c == '=':
				a.hasEq = true
				i = skipTagSpace(raw, i+1)
				a.valStart, a.valEnd = i, i
				if i < len(raw) {
					switch q := raw[i]; q {
					case '>':
					case '\'', '"':
						a.quote = q
						i++
						a.valStart, a.valEnd = i, len(raw)
						for i < len(raw) {
							if raw[i] == q {
								a.valEnd = i
								i++
								break
							}
							i++
						}
					default:
						a.valStart, a.valEnd = i, len(raw)
						for i++; i < len(raw); i++ {
							if isTagSpace(raw[i]) {
								a.valEnd = i
								i++
								break
							}
							if raw[i] == '>' {
								a.valEnd = i
								break
							}
						}
					}
				}
			}
		}
		i = skipTagSpace(raw, i)
		if a.keyStart != a.keyEnd {
			return i
		}
	}
	*a = attrSpan{}
	return i
}

func skipTagSpace(raw []byte, i int) int {
	for i < len(raw) && isTagSpace(raw[i]) {
		i++
	}
	return i
}

// knownAttrs are the attributes the scanner reads.
var knownAttrs = [...]string{"href", "rel", MarkerAttr, BlockMarkerAttr, "role", "encoding", "color", "face", "size",
	"hidden", "aria-hidden", "inert", "open", "id", "class", "itemtype", "itemprop", "style"}

// attrIndex says which of knownAttrs key names, in any case, -1 for none.
// known is false (and rawAttrs's caller must fall back) for names with
// bytes the tokenizer would rewrite.
func attrIndex(key []byte) (k int, known bool) {
	if len(key) > 32 {
		return -1, true
	}
	if bytes.IndexByte(key, 0) >= 0 {
		return -1, false
	}
	for k, name := range knownAttrs {
		if len(name) == len(key) && equalLower(key, name) {
			return k, true
		}
	}
	return -1, true
}

// equalLower reports whether b, lower-cased, is the lower-case lower.
func equalLower(b []byte, lower string) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// needsDecoding reports attribute values the tokenizer would rewrite:
// character references, carriage returns and NULs. A plain loop, because
// bytes.ContainsAny builds its byte set on every call.
func needsDecoding(val []byte) bool {
	for _, c := range val {
		if c == '&' || c == '\r' || c == 0 {
			return true
		}
	}
	return false
}
