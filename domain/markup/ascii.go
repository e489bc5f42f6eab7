package markup

import (
	"encoding/binary"
	"math/bits"
)

// The scanner spends most of its time on plain ASCII text: folding it for
// matching and counting its words. asciiFold and asciiWords do that eight
// bytes at a time (SWAR) whenever a block is simple: printable ASCII without
// '&' (and, for folding, without two spaces in a row). Anything else goes
// byte by byte, with the same result. The two are separate because most
// text needs only one of them: Place folds every eligible paragraph but
// counts the words of the few that a match lands in.

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func repeat(c byte) uint64 { return lsb * uint64(c) }

// geMask sets the high bit of each byte of x that is >= c. Every byte of x
// must be below 0x80 and c at most 0x80, so that no addition carries.
func geMask(x uint64, c byte) uint64 { return (x + repeat(0x80-c)) & msb }

// simpleBlock reports whether all eight bytes of x are printable ASCII
// other than '&'. A byte b below 0x80 is at least 0x20 exactly when
// b+0x60 has its high bit set, and is not '&' exactly when (b^'&')+0x7F
// has; a byte of 0x80 or more fails the first test, and whatever its
// carry does to the bytes above, the block is refused either way.
func simpleBlock(x uint64) bool {
	printable := (x + repeat(0x60)) &^ x
	notAmp := (x ^ repeat('&')) + repeat(0x7F)
	return printable&notAmp&msb == msb
}

// spaceMask sets the high bit of each space byte of x, which must be a
// simpleBlock: with every byte below 0x80, (b^' ')+0x7F carries into no
// other byte and has its high bit set unless b is a space.
func spaceMask(x uint64) uint64 { return ^((x ^ repeat(' ')) + repeat(0x7F)) & msb }

// asciiState carries the word and space state across runs.
type asciiState struct {
	prevWord  uint8 // 1 when the last byte was a letter or digit
	lastSpace bool  // the folded text ends in a space
}

// asciiRun folds and counts the run of plain ASCII bytes at the start of
// src. With dst nil it only counts. It returns the bytes of src consumed,
// the bytes written to dst (which must have room for len(src)) and the
// words begun.
func asciiRun(src, dst []byte, st *asciiState) (consumed, written, words int) {
	consumed, words, st.prevWord = asciiWords(src, st.prevWord)
	if dst != nil {
		_, written, st.lastSpace = asciiFold(src[:consumed], dst, st.lastSpace)
	}
	return consumed, written, words
}

// asciiWords counts the words begun in the run of plain ASCII bytes at the
// start of src. prevWord is 1 when the byte before the run was a letter or
// digit; the result says the same of the run's last byte.
func asciiWords(src []byte, prevWord uint8) (consumed, words int, lastWord uint8) {
	prev := uint64(prevWord)
	j := 0
	for j < len(src) {
		if j+8 <= len(src) {
			if x := binary.LittleEndian.Uint64(src[j:]); simpleBlock(x) {
				l := x | repeat(0x20)
				letter := geMask(l, 'a') &^ geMask(l, 'z'+1)
				digit := geMask(x, '0') &^ geMask(x, '9'+1)
				word := (letter | digit) >> 7
				words += bits.OnesCount64(word &^ (word<<8 | prev))
				prev = word >> 56
				j += 8
				continue
			}
		}
		c := src[j]
		if !isPlainASCII(c) {
			break
		}
		w := uint64(asciiClass[c] >> 1 & 1)
		words += int(w &^ prev)
		prev = w
		j++
	}
	return j, words, uint8(prev)
}

// asciiFold writes the run of plain ASCII bytes at the start of src to dst
// folded: lower case, each run of whitespace one space. lastSpace says
// whether the folded text before ends in a space; the result says the same
// after the run. dst must have room for len(src); eight bytes more let the
// last few bytes go as fast as the rest.
func asciiFold(src, dst []byte, lastSpace bool) (consumed, written int, endsInSpace bool) {
	var spaceBefore uint64 // 0x80 when the folded text ends in a space
	if lastSpace {
		spaceBefore = 0x80
	}
	j, k := 0, 0
	for j < len(src) {
		// Whole blocks go straight through, written where they were read.
		// Slicing both sides to the same whole number of blocks lets the
		// compiler drop the bounds checks from this loop.
		n := min(len(src)-j, len(dst)-k) &^ 7
		from, to := src[j:j+n], dst[k:k+n]
		i := 0
		for ; i < n; i += 8 {
			x := binary.LittleEndian.Uint64(from[i : i+8])
			sp := spaceMask(x)
			if !simpleBlock(x) || sp&(sp<<8|spaceBefore) != 0 {
				break
			}
			upper := geMask(x, 'A') &^ geMask(x, 'Z'+1)
			binary.LittleEndian.PutUint64(to[i:i+8], x|upper>>2)
			spaceBefore = sp >> 56
		}
		j, k = j+i, k+i
		if j == len(src) {
			break
		}
		// Then the block that stopped that loop, or the last few bytes
		// followed by zero bytes, which stop the test below. The bytes
		// before the first that stops it (a byte outside ' '...DEL, '&', a
		// second space) go through at once; what the masks say of the
		// bytes after that one may be wrong, and does not matter.
		x := load8(src, j)
		sp := spaceMask(x)
		stop := ^((x+repeat(0x60))&^x&((x^repeat('&'))+repeat(0x7F)))&msb | sp&(sp<<8|spaceBefore)
		if n := bits.TrailingZeros64(stop) / 8; n > 0 {
			upper := geMask(x, 'A') &^ geMask(x, 'Z'+1)
			store8(dst, k, n, x|upper>>2)
			spaceBefore = sp >> (8*n - 8) & 0x80
			j, k = j+n, k+n
			continue
		}
		c := src[j]
		if !isPlainASCII(c) {
			break
		}
		if asciiClass[c]&asciiSpace == 0 {
			dst[k] = asciiLower[c]
			k++
			spaceBefore = 0
		} else if spaceBefore == 0 {
			dst[k] = ' '
			k++
			spaceBefore = 0x80
		}
		j++
	}
	return j, k, spaceBefore != 0
}

// load8 reads src[j:j+8] as a little-endian word, with zero bytes for
// those past the end of src.
func load8(src []byte, j int) uint64 {
	if len(src)-j >= 8 {
		return binary.LittleEndian.Uint64(src[j:])
	}
	if len(src) >= 8 {
		// The last eight bytes, shifted down to the ones from j.
		return binary.LittleEndian.Uint64(src[len(src)-8:]) >> (8 * (8 - (len(src) - j)))
	}
	var x uint64
	for i, c := range src[j:] {
		x |= uint64(c) << (8 * i)
	}
	return x
}

// store8 writes the low n bytes of x to dst[k:], and when there is room
// for all eight, all eight: the ones past n are overwritten later or lie
// past the end of the result.
func store8(dst []byte, k, n int, x uint64) {
	if len(dst)-k >= 8 {
		binary.LittleEndian.PutUint64(dst[k:], x)
		return
	}
	for i := range n {
		dst[k+i] = byte(x >> (8 * i))
	}
}
