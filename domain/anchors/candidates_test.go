package anchors

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

func TestPreferredTypesComeOutInThePolicysMix(t *testing.T) {
	sag, _ := policy.Default(policy.SAG)
	// A mix other than the default shows the draw follows the policy's
	// shares rather than numbers of its own.
	titles := sag
	titles.AnchorSharePrimary, titles.AnchorShareTitle, titles.AnchorShareNatural = 0.2, 0.5, 0.3
	const pairs = 20000
	for _, p := range []policy.Policy{sag, titles} {
		counts := map[link.AnchorType]int{}
		drawn := make([]link.AnchorType, pairs)
		for i := range pairs {
			drawn[i] = PreferredType(p, fmt.Sprintf("article-%d", i), "hub-boots")
			counts[drawn[i]]++
		}
		for typ, want := range map[link.AnchorType]float64{
			link.AnchorPrimaryKeyword: p.AnchorSharePrimary, link.AnchorPageTitle: p.AnchorShareTitle, link.AnchorNatural: p.AnchorShareNatural,
		} {
			if got := float64(counts[typ]) / pairs; math.Abs(got-want) > 0.02 {
				t.Errorf("mix %.1f/%.1f/%.1f: %s drawn for %.3f of links, want %.2f",
					p.AnchorSharePrimary, p.AnchorShareTitle, p.AnchorShareNatural, typ, got, want)
			}
		}
		// The same pair draws the same type whenever it is asked, in any
		// order: drawing again, last pair first, changes nothing.
		for i := pairs - 1; i >= 0; i-- {
			if again := PreferredType(p, fmt.Sprintf("article-%d", i), "hub-boots"); again != drawn[i] {
				t.Fatalf("article-%d drew %s, then %s", i, drawn[i], again)
			}
		}
	}
}

func TestCandidatesFollowTheSeedsOrderWithShortTitleAndNaturalPhrases(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	// "leather boots and check the boots", the natural phrase this text
	// used to give, crosses a clause ("and check the"): the noun phrase
	// "Sturdy leather hiking boots" of the second paragraph is the natural
	// phrase ("leather boots" in the first is the keyword itself).
	texts := []string{"Before a long trip, waterproof | your leather boots and check the boots for cracks.",
		"Sturdy leather hiking boots last for years."}
	got := Candidates(Target{
		PrimaryKeywords: []string{"leather hiking boots"},
		Variations:      []string{"Leather Hiking Boots", "leather boots"},
		Title:           "Leather Boots: Care and Repair",
	}, NewText(texts), p)
	want := []link.Anchor{
		{Text: "leather hiking boots", Type: link.AnchorPrimaryKeyword},
		{Text: "leather boots", Type: link.AnchorPrimaryKeyword},
		{Text: "Leather Boots: Care and Repair", Type: link.AnchorPageTitle},
		{Text: "Sturdy leather hiking boots", Type: link.AnchorNatural},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates\n%+v\nwant\n%+v", got, want)
	}
}

func TestNaturalPhrasesNeverCrossPunctuationOrTags(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	// "running on a trail", the phrase this text used to give, is no noun
	// phrase (a verb form and a preposition); "Running trail shoes" is.
	got := NaturalPhrases(NewText([]string{"trail | running on the, shoes. Running trail shoes; running on a trail"}), []string{"trail running shoes"}, p)
	if !reflect.DeepEqual(got, []string{"Running trail shoes"}) {
		t.Errorf("phrases %q", got)
	}
}

// A trial's French cooking site linked its coq au vin hub as "coq [au
// vin]": the marinade article said "the classic <em>coq</em> au vin and red
// wine marinade", and the words after the tag, read alone, gave "au vin"
// as a noun phrase. A phrase a tag cuts is a fragment, and so is any part
// of it; a phrase within one element still comes out.
func TestANounPhraseATagCutsGivesNoNaturalPhrase(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	text := NewText([]string{
		// markup.ParagraphTexts of "... the classic <em>coq</em> au vin and red wine marinade behave ..."
		"Done well, the classic | coq | au vin and red wine marinade behave the same way in the pot.",
	})
	if got := NaturalPhrases(text, []string{"coq au vin"}, p); len(got) != 0 {
		t.Errorf("phrases %q from a name a tag cuts, want none", got)
	}
	whole := NewText([]string{"We cook it slowly, and | our guide to braised coq au vin | explains why the pot matters."})
	if got := NaturalPhrases(whole, []string{"coq au vin"}, p); !reflect.DeepEqual(got, []string{"braised coq au vin", "guide to braised coq au vin"}) {
		t.Errorf("phrases %q within one element, want [braised coq au vin, guide to braised coq au vin]", got)
	}
}

// A fourteenth trial site linked "[the 50/30/20 rule]" by its short title,
// and a French trial "[le beurre blanc nantais]" by its whole title.
func TestATitleCandidateDoesNotOpenOnAnArticle(t *testing.T) {
	tg := Target{PrimaryKeywords: []string{"zero-based budget"}, Title: "The 50/30/20 Rule: A Simple Budget for Busy People"}
	var titles []string
	for _, a := range Candidates(tg, nil, sag(t)) {
		if a.Type == link.AnchorPageTitle {
			titles = append(titles, a.Text)
		}
	}
	want := []string{"50/30/20 Rule: A Simple Budget for Busy People", "50/30/20 Rule"}
	if !reflect.DeepEqual(titles, want) {
		t.Errorf("title candidates %q, want %q", titles, want)
	}
}

// A French trial's title anchors opened on their articles ("[la pâte
// brisée]"): a short title drops the article of the site's language.
func TestTitleCandidatesDropTheArticleOfTheSitesLanguage(t *testing.T) {
	french := sag(t)
	french.Language = "french"
	for title, want := range map[string][]string{
		"La pâte brisée : la recette de base":    {"pâte brisée : la recette de base", "pâte brisée"},
		"L’huile d’olive : choisir et conserver": {"huile d’olive : choisir et conserver", "huile d’olive"},
		"L'huile d'olive : choisir et conserver": {"huile d'olive : choisir et conserver", "huile d'olive"},
		"Les fromages de Savoie : un tour":       {"fromages de Savoie : un tour", "fromages de Savoie"},
		"Lait cru : ce que dit la loi":           {"Lait cru : ce que dit la loi", "Lait cru"},
		// a question clause joined by "et" is cut off, as in its crumb
		"Les erreurs courantes du feuilletage et comment les éviter": {
			"erreurs courantes du feuilletage et comment les éviter", "erreurs courantes du feuilletage"},
	} {
		var got []string
		for _, a := range Candidates(Target{Title: title}, nil, french) {
			if a.Type == link.AnchorPageTitle {
				got = append(got, a.Text)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("French title %q: title candidates %q, want %q", title, got, want)
		}
	}
	// English keeps a French article, which there opens a name.
	var got []string
	for _, a := range Candidates(Target{Title: "Le Creuset Dutch Ovens: A Buyer's Guide"}, nil, sag(t)) {
		if a.Type == link.AnchorPageTitle {
			got = append(got, a.Text)
		}
	}
	if want := []string{"Le Creuset Dutch Ovens: A Buyer's Guide", "Le Creuset Dutch Ovens"}; !slices.Equal(got, want) {
		t.Errorf("English title candidates %q, want %q", got, want)
	}
}

func TestAShortTitleDropsTheSubtitleTheQuestionsAnswerAndTheAside(t *testing.T) {
	for title, want := range map[string]string{
		"Sleeping Pads: How R-Value Works":                             "Sleeping Pads",
		"Trail Runners – A Buyer's Guide":                              "Trail Runners",
		"Why Does My Compost Smell? Fixing a Smelly Heap":              "Why Does My Compost Smell?",
		"Pains au chocolat ou chocolatines ? Recette et querelle":      "Pains au chocolat ou chocolatines ?",
		"Pains au chocolat ou chocolatines\u00a0? Recette et querelle": "Pains au chocolat ou chocolatines\u00a0?",
		"How to Prune Tomato Plants (and When Not To)":                 "How to Prune Tomato Plants",
		"Is Raised Bed Gardening Worth It?":                            "",
		"Hiking Boots":                                                 "",
		"(Almost) Everything About Mulch":                              "",
		"Cover Crops and Living Mulch (Green Manure) Explained":        "",
		// a colon between digits is a ratio or a time, no subtitle's
		"1:1 Running Coaching":               "",
		"The 5:2 Diet: What the Studies Say": "The 5:2 Diet",
		"10:30 Tempo Runs":                   "",
		": A Title That Opens on Its Colon":  "",
	} {
		if got := ShortTitle(title); got != want {
			t.Errorf("ShortTitle(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestAMainClauseEndsBeforeAClauseOfItsOwnOrWhomTheTitleIsFor(t *testing.T) {
	for title, want := range map[string]string{
		"How to Find a Hidden Water Leak Before It Finds Your Ceiling": "How to Find a Hidden Water Leak",
		"When to Call an Emergency Electrician, and When It Can Wait":  "When to Call an Emergency Electrician",
		"How to Size a Water Heater for Your Household":                "How to Size a Water Heater",
		"Why Old Wiring Fails, Which Signs Come First":                 "Why Old Wiring Fails",
		// the conjunction that joins the clause stays with it
		"Choosing Trail Running Shoes and When to Replace Them": "Choosing Trail Running Shoes",
		// a comma in a list, and a cut that would leave too few words
		"How to Choose Kayak Length, Width, and Cockpit Fit": "",
		"Boots for Every Season and Trail":                   "",
		"How Long a Pair of Good Boots Should Last You":      "",
		// two prepositions paired by a conjunction open no clause
		"Should You Stretch Before or After Running?": "",
		// a complement after three words (an automotive trial's long
		// titles stayed whole, the README saying three)
		"One-Person Brake Bleeding With a Vacuum Bleeder": "One-Person Brake Bleeding",
		"Air Filter Intervals on Dusty and Gravel Roads":  "Air Filter Intervals",
		// a question keeps its mark, and is not cut at a complement
		"Why Is the Battery Light On When the Engine Runs?":       "Why Is the Battery Light On?",
		"Should You Replace the Water Pump With the Timing Belt?": "",
		// nor at a verb's complement, which the cut would leave dangling
		// (a personal-finance trial's crumb read "Where to Keep Money
		// You're Saving")
		"Where to Keep Money You're Saving for a House":      "",
		"A Short Guide to Paying for College Without Loans":  "A Short Guide to Paying for College",
		"Ten Costs We Are Planning for in a Kitchen Remodel": "",
		"How to Size a Water Heater for a Household of Four": "How to Size a Water Heater",
	} {
		if got := MainClause(title); got != want {
			t.Errorf("MainClause(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestNamesShareAContentWordNotAFunctionWord(t *testing.T) {
	for _, c := range []struct {
		a, b []string
		want bool
	}{
		{[]string{"Dialing In Espresso"}, []string{"How Long Does Cold Brew Keep in the Fridge?"}, false},
		{[]string{"espresso tamping"}, []string{"Cold Brew Coffee: Steeping at Home"}, false},
		{[]string{"Espresso at Home"}, []string{"Cold Brew Coffee at Home"}, true},
		{[]string{"Caring For Leather Hiking Boots"}, []string{"Fitting Insoles Into Leather Boots"}, true},
		{[]string{"V60 technique"}, []string{"Chemex vs V60"}, true},
		{nil, []string{"anything"}, false},
	} {
		if got := NewContentWords(c.a, "").SharedBy(c.b); got != c.want {
			t.Errorf("NewContentWords(%q).SharedBy(%q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// A German trial's Related Reading paired articles that shared only "die",
// "im" and "für": the site's language gives its function words.
func TestNamesShareAContentWordOfTheSitesLanguage(t *testing.T) {
	own := NewContentWords([]string{"Das Hochbeet im Herbst", "Hochbeet für Anfänger"}, "german")
	if own.SharedBy([]string{"Balkontomaten im Topf", "Tomaten für den Balkon"}) {
		t.Error("German names sharing \"im\" and \"für\" share a content word")
	}
	// a bike trial: a preposition joined to its article
	if NewContentWords([]string{"Fahrradtasche fürs Büro"}, "german").SharedBy([]string{"Das richtige Schloss fürs Fahrrad"}) {
		t.Error("German names sharing \"fürs\" share a content word")
	}
	if !own.SharedBy([]string{"Tomaten im Hochbeet"}) {
		t.Error("German names sharing \"Hochbeet\" share no content word")
	}
}

// A Spanish pets trial's Related Reading paired articles on their "guía"
// and "consejos": the words that say what kind of page it is are the
// site's language's.
func TestAKindOfPageWordNamesNoTopicInTheSitesLanguage(t *testing.T) {
	for _, c := range []struct {
		language string
		a, b     string
		want     bool
	}{
		{"spanish", "Guía completa del pienso para gatos", "Consejos y guía para adiestrar a tu perro", false},
		{"spanish", "Recetas caseras fáciles para perros", "Las mejores recetas para gatos", false},
		{"spanish", "Guía del pienso para gatos", "Pienso húmedo o seco", true},
		{"french", "Guide complet de l'isolation des combles", "Les meilleurs conseils et astuces : guide de la peinture", false},
		{"french", "Isoler sa maison par l'extérieur", "Rénover une maison ancienne", true},
		{"german", "Hochbeet anlegen: Anleitung und Tipps", "Tomaten pflanzen: Tipps für Anfänger", false},
		{"italian", "Guida completa all'orto sul balcone", "Consigli e guida per il prato", false},
		{"portuguese", "Guia completo de jardinagem: dicas", "Dicas para a horta: guia", false},
		{"english", "The Complete Guide to Sourdough", "Beginner's Guide to Pizza Dough", false},
		// a gardening trial: what a how-to title does is no topic
		{"english", "Growing Basil in Pots", "How to Keep Mint From Taking Over the Growing Bed", false},
		{"english", "Growing Basil in Pots", "Basil Pesto From the Garden", true},
		// a parenting trial: how a thing is gone about is no topic
		{"english", "The Three-Day Potty Training Method", "Ferber vs. Chair Method", false},
		{"english", "When Is Your Baby Ready for Solids?", "Readiness Signs: Is My Toddler Ready for the Potty?", false},
		// a SaaS trial: a page's format is no topic
		{"english", "Sprint Planning Template", "Status Report Template", false},
		// an Italian trial: question words, numbers and what a traveller does
		{"italian", "Cosa mangiare in Puglia", "Cosa vedere in Sicilia", false},
		{"italian", "Val d'Orcia in tre giorni", "Palermo in tre giorni", false},
		{"italian", "Dove dormire sulle Dolomiti", "Dove dormire in Valle d'Itria", false},
		{"italian", "Cosa mangiare in Puglia", "Le orecchiette della Puglia", true},
	} {
		if got := NewContentWords([]string{c.a}, c.language).SharedBy([]string{c.b}); got != c.want {
			t.Errorf("%s: NewContentWords(%q).SharedBy(%q) = %v, want %v", c.language, c.a, c.b, got, c.want)
		}
	}
}

// A docs trial's model proposed "of your database backups", "from schema
// migrations" and "the cheapest database monitoring" as anchors, and they
// were placed: a phrase framed by a function word or opening on a grading
// word is no anchor.
func TestAModelsPhraseFramedByAFunctionWordOrAGradeIsRefused(t *testing.T) {
	for phrase, refused := range map[string]bool{
		"of your database backups":         true,
		"from schema migrations":           true,
		"the cheapest database monitoring": true,
		"best trail shoes":                 true,
		"eye on replication lag":           false,
		"streaming replication setup":      false,
		"database monitoring for":          true,
	} {
		if got := FramesPhrase(phrase, ""); got != refused {
			t.Errorf("FramesPhrase(%q) = %v, want %v", phrase, got, refused)
		}
	}
	if !FramesPhrase("im Hochbeet", "german") || FramesPhrase("Tomaten im Hochbeet", "german") {
		t.Error("a German phrase opening on \"im\" is framed by a function word; one opening on a noun is not")
	}
}

// A German trial's audit suggested writing in "Hochbeet-Bausatz aus
// Lärchenholz, 120 x 80 cm": a product's size is no part of its name.
func TestATitleCandidateLeavesOutTheSizeAProductTitleEndsOn(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	got := Candidates(Target{PrimaryKeywords: []string{"Hochbeet Bausatz"}, Title: "Hochbeet-Bausatz aus Lärchenholz, 120 x 80 cm"}, nil, p)
	var titles []string
	for _, c := range got {
		if c.Type == link.AnchorPageTitle {
			titles = append(titles, c.Text)
		}
	}
	if !slices.Equal(titles, []string{"Hochbeet-Bausatz aus Lärchenholz"}) {
		t.Errorf("title candidates %q, want the name without its size", titles)
	}
}

// A Spanish trial's hub said "cuánto debe comer un perro al día" of the
// article "¿Cuánto debe comer un perro al día?" and linked nothing: a
// question is said without its marks. And "¿Por qué mi perro ladra
// tanto? Causas y cómo corregirlo" offered "¿Por qué mi perro ladra
// tanto? Causas", the subtitle's first word kept.
func TestATitleCandidateIsItsQuestionWithoutItsMarks(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	p.Language = "spanish"
	titles := func(tg Target) []string {
		var out []string
		for _, c := range Candidates(tg, nil, p) {
			if c.Type == link.AnchorPageTitle {
				out = append(out, c.Text)
			}
		}
		return out
	}
	if got := titles(Target{Title: "¿Cuánto debe comer un perro al día?", Language: "spanish"}); !slices.Equal(got, []string{"Cuánto debe comer un perro al día"}) {
		t.Errorf("title candidates %q", got)
	}
	// A question inside a title keeps both its marks.
	for _, title := range []string{"Tipos de arena para gatos: ¿cuál elegir?", "Pienso o comida casera: ¿qué conviene a tu perro?"} {
		if got := titles(Target{Title: title, Language: "spanish"}); !slices.Contains(got, title) {
			t.Errorf("title candidates %q, want the title whole", got)
		}
	}
	got := titles(Target{Title: "¿Por qué mi perro ladra tanto? Causas y cómo corregirlo", Language: "spanish"})
	if !slices.Contains(got, "Por qué mi perro ladra tanto") || slices.ContainsFunc(got, func(s string) bool { return strings.HasSuffix(s, "Causas") }) {
		t.Errorf("title candidates %q, want the question without its marks and no subtitle's first word", got)
	}
}
