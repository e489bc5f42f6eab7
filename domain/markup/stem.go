package markup

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// stemmer reduces a folded word to its stem, so that "boots" and "boot",
// "running" and "run" match each other.
type stemmer struct {
	fn func(word string, stemStopWords bool) string
}

func stemmerFor(lang string) (*stemmer, error) {
	var fn func(string, bool) string
	switch strings.ToLower(lang) {
	case "none":
		return nil, nil
	case "english", "en":
		fn = english.Stem
	case "spanish", "es":
		fn = spanish.Stem
	case "french", "fr":
		fn = french.Stem
	case "russian", "ru":
		fn = russian.Stem
	case "swedish", "sv":
		fn = swedish.Stem
	case "norwegian", "no", "nb":
		fn = norwegian.Stem
	case "hungarian", "hu":
		fn = hungarian.Stem
	default:
		return nil, fmt.Errorf("%w: no stemmer for language %q", ErrBadRequest, lang)
	}
	return &stemmer{fn: fn}, nil
}

// stem never lets a stemmer's panic escape: on odd input the word is its own
// stem, which only means no variation is found.
func (s *stemmer) stem(w string) (out string) {
	defer func() {
		if recover() != nil {
			out = w
		}
	}()
	return s.fn(w, true)
}

// stemmedPhrase is an anchor as a run of word stems and the exact separators
// between them.
type stemmedPhrase struct {
	literal string // the folded anchor
	words   []string
	gaps    []string
	prefix  string // what the first word and its stem share: every inflection starts so
	// firstStem is the stem of words[0]. The others are stemmed only when
	// the page has the words before them (placer.matchStems).
	firstStem string
}

// stemPhrase prepares a folded anchor for variation matching. Phrases that
// do not start and end with a letter or digit are matched literally only.
func (s *stemmer) stemPhrase(folded string) *stemmedPhrase {
	first, _ := utf8.DecodeRuneInString(folded)
	last, _ := utf8.DecodeLastRuneInString(folded)
	if !isWordRune(first) || !isWordRune(last) {
		return nil
	}
	sp := &stemmedPhrase{literal: folded}
	start, gapStart := -1, 0
	for i := 0; i <= len(folded); {
		r, size := rune(0), 1
		if i < len(folded) {
			r, size = utf8.DecodeRuneInString(folded[i:])
		}
		if i < len(folded) && isWordRune(r) {
			if start < 0 {
				start = i
				if len(sp.words) > 0 {
					sp.gaps = append(sp.gaps, folded[gapStart:i])
				}
			}
		} else if start >= 0 {
			word := folded[start:i]
			if len(sp.words) == 0 {
				stem := s.stem(word)
				n := 0
				for n < len(word) && n < len(stem) && word[n] == stem[n] {
					n++
				}
				for n > 0 && n < len(word) && !utf8.RuneStart(word[n]) {
					n-- // keep whole characters
				}
				sp.prefix, sp.firstStem = word[:n], stem
			}
			sp.words = append(sp.words, word)
			start, gapStart = -1, i
		}
		i += size
	}
	if sp.prefix == "" {
		return nil // no common ground between word and stem to search for
	}
	return sp
}
