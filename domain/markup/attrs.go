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
	i := 1
	for i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	i = skipTagSpace(raw, i)
	var seen uint16 // bits of knownAttrs: the tokenizer keeps the first of repeated names
	for i < len(raw) {
		if raw[i] == '>' {
			break
		}
		ks := i
		for i < len(raw) {
			c := raw[i]
			if c == '=' && i > ks || isTagSpace(c) || c == '/' || c == '>' {
				break
			}
			i++
		}
		ke := i
		vs, ve := i, i
		i = skipTagSpace(raw, i)
		if i < len(raw) {
			switch c := raw[i]; {
			case c == '/':
				i++
			case c == '=':
				i = skipTagSpace(raw, i+1)
				if i < len(raw) {
					switch q := raw[i]; q {
					case '>':
					case '\'', '"':
						i++
						vs, ve = i, len(raw)
						for i < len(raw) {
							if raw[i] == q {
								ve = i
								i++
								break
							}
							i++
						}
					default:
						vs, ve = i, len(raw)
						for i++; i < len(raw); i++ {
							if isTagSpace(raw[i]) {
								ve = i
								i++
								break
							}
							if raw[i] == '>' {
								ve = i
								break
							}
						}
					}
				}
			}
		}
		if ks == ke {
			i = skipTagSpace(raw, i)
			continue
		}
		k, known := attrIndex(raw[ks:ke])
		if !known {
			return tagAttrs{}, false
		}
		if k >= 0 && seen&(1<<k) == 0 {
			seen |= 1 << k
			val := raw[vs:ve]
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
		i = skipTagSpace(raw, i)
	}
	return t, true
}

func skipTagSpace(raw []byte, i int) int {
	for i < len(raw) && isTagSpace(raw[i]) {
		i++
	}
	return i
}

// knownAttrs are the attributes the scanner reads.
var knownAttrs = [...]string{"href", "rel", MarkerAttr, BlockMarkerAttr, "role", "encoding", "color", "face", "size"}

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
