package anchors

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
)

// naturalOf is the natural candidates a target is offered in a text.
func naturalOf(t *testing.T, tg Target, text string) []string {
	t.Helper()
	var out []string
	for _, a := range Candidates(tg, NewText([]string{text}), sag(t)) {
		if a.Type == link.AnchorNatural {
			out = append(out, a.Text)
		}
	}
	return out
}

// A cycling-shop trial linked "ride road bikes" to the road-bikes hub: a
// verb between its subject and the noun phrase it governs was read as a
// modifier. No natural phrase starts on such a verb, whether the lexicon
// knows it (the trial's four sentences) or not (the last cases use verbs
// no list holds, so only the subject–verb–object rule refuses them); a
// phrase starting after it is fine.
func TestAVerbBetweenItsSubjectAndItsObjectNeverStartsANaturalPhrase(t *testing.T) {
	roadBikes := Target{PrimaryKeywords: []string{"road bikes"}, Title: "Road Bikes: How to Choose"}
	for _, tc := range []struct {
		name, text, verb string
		target           Target
	}{
		// the trial's sentences
		{"a plural subject's verb the lexicon lacked: ride", "Plenty of commuters ride road bikes, and most of them never race.", "ride", roadBikes},
		{"a sentence-initial plural subject's verb: plant", "Gardeners plant tomato seedlings after the last frost.", "plant",
			Target{PrimaryKeywords: []string{"tomato seedlings"}, Variations: []string{"seedlings"}, Title: "Growing Tomatoes from Seedlings"}},
		{"the verb of 'many of us': prune", "Many of us prune fruit trees in late winter.", "prune",
			Target{PrimaryKeywords: []string{"fruit trees"}, Variations: []string{"trees"}, Title: "Pruning Fruit Trees"}},
		{"a quantified plural subject's verb: pedal", "Most riders pedal carbon road bikes on weekend club runs.", "pedal", roadBikes},
		// verbs no lexicon list holds: the structural rule alone
		{"an unlisted verb after a plural subject", "Keen cooks julienne spring carrots for salads.", "julienne",
			Target{PrimaryKeywords: []string{"spring carrots"}, Variations: []string{"carrots"}}},
		{"an unlisted verb after 'of them'", "Some of them vlog budget travel tips every week.", "vlog",
			Target{PrimaryKeywords: []string{"budget travel tips"}, Variations: []string{"travel tips"}}},
		{"an unlisted verb after an adverb after a plural subject", "Serious riders often lug heavy touring bikes up hills.", "lug",
			Target{PrimaryKeywords: []string{"touring bikes"}, Variations: []string{"bikes"}}},
		{"an unlisted verb before a determiner", "Homeowners reglaze the old bathtub themselves.", "reglaze",
			Target{PrimaryKeywords: []string{"old bathtub"}, Variations: []string{"bathtub"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noPhraseStartsOn(t, tc.target, map[string]string{tc.text: tc.verb})
			for _, np := range nounPhrasesOf(tc.text) {
				if strings.EqualFold(strings.Fields(np)[0], tc.verb) {
					t.Errorf("%q: noun phrase %q starts on the verb %q", tc.text, np, tc.verb)
				}
			}
		})
	}
}

// A recipe trial linked "lactic bacteria raise sourdough bread": a plural
// without an "s" was not read as a subject, so its verb joined the phrase.
// The object alone is the phrase.
func TestTheVerbOfAnIrregularPluralSubjectEndsThePhraseBeforeIt(t *testing.T) {
	for _, tc := range []struct{ text, verb, keyword string }{
		{"Wild yeast and lactic bacteria raise sourdough bread slowly.", "raise", "sourdough bread"},
		{"Airborne fungi spoil homemade jam within weeks.", "spoil", "homemade jam"},
		{"Most larvae damage young cabbage plants.", "damage", "cabbage plants"},
	} {
		target := Target{PrimaryKeywords: []string{tc.keyword}}
		for _, phrase := range append(naturalOf(t, target, tc.text), nounPhrasesOf(tc.text)...) {
			for _, w := range strings.Fields(phrase) {
				if strings.EqualFold(w, tc.verb) {
					t.Errorf("%q: phrase %q holds the verb %q", tc.text, phrase, tc.verb)
				}
			}
		}
	}
}

// Trial F's home page named its sector as "The fitness section collects
// what we do ...": "collects" was read as a plural head, so the phrase
// was "fitness section collects" and named nothing.
func TestAVerbBeforeWhatOrHowEndsTheNounPhraseBeforeIt(t *testing.T) {
	for _, tc := range []struct{ text, verb, keyword, want string }{
		{"The fitness section collects what we do between runs.", "collects", "runner fitness", "fitness section"},
		{"Our budgeting guide explains how to track every expense.", "explains", "budgeting", "budgeting guide"},
	} {
		target := Target{PrimaryKeywords: []string{tc.keyword}}
		got := naturalOf(t, target, tc.text)
		if !slices.Contains(got, tc.want) {
			t.Errorf("%q: natural phrases %q, want %q among them", tc.text, got, tc.want)
		}
		for _, phrase := range nounPhrasesOf(tc.text) {
			if slices.Contains(strings.Fields(strings.ToLower(phrase)), tc.verb) {
				t.Errorf("%q: noun phrase %q holds the verb %q", tc.text, phrase, tc.verb)
			}
		}
	}
}

// What the verb leaves is still offered: the object's own modifiers.
func TestTheObjectAfterASubjectsVerbKeepsItsModifiers(t *testing.T) {
	roadBikes := Target{PrimaryKeywords: []string{"road bikes"}, Title: "Road Bikes: How to Choose"}
	if got := naturalOf(t, roadBikes, "Most riders pedal carbon road bikes on weekend club runs."); !reflect.DeepEqual(got, []string{"carbon road bikes"}) {
		t.Errorf("natural phrases %q, want [carbon road bikes]", got)
	}
	if got := naturalOf(t, roadBikes, "Plenty of commuters ride road bikes."); len(got) != 0 {
		t.Errorf("the bare keyword is a keyword candidate, not a natural phrase: %q", got)
	}
}

// Legitimate modifiers before a head noun still start natural phrases,
// across several sites' vocabularies: numbers and determiners, a
// possessive plural, a plural before a document noun, nouns that are also
// verbs used as modifiers ("water", "paint", "drill", "plant", "ride"), a
// plural-form modifier ("kids"), a brand that looks plural, and a
// singular subject whose "-s" verb the lexicon lacks.
func TestModifiersBeforeTheHeadStillStartNaturalPhrases(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		target     Target
		want       []string
	}{
		{"cycling: a number word before the modifiers", "The shop has three carbon road bikes in stock.",
			Target{PrimaryKeywords: []string{"road bikes"}}, []string{"carbon road bikes"}},
		{"cycling: a demonstrative before an adjective", "Compare these lightweight road bikes before you buy.",
			Target{PrimaryKeywords: []string{"road bikes"}}, []string{"lightweight road bikes"}},
		{"cycling: a plural possessive is a modifier, not a subject", "Look closely at other riders' road bikes at the start.",
			Target{PrimaryKeywords: []string{"road bikes"}}, []string{"riders' road bikes"}},
		{"cycling: a plural before a document noun", "See our road bikes guide for sizing.",
			Target{PrimaryKeywords: []string{"road bikes"}}, []string{"road bikes guide"}},
		{"cycling: 'ride' as a noun modifier", "Steel frames are known for a smooth ride quality on rough roads.",
			Target{PrimaryKeywords: []string{"ride quality"}}, []string{"smooth ride quality"}},
		{"cycling: a plural-form modifier is no subject", "Kids bike helmets come in three sizes.",
			Target{PrimaryKeywords: []string{"helmets"}}, []string{"bike helmets"}},
		{"cycling: a capitalised plural inside a sentence is a name, not a subject", "The classic Brooks leather saddles last for years.",
			Target{PrimaryKeywords: []string{"saddles"}}, []string{"leather saddles"}},
		{"cycling: 'water' as a noun modifier", "Keep a refillable water bottle on the bike.",
			Target{PrimaryKeywords: []string{"water bottle"}}, []string{"refillable water bottle"}},
		{"DIY: 'paint' as a noun modifier", "A soft paint brush leaves fewer marks.",
			Target{PrimaryKeywords: []string{"paint brush"}}, []string{"soft paint brush"}},
		{"DIY: 'drill' as a noun modifier", "You will need new drill bits for tile.",
			Target{PrimaryKeywords: []string{"drill bits"}}, []string{"new drill bits"}},
		{"gardening: 'plant' as a noun modifier opening a sentence", "Terracotta plant pots dry out fast in the sun.",
			Target{PrimaryKeywords: []string{"plant pots"}}, []string{"Terracotta plant pots"}},
		{"gardening: a singular subject's unlisted '-s' verb leaves the object whole", "A gardener prunes old fruit trees in winter.",
			Target{PrimaryKeywords: []string{"fruit trees"}}, []string{"old fruit trees"}},
		{"finance: a compound adjective before a plural head", "For most people low-cost index funds are the simplest start.",
			Target{PrimaryKeywords: []string{"index funds"}}, []string{"low-cost index funds"}},
		{"pets: stacked modifiers", "Grain-free dry dog food costs more than it should.",
			Target{PrimaryKeywords: []string{"dog food"}}, []string{"Grain-free dry dog food"}},
		{"cooking: a participle modifier after a determiner", "The recipe calls for a rested bread dough and some flour.",
			Target{PrimaryKeywords: []string{"bread dough"}}, []string{"rested bread dough"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := naturalOf(t, tc.target, tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%q: natural phrases %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// Where no subject shows the verb (an imperative, "how to", a
// determiner-less clause after "and"), the lexicon's how-to verbs do:
// a phrase does not start on them. Their nouns still modify ("plant
// pots", "water bottle": TestModifiersBeforeTheHeadStillStartNaturalPhrases).
func TestHowToVerbsTheLexiconKnowsNeverStartANaturalPhrase(t *testing.T) {
	for _, tc := range []struct {
		name, text, verb string
		target           Target
	}{
		{"gardening: an imperative", "Prune fruit trees in late winter.", "prune",
			Target{PrimaryKeywords: []string{"fruit trees"}, Variations: []string{"trees"}}},
		{"gardening: after 'how to'", "Learn how to prune young fruit trees.", "prune",
			Target{PrimaryKeywords: []string{"fruit trees"}, Variations: []string{"trees"}}},
		{"cooking: an imperative verb that is rarely a noun", "Knead bread dough for ten minutes.", "knead",
			Target{PrimaryKeywords: []string{"bread dough"}, Variations: []string{"dough"}}},
		{"cycling: after a modal (as before 'ride' was listed)", "You can ride carbon road bikes all year.", "ride",
			Target{PrimaryKeywords: []string{"road bikes"}}},
		{"software: an imperative", "Install browser extensions from the store only.", "install",
			Target{PrimaryKeywords: []string{"browser extensions"}, Variations: []string{"extensions"}}},
		{"pets: a clause after 'and'", "Brush long-haired cats daily and groom long-haired dogs weekly.", "groom",
			Target{PrimaryKeywords: []string{"long-haired dogs"}, Variations: []string{"dogs"}}},
		{"fitness: an imperative of a verb that is also a noun", "Wear light running shoes with a secure fit.", "wear",
			Target{PrimaryKeywords: []string{"running shoes"}}},
		{"fitness: an imperative of 'stretch'", "Stretch tight hamstrings after every run.", "stretch",
			Target{PrimaryKeywords: []string{"tight hamstrings"}, Variations: []string{"hamstrings"}}},
		{"services: an imperative of 'hire'", "Hire licensed electricians for panel work.", "hire",
			Target{PrimaryKeywords: []string{"licensed electricians"}}},
		// a B2B trial's uplink "[assessing audit readiness]": after "when",
		// "by", "before" and the like an "-ing" word opens a clause
		{"B2B: a gerund after 'when'", "Auditors test them first when assessing audit readiness.", "assessing",
			Target{PrimaryKeywords: []string{"audit readiness"}}},
		{"B2B: a gerund after 'by'", "Teams save hours by automating expense reports.", "automating",
			Target{PrimaryKeywords: []string{"expense reports"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noPhraseStartsOn(t, tc.target, map[string]string{tc.text: tc.verb})
		})
	}
}

// A services trial linked "the [cheapest water heater installation]" and
// "usually done [alongside home rewiring]": a superlative grades the
// phrase it would open, and "alongside" is a preposition.
func TestSuperlativesQuantitiesAndPrepositionsOpenNoNaturalPhrase(t *testing.T) {
	for _, tc := range []struct{ text, keyword, want string }{
		{"A heat pump makes it the cheapest water heater installation to run.", "water heater installation", "water heater installation"},
		{"It is the easiest kitchen drain fix of all.", "kitchen drain fix", "kitchen drain fix"},
		{"A panel upgrade is usually done alongside home rewiring, because both open the walls.", "home rewiring", "home rewiring"},
		{"Walk the forest trails at dawn.", "forest trails", "forest trails"},
		// "a little" is a quantity, as "some" is
		{"A little interval training helps even first-time marathoners.", "interval training", "interval training"},
	} {
		got := naturalOf(t, Target{PrimaryKeywords: []string{tc.keyword}}, tc.text)
		for _, phrase := range got {
			if phrase != tc.want && strings.HasSuffix(phrase, tc.want) {
				t.Errorf("%q: natural phrase %q, want %q", tc.text, phrase, tc.want)
			}
		}
		for _, np := range nounPhrasesOf(tc.text) {
			first := strings.ToLower(strings.Fields(np)[0])
			if first == "alongside" {
				t.Errorf("%q: noun phrase %q", tc.text, np)
			}
		}
	}
}

// A services trial linked "[Older houses] are mostly plumbed in copper" to
// "Home Rewiring: A Complete Guide for Older Houses": whom a guide is for
// does not name it.
func TestWhomATitleIsForDoesNotNameThePage(t *testing.T) {
	for _, tc := range []struct{ title, text, refused string }{
		{"Home Rewiring: A Complete Guide for Older Houses", "Older houses are mostly plumbed in copper.", "Older houses"},
		{"A Sizing Guide for Wide Feet", "Wide feet need a roomy toe box.", "Wide feet"},
		{"Sleeping Bags: Ratings for Cold Nights", "Cold nights call for a warmer bag.", "Cold nights"},
	} {
		for _, phrase := range naturalOf(t, Target{Title: tc.title}, tc.text) {
			if strings.EqualFold(phrase, tc.refused) {
				t.Errorf("%q offered %q for %q", tc.text, phrase, tc.title)
			}
		}
	}
	// What the guide is about still names it.
	if got := naturalOf(t, Target{Title: "Home Rewiring: A Complete Guide for Older Houses"}, "Plan the full home rewiring before you plaster."); !slices.Contains(got, "full home rewiring") {
		t.Errorf("the subject of the guide: %q", got)
	}
}

// A services trial linked "many 100 [amp services]" to the page whose
// keyword is "100 amp service": a name's number is a word of it, and the
// rest of the name is no natural phrase of its own.
func TestANameLessItsNumberIsNoNaturalPhrase(t *testing.T) {
	tg := Target{PrimaryKeywords: []string{"200 amp service"}, Variations: []string{"100 amp service"}}
	if got := naturalOf(t, tg, "A small charger fits within many 100 amp services."); len(got) != 0 {
		t.Errorf("natural phrases %q, want none: the keyword is the candidate", got)
	}
	// Another number makes another name: the phrase is still one.
	if got := naturalOf(t, tg, "Old homes ran on 60 amp services for decades."); !slices.Contains(got, "amp services") {
		t.Errorf("natural phrases %q, want %q", got, "amp services")
	}
}

// A services trial suggested "feed heat pumps" for a heat pump product:
// "circuits designed for a radio and a toaster now feed heat pumps" puts
// a time adverb between the subject's phrase and its verb.
func TestAWordAfterATimeAdverbAfterANounIsAVerb(t *testing.T) {
	pumps := Target{PrimaryKeywords: []string{"heat pumps"}, Title: "ThermaCore Heat Pumps"}
	noPhraseStartsOn(t, pumps, map[string]string{
		"Circuits designed for a radio and a toaster now feed heat pumps, induction hobs and a car charger.": "feed",
		"The old fuse box often powers heat pumps badly.":                                                    "powers",
	})
}

// noPhraseStartsOn checks that no natural phrase offered to target in
// each text starts on the text's verb.
func noPhraseStartsOn(t *testing.T, target Target, verbOf map[string]string) {
	t.Helper()
	for text, verb := range verbOf {
		for _, phrase := range naturalOf(t, target, text) {
			if strings.EqualFold(strings.Fields(phrase)[0], verb) {
				t.Errorf("%q: natural phrase %q starts on the verb", text, phrase)
			}
		}
	}
}

// A services trial linked "each [kitchen and bathroom drain]" to the page
// on kitchen drain clogs: the other side of the "and" names another
// thing. Both sides of the target's own names still make one phrase.
func TestACoordinatedPhraseNamesTheTargetOnlyWhenBothSidesDo(t *testing.T) {
	kitchen := Target{PrimaryKeywords: []string{"kitchen drain clogs"}, Title: "Why Your Kitchen Drain Keeps Clogging"}
	for _, phrase := range naturalOf(t, kitchen, "Pour it down each kitchen and bathroom drain once a week.") {
		if strings.Contains(phrase, "bathroom") {
			t.Errorf("natural phrase %q names the bathroom drain too", phrase)
		}
	}
	comparison := Target{PrimaryKeywords: []string{"leather vs synthetic boots"}, Title: "Leather vs Synthetic Trail Boots"}
	if got := naturalOf(t, comparison, "Read our comparison of leather and synthetic trail boots."); !slices.Contains(got, "leather and synthetic trail boots") {
		t.Errorf("the comparison was offered %q", got)
	}
}

// A silo trial's home page linked "the [Stripe integration]" to the
// sector page "Ledgerly Integrations": the brand "Ledgerly" was read as an
// "-ly" adverb, so the title's one content word was "integrations". A
// capitalised "-ly" word where no sentence starts is a name.
func TestABrandEndingInLyIsANameNotAnAdverb(t *testing.T) {
	sector := Target{Title: "Ledgerly Integrations"}
	if got := naturalOf(t, sector, "Every plan includes the Stripe integration at no cost."); len(got) != 0 {
		t.Errorf("the sector page was offered %q", got)
	}
	if got := naturalOf(t, sector, "Try the new Ledgerly integrations today."); !slices.Contains(got, "new Ledgerly integrations") {
		t.Errorf("the sector page was offered %q, want its own name in the text", got)
	}
}

// A silo trial linked "the same way you [record accrued expenses]":
// second-person documentation puts its verbs after "you". After a verb,
// "you" is an object and a noun phrase may follow it.
func TestAWordAfterASubjectYouIsItsVerb(t *testing.T) {
	accruals := Target{PrimaryKeywords: []string{"accrued expenses"}, Title: "Accrued Expenses"}
	noPhraseStartsOn(t, accruals, map[string]string{
		"Post payroll the same way you record accrued expenses at month end.": "record",
		"When you reclass accrued expenses, keep the memo.":                   "reclass",
	})
	boots := Target{PrimaryKeywords: []string{"hiking boots"}, Title: "Hiking Boots"}
	if got := naturalOf(t, boots, "It gives you leather hiking boots that last."); !slices.Contains(got, "leather hiking boots") {
		t.Errorf("after a verb, 'you' is an object: got %q", got)
	}
}

// A pet-care trial linked "[form hairballs]" in "hair that would otherwise
// be swallowed and form hairballs": the second of two verbs an "and"
// joins was read as a modifier. It never starts a natural phrase, and the
// same word after a determiner or before a noun is still a noun.
func TestTheSecondOfTwoJoinedVerbsNeverStartsANaturalPhrase(t *testing.T) {
	hairballs := Target{PrimaryKeywords: []string{"cat hairballs"}, Variations: []string{"hairballs"}, Title: "Cat Hairballs: Causes and Prevention"}
	noPhraseStartsOn(t, hairballs, map[string]string{
		"Regular brushing removes loose hair that would otherwise be swallowed and form hairballs.": "form",
		"Cats groom themselves and form hairballs in their stomachs.":                               "form",
		"Loose fur can clump and form hairballs quickly.":                                           "form",
	})
	for text, want := range map[string]string{
		"The compact form factor of this feeder suits small kitchens.": "compact form factor",
		"Fill in the adoption form and bring it to the shelter.":       "adoption form",
	} {
		if got := nounPhrasesOf(text); !slices.Contains(got, want) {
			t.Errorf("%q: noun phrases %q, want one %q", text, got, want)
		}
	}
}
