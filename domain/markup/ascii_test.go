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

func TestASCIIRunMatchesByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("aAzZ09 @[`{/:  \t\n&\x00\x7fé-.'")
	for i := 0; i < 50000; i++ {
		src := make([]byte, r.IntN(40))
		for k := range src {
			src[k] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(4) == 0 {
				src[k] = byte(r.IntN(256))
			}
		}
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
