package markup

import (
	"math/rand/v2"
	"testing"
)

// asciiRunSlow is the byte-by-byte definition asciiRun must agree with.
func asciiRunSlow(src []byte, fold bool, st *asciiState) (consumed int, out []byte, words int) {
	for _, c := range src {
		if !isPlainASCII(c) {
			break
		}
		cls := asciiClass[c]
		w := cls >> 1 & 1
		words += int(w &^ st.prevWord)
		st.prevWord = w
		if fold {
			if cls&asciiSpace == 0 {
				out = append(out, asciiLower[c])
				st.lastSpace = false
			} else if !st.lastSpace {
				out = append(out, ' ')
				st.lastSpace = true
			}
		}
		consumed++
	}
	return consumed, out, words
}

// randomText is up to 39 bytes drawn mostly from alphabet, a quarter of
// them any byte at all.
func randomText(r *rand.Rand, alphabet []byte) []byte {
	src := make([]byte, r.IntN(40))
	for k := range src {
		src[k] = alphabet[r.IntN(len(alphabet))]
		if r.IntN(4) == 0 {
			src[k] = byte(r.IntN(256))
		}
	}
	return src
}

func TestASCIIRunMatchesByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("aAzZ09 @[`{/:  \t\n&\x00\x7fé-.'")
	for i := 0; i < 50000; i++ {
		src := randomText(r, alphabet)
		for _, fold := range []bool{false, true} {
			start := asciiState{prevWord: uint8(r.IntN(2)), lastSpace: r.IntN(2) == 0}
			fast, slow := start, start
			var dst []byte
			if fold {
				dst = make([]byte, len(src))
			}
			n, k, w := asciiRun(src, dst, &fast)
			n2, out2, w2 := asciiRunSlow(src, fold, &slow)
			if n != n2 || w != w2 || fast != slow || fold && string(dst[:k]) != string(out2) {
				t.Fatalf("asciiRun(%q, fold=%v, %+v) = %d %q %d %+v, want %d %q %d %+v",
					src, fold, start, n, dst[:k], w, fast, n2, out2, w2, slow)
			}
		}
	}
}

// TestASCIIFoldAndWordsMatchByteLoop holds the two halves of asciiRun to
// the byte loop on their own, where they also decide where the run ends.
func TestASCIIFoldAndWordsMatchByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("aAzZ09 @[`{/:  \t\n&\x00\x1f\x7fé-.'\x80\xa0\xff")
	for i := 0; i < 50000; i++ {
		src := randomText(r, alphabet)
		start := asciiState{prevWord: uint8(r.IntN(2)), lastSpace: r.IntN(2) == 0}
		slow := start
		n, out, words := asciiRunSlow(src, true, &slow)

		for _, slack := range []int{0, 8} {
			dst := make([]byte, len(src)+slack)
			fn, k, lastSpace := asciiFold(src, dst, start.lastSpace)
			if fn != n || string(dst[:k]) != string(out) || lastSpace != slow.lastSpace {
				t.Fatalf("asciiFold(%q, %v) = %d %q %v, want %d %q %v", src, start.lastSpace, fn, dst[:k], lastSpace, n, out, slow.lastSpace)
			}
		}
		wn, w, prevWord := asciiWords(src, start.prevWord)
		if wn != n || w != words || prevWord != slow.prevWord {
			t.Fatalf("asciiWords(%q, %d) = %d %d %d, want %d %d %d", src, start.prevWord, wn, w, prevWord, n, words, slow.prevWord)
		}
	}
}

// TestSimpleBlock checks the eight-byte test against every byte value in
// every position.
func TestSimpleBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 200000; i++ {
		var b [8]byte
		for k := range b {
			b[k] = byte(0x20 + r.IntN(0x60))
		}
		if i%2 == 0 {
			b[r.IntN(8)] = byte(r.IntN(256))
		}
		x := uint64(0)
		want := true
		var spaces uint64
		for k := 7; k >= 0; k-- {
			x = x<<8 | uint64(b[k])
			if b[k] < 0x20 || b[k] >= 0x80 || b[k] == '&' {
				want = false
			}
			if b[k] == ' ' {
				spaces |= 0x80 << (8 * k)
			}
		}
		if got := simpleBlock(x); got != want {
			t.Fatalf("simpleBlock(%q) = %v", b[:], got)
		}
		if want && spaceMask(x) != spaces {
			t.Fatalf("spaceMask(%q) = %x, want %x", b[:], spaceMask(x), spaces)
		}
	}
}
