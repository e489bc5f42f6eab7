package anchors

import (
	"fmt"
	"strings"
	"testing"
)

// benchPage is a page of 30 paragraphs of ordinary gear prose.
var benchPage = func() []string {
	base := []string{
		"Read our comparison of leather and synthetic trail boots before you buy, and check the seams for cracks.",
		"Down is rated by fill power, and higher fill power means more warmth for the weight.",
		"To stay warm, choose a bag whose comfort rating matches the coldest night you expect.",
		"Most backpackers carry loads of 20 to 35 pounds, and that extra weight is where supportive hiking boots earn their place.",
		"Canister stoves screw onto a sealed, pressurized canister of isobutane-propane blend and need no priming.",
		"Trekking pole tents replace dedicated poles with the trekking poles you already carry, which can save a pound.",
	}
	var out []string
	for i := range 30 {
		out = append(out, base[i%len(base)])
	}
	return out
}()

func benchTargets(n int) []Target {
	var ts []Target
	for i := range n {
		ts = append(ts, Target{PrimaryKeywords: []string{fmt.Sprintf("trail boots %d", i)},
			Variations: []string{"hiking boots", "camp stoves"}, Title: "Hiking Boots: How to Choose the Right Pair"})
	}
	return ts
}

// BenchmarkReadingAPage compares NewText with the baseline of splitting
// the same paragraphs into their runs of words, which the former natural
// phrases needed and the lexicon's reading adds to.
func BenchmarkReadingAPage(b *testing.B) {
	b.Run("baseline: split into runs of words", func(b *testing.B) {
		for range b.N {
			n := 0
			for _, para := range benchPage {
				for _, run := range strings.FieldsFunc(para, isPhraseBreak) {
					n += len(strings.Fields(run))
				}
			}
			_ = n
		}
	})
	b.Run("NewText", func(b *testing.B) {
		for range b.N {
			NewText(benchPage)
		}
	})
}

// BenchmarkNaturalPhrasesForFiftyTargets is the planner's work for one
// page: anchor candidates for 50 targets, with and without ownership.
func BenchmarkNaturalPhrasesForFiftyTargets(b *testing.B) {
	p := pol()
	text := NewText(benchPage)
	ts := benchTargets(50)
	b.Run("Candidates", func(b *testing.B) {
		for range b.N {
			for _, t := range ts {
				Candidates(t, text, p)
			}
		}
	})
	b.Run("Owners.Candidates", func(b *testing.B) {
		for range b.N {
			own := NewOwners(ts)
			for i := range ts {
				own.Candidates(i, text, p)
			}
		}
	})
}
