package markup

import (
	"encoding/binary"
	"math/bits"
)

// The scanner spends most of its time on plain ASCII text: folding it for
// matching and counting its words. asciiRun does both eight bytes at a time
// (SWAR) whenever a block is simple: printable ASCII without '&' and without
// two spaces in a row. Anything else goes byte by byte, with the same result.

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func repeat(c byte) uint64 { return lsb * uint64(c) }

// geMask sets the high bit of each byte of x that is >= c. Every byte of x
// must be below 0x80 and c at most 0x80, so that no addition carries.
func geMask(x uint64, c byte) uint64 { return (x + repeat(0x80-c)) & msb }

// zeroMask sets the high bit of each zero byte of x, exactly.
func zeroMask(x uint64) uint64 {
	const low = msb ^ 0xFFFFFFFFFFFFFFFF
	return ^((x&low + low) | x | low)
}

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
	j, k := 0, 0
	fold := dst != nil
	for j < len(src) {
		if j+8 <= len(src) {
			x := binary.LittleEndian.Uint64(src[j:])
			if x&msb == 0 && (^geMask(x, 0x20)&msb)|zeroMask(x^repeat('&')) == 0 {
				sp := zeroMask(x ^ repeat(' '))
				if !fold || sp&(sp<<8) == 0 && !(st.lastSpace && sp&0x80 != 0) {
					l := x | repeat(0x20)
					letter := geMask(l, 'a') &^ geMask(l, 'z'+1)
					digit := geMask(x, '0') &^ geMask(x, '9'+1)
					word := (letter | digit) >> 7
					words += bits.OnesCount64(word &^ (word<<8 | uint64(st.prevWord)))
					st.prevWord = uint8(word >> 56)
					if fold {
						upper := geMask(x, 'A') &^ geMask(x, 'Z'+1)
						binary.LittleEndian.PutUint64(dst[k:], x|upper>>2)
						k += 8
						st.lastSpace = sp>>63 != 0
					}
					j += 8
					continue
				}
			}
		}
		c := src[j]
		if !isPlainASCII(c) {
			break
		}
		cls := asciiClass[c]
		w := cls >> 1 & 1
		words += int(w &^ st.prevWord)
		st.prevWord = w
		if fold {
			if cls&asciiSpace == 0 {
				dst[k] = asciiLower[c]
				k++
				st.lastSpace = false
			} else if !st.lastSpace {
				dst[k] = ' '
				k++
				st.lastSpace = true
			}
		}
		j++
	}
	return j, k, words
}
