package markup

import (
	"bytes"
	"slices"
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
	i := 1
	for i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	skip := func() {
		for i < len(raw) && isTagSpace(raw[i]) {
			i++
		}
	}
	skip()
	var seen [9]string // the tokenizer keeps the first of repeated names
	nseen := 0
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
		skip()
		if i < len(raw) {
			switch c := raw[i]; {
			case c == '/':
				i++
			case c == '=':
				i++
				skip()
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
			skip()
			continue
		}
		name, known := attrName(raw[ks:ke])
		if !known {
			return tagAttrs{}, false
		}
		if name != "" && !slices.Contains(seen[:nseen], name) {
			if nseen == len(seen) {
				return tagAttrs{}, false
			}
			seen[nseen] = name
			nseen++
			val := raw[vs:ve]
			if bytes.ContainsAny(val, "&\r\x00") {
				return tagAttrs{}, false
			}
			t.set(name, string(val))
		}
		skip()
	}
	return t, true
}

// attrName lower-cases key when it is one of the attributes the scanner
// reads. known is false (and rawAttrs's caller must fall back) for names
// with bytes the tokenizer would rewrite.
func attrName(key []byte) (name string, known bool) {
	var buf [32]byte
	if len(key) > len(buf) {
		return "", true
	}
	for i, c := range key {
		switch {
		case c == 0:
			return "", false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch k := string(buf[:len(key)]); k {
	case "href", "rel", MarkerAttr, BlockMarkerAttr, "role", "encoding", "color", "face", "size":
		return k, true
	}
	return "", true
}
