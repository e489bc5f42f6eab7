package anchors

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

func sag(t *testing.T) policy.Policy {
	t.Helper()
	p, err := policy.Default(policy.SAG)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// nounPhrasesOf is every noun phrase the chunker reads in a text, before
// any target or word range is applied.
func nounPhrasesOf(text string) []string {
	var out []string
	for _, np := range NewText([]string{text}).phrases {
		out = append(out, np.text())
	}
	return out
}

// The four fragments the bundled demo produced, given the sentences they
// came from: none of them comes out again, and what does come out is a
// noun phrase naming the target.
func TestTheDemosFragmentsAreNoLongerNaturalPhrases(t *testing.T) {
	for _, tc := range []struct {
		name     string
		text     string
		targets  []Target
		fragment string
		want     [][]string // per target
	}{
		{
			name: "a clause crossing 'that gives' is refused; one-word noun phrases are too short",
			text: "Without care, leather loses the structure that gives a boot its support.",
			targets: []Target{
				{PrimaryKeywords: []string{"leather boot care"}, Variations: []string{"leather boots"}, Title: "Leather Boot Care: How to Keep Leather Supple"},
				{PrimaryKeywords: []string{"boot support"}, Variations: []string{"ankle support"}, Title: "Boot Support Explained"},
			},
			fragment: "leather loses the structure that gives a boot",
			want:     [][]string{nil, nil},
		},
		{
			name:     "a clause ending on a preposition cut before its noun is refused; the noun phrase 'fill power' is whole",
			text:     "Down is rated by fill power, and higher fill power means more warmth for the weight.",
			targets:  []Target{{PrimaryKeywords: []string{"down fill power"}, Title: "Down Fill Power Explained"}},
			fragment: "Down is rated by fill",
			want:     [][]string{{"fill power", "higher fill power"}},
		},
		{
			name:     "a relative clause cut inside 'comfort rating' is refused; the noun phrase after 'whose' is kept",
			text:     "To stay warm, choose a bag whose comfort rating matches the coldest night you expect.",
			targets:  []Target{{PrimaryKeywords: []string{"sleeping bag comfort rating"}, Title: "Sleeping Bag Comfort Ratings"}},
			fragment: "bag whose comfort",
			want:     [][]string{{"comfort rating"}},
		},
		{
			name: "the comparison's phrase is a whole coordinated noun phrase, without 'comparison of'",
			text: "Read our comparison of leather and synthetic trail boots before you buy.",
			targets: []Target{
				{PrimaryKeywords: []string{"leather vs synthetic boots"}, Title: "Leather vs Synthetic Trail Boots: Which Should You Buy?"},
				{PrimaryKeywords: []string{"waterproof trail boots"}, Variations: []string{"clean leather boots"}, Title: "How to Clean and Waterproof Trail Boots"},
			},
			fragment: "comparison of leather and synthetic trail boots",
			// The cleaning article's names hold "leather" but not
			// "synthetic": for it the phrase names another thing too.
			want: [][]string{{"leather and synthetic trail boots"}, nil},
		},
		// trial 13: "dairy" of "dairy-free" counted as a word of the name
		{
			name:     "a compound ending on -free is not its first part: dairy butter does not name dairy-free butter",
			text:     "They now cream almost like dairy butter, though they vary in water content.",
			targets:  []Target{{PrimaryKeywords: []string{"plant-based butter"}, Variations: []string{"vegan butter", "dairy-free butter"}, Title: "Choosing Plant-Based Butter for Baking"}},
			fragment: "dairy butter",
			want:     [][]string{nil},
		},
		// an eighth trial site's sibling link named two things
		{
			name:     "a coordinated phrase whose first conjunct is no word of the target's names keeps the second",
			text:     "More play and indoor cat enrichment usually calm it down.",
			targets:  []Target{{PrimaryKeywords: []string{"cat enrichment"}, Title: "Cat Enrichment Ideas"}},
			fragment: "play and indoor cat enrichment",
			want:     [][]string{{"indoor cat enrichment"}},
		},
		// a fifteenth trial site linked half of a comparison
		{
			name:     "a comparison is one phrase: its first half is no phrase",
			text:     "Our comparison of couchette vs sleeper berths weighs price against sleep.",
			targets:  []Target{{PrimaryKeywords: []string{"couchette vs sleeper"}, Variations: []string{"couchettes"}, Title: "Couchette or Sleeper?"}},
			fragment: "comparison of couchette",
			want:     [][]string{nil},
		},
		{
			name:     "nor its second half; the whole comparison headed by a document noun is one",
			text:     "Before you book, see our couchette vs sleeper comparison for prices.",
			targets:  []Target{{PrimaryKeywords: []string{"couchette vs sleeper"}, Title: "Couchette or Sleeper?"}},
			fragment: "sleeper comparison",
			want:     [][]string{{"couchette vs sleeper comparison"}},
		},
		{
			name:     "'book' after 'to' is a verb, not the front of a noun phrase",
			text:     "The hub explains how to book night trains from Vienna to Venice.",
			targets:  []Target{{PrimaryKeywords: []string{"european night trains"}, Title: "Night Trains"}},
			fragment: "book night trains",
			want:     [][]string{nil},
		},
		// a fourteenth trial site's uplink cut "most powerful" in two
		{
			name:     "a phrase does not start on an adjective that a superlative grades",
			text:     "A car fund is the most flexible holiday travel fund a family can run.",
			targets:  []Target{{PrimaryKeywords: []string{"travel fund"}, Title: "Travel Funds"}},
			fragment: "flexible holiday travel fund",
			want:     [][]string{{"holiday travel fund"}},
		},
		{
			name:     "nor on one a degree adverb grades",
			text:     "It is a really cheap holiday travel fund to keep.",
			targets:  []Target{{PrimaryKeywords: []string{"travel fund"}, Title: "Travel Funds"}},
			fragment: "cheap holiday travel fund",
			want:     [][]string{{"holiday travel fund"}},
		},
		{
			name:     "a graded adjective that is a word of the target's name starts the phrase",
			text:     "If you are building from a very low income, small transfers still add up.",
			targets:  []Target{{PrimaryKeywords: []string{"emergency fund on a low income"}, Title: "Building an Emergency Fund on a Low Income"}},
			fragment: "income",
			want:     [][]string{{"low income"}},
		},
		{
			name:     "'most' counting a noun without an article leaves the phrase whole",
			text:     "Most flexible holiday travel funds fail in their first year.",
			targets:  []Target{{PrimaryKeywords: []string{"travel fund"}, Title: "Travel Funds"}},
			fragment: "holiday travel funds",
			want:     [][]string{{"flexible holiday travel funds"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := sag(t)
			text := NewText([]string{tc.text})
			for i, tg := range tc.targets {
				var natural []string
				for _, a := range Candidates(tg, text, p) {
					if a.Type == link.AnchorNatural {
						natural = append(natural, a.Text)
					}
				}
				for _, phrase := range natural {
					if Normalize(phrase) == Normalize(tc.fragment) {
						t.Errorf("target %d: the fragment %q is still a natural phrase", i, tc.fragment)
					}
				}
				if !reflect.DeepEqual(natural, tc.want[i]) {
					t.Errorf("target %d (%s): natural phrases %q, want %q", i, tg.Title, natural, tc.want[i])
				}
			}
		})
	}
}

func TestAPhraseIsOwnedByTheTargetItNamesBest(t *testing.T) {
	comparison := Target{PrimaryKeywords: []string{"leather vs synthetic boots"}, Title: "Leather vs Synthetic Trail Boots: Which Should You Buy?"}
	cleaning := Target{PrimaryKeywords: []string{"waterproof trail boots"}, Variations: []string{"clean leather boots"}, Title: "How to Clean and Waterproof Trail Boots"}
	bags := Target{PrimaryKeywords: []string{"sleeping bags"}, Title: "Sleeping Bags: A Complete Guide"}
	ratings := Target{PrimaryKeywords: []string{"sleeping bag comfort rating"}, Variations: []string{"comfort rating"}, Title: "Sleeping Bag Temperature Ratings Explained"}
	hub := Target{PrimaryKeywords: []string{"hiking boots"}, Variations: []string{"boots"}, Title: "Hiking Boots: How to Choose"}
	trailHub := Target{PrimaryKeywords: []string{"trail boots"}, Title: "Trail Boots"}
	coldWeather := Target{PrimaryKeywords: []string{"cold-weather cooking"}, Variations: []string{"winter stove", "inverted canister"}, Title: "Cold-Weather Cooking"}
	for _, tc := range []struct {
		name    string
		phrase  string
		targets []Target
		want    int
	}{
		{"the comparison owns its coordinated phrase, listed second", "leather and synthetic trail boots", []Target{cleaning, comparison}, 1},
		{"the comparison owns its coordinated phrase, listed first", "leather and synthetic trail boots", []Target{comparison, cleaning}, 0},
		{"the care article owns the phrase about waterproofing", "waterproof leather trail boots", []Target{comparison, cleaning}, 1},
		{"the ratings article owns 'comfort rating' over the bags hub", "higher comfort rating", []Target{bags, ratings}, 1},
		{"a phrase whose head names no target has no owner", "coldest night", []Target{bags, ratings, hub}, -1},
		{"a keyword word as a modifier does not name a target", "boot laces", []Target{hub, cleaning}, -1},
		{"words of two different names do not add up", "canister stoves", []Target{coldWeather}, -1},
		{"the hub owns a phrase that holds its one-word keyword", "sturdy boots", []Target{cleaning, hub}, 1},
		{"the target with a word of the phrase its rival lacks wins", "synthetic trail boots", []Target{cleaning, comparison}, 1},
		{"the name covered most closely wins when all words are found", "trail boots", []Target{cleaning, trailHub}, 1},
		{"a tie names neither page", "trail boots", []Target{cleaning, cleaning}, -1},
		// an automotive trial: "[warning light]" went to the first of the
		// pages on a kind of warning light
		{"a phrase two names hold alike names neither page", "warning light",
			[]Target{{PrimaryKeywords: []string{"battery warning light"}, Title: "Battery Warning Light"},
				{PrimaryKeywords: []string{"oil warning light"}, Title: "Oil Warning Light"}}, -1},
		// a third trial site's wrong targets
		{"words of two phrases of one title do not add up", "two-income family",
			[]Target{{PrimaryKeywords: []string{"insurance"}, Title: "Insurance: Protecting Your Income, Health and Family"}}, -1},
		{"a name's opening word counts even where it is a preposition elsewhere", "monthly debt payments",
			[]Target{{PrimaryKeywords: []string{"down payment"}, Title: "Saving for a Down Payment"}}, -1},
		// a fourth trial site's wrong target: "leaves" ended the name as a verb
		{"a name's last plural is its head, though the lexicon knows it as a verb", "eating salad",
			[]Target{{PrimaryKeywords: []string{"salad greens"}, Variations: []string{"salad leaves"}}}, -1},
		{"the target with a name of just the phrase's words wins a tie", "filling raised beds",
			[]Target{{PrimaryKeywords: []string{"raised beds"}, Title: "Raised Beds: Building, Filling and Planting a Raised Garden"},
				{PrimaryKeywords: []string{"raised bed soil mix"}, Variations: []string{"filling a raised bed"}}}, 1},
		// a fifth trial site's wrong target: the hub's own name went to a child
		{"the target the phrase is a name of wins", "Running shoes",
			[]Target{{PrimaryKeywords: []string{"replace running shoes"}, Title: "When to Replace Running Shoes"},
				{PrimaryKeywords: []string{"running shoes"}, Title: "Running Shoes: How to Choose"}}, 1},
		// a fourteenth trial site's wrong target: the numbers of "50/30/20
		// budget" were no words of it, so "good budget" held all of it
		{"a name's numbers are words of it", "good budget",
			[]Target{{PrimaryKeywords: []string{"50/30/20 rule"}, Variations: []string{"50/30/20 budget"}, Title: "The 50/30/20 Rule"},
				{PrimaryKeywords: []string{"budgeting"}, Variations: []string{"budget", "monthly budget"}, Title: "Budgeting: How to Build a Budget"}}, 1},
		// ... and its uplink "[high-rate debt]": the name "pay off debt" has
		// one content word, which a phrase about a kind of debt holds
		{"a name holding a verb is not named by its nouns alone", "high-rate debt",
			[]Target{{PrimaryKeywords: []string{"debt payoff"}, Variations: []string{"pay off debt", "getting out of debt"}}}, -1},
		{"nor is a verb phrase of one noun", "extra money",
			[]Target{{PrimaryKeywords: []string{"frugal living"}, Variations: []string{"save money"}}}, -1},
		{"a name holding a verb is still named by two words of its noun phrase", "sturdy hiking boots",
			[]Target{{PrimaryKeywords: []string{"choose hiking boots"}, Title: "How to Choose Hiking Boots"}}, 0},
		// a fifteenth trial site's wrong targets: "May" of "May in the
		// Cyclades" was read as an auxiliary, leaving the name one word
		{"a name holding a preposition is not named by its last noun alone", "central Cyclades",
			[]Target{{PrimaryKeywords: []string{"greek islands in spring"}, Variations: []string{"May in the Cyclades"}}}, -1},
		{"a name opening on an article is still named by its content words", "central Cyclades",
			[]Target{{PrimaryKeywords: []string{"The Cyclades"}}}, 0},
		// a trial site's wrong target: the sibling's "when to replace running
		// shoes" and the hub's "running shoes" have the same content words
		{"a noun-phrase name wins over a clause around the same words", "main guide to running shoes",
			[]Target{{PrimaryKeywords: []string{"running shoe lifespan"}, Variations: []string{"when to replace running shoes"}, Title: "How Long Do Running Shoes Last?"},
				{PrimaryKeywords: []string{"running shoes"}, Title: "Running Shoes: How to Choose the Right Pair"}}, 1},
		// and its uplink "[race day]", one of a subtitle's topics
		{"a subtitle's words do not name the page", "race day",
			[]Target{{PrimaryKeywords: []string{"marathon training"}, Title: "Marathon Training: Long Runs and Race Day"}}, -1},
		// a trial site's wrong targets: a modifier that sets the phrase
		// apart from the name ("short" for "long", "training" for "care")
		{"a phrase whose modifier contrasts with the name's names no page", "Short-haired cats",
			[]Target{{PrimaryKeywords: []string{"long-haired cat"}, Title: "How to Brush a Long-Haired Cat"}}, -1},
		{"a contrasting modifier leaves the phrase to no page, not the one sharing its head", "dog training advice",
			[]Target{{PrimaryKeywords: []string{"dog care advice"}, Title: "Dogs"}, {PrimaryKeywords: []string{"dog training"}, Title: "Dog Training"}}, -1},
		{"another material is another kind of boot", "synthetic hiking boots",
			[]Target{{PrimaryKeywords: []string{"leather hiking boots"}}}, -1},
		{"a compound written as two words is the same modifier", "long haired cats",
			[]Target{{PrimaryKeywords: []string{"long-haired cat"}}}, 0},
		{"a modifier the name does not have is no contrast", "waterproof hiking boots",
			[]Target{{PrimaryKeywords: []string{"hiking boots"}}}, 0},
		{"a prefix sets a compound apart from its later part", "Post-race weeks",
			[]Target{{PrimaryKeywords: []string{"race week"}, Title: "The Marathon Taper"}}, -1},
		{"a grading modifier is no contrast", "higher fill power",
			[]Target{{PrimaryKeywords: []string{"down fill power"}}}, 0},
		// a trial site's wrong target: another page's exact keyword went to
		// a sibling whose name holds all its words but "banana"
		{"a modifier next to the head that the name lacks makes another compound", "sourdough discard banana bread",
			[]Target{{PrimaryKeywords: []string{"discard sourdough bread"}, Title: "Discard Sourdough Bread: Tips, Mistakes and Fixes"}}, -1},
		{"the page whose name the compound is wins it", "sourdough discard banana bread",
			[]Target{{PrimaryKeywords: []string{"discard sourdough bread"}}, {PrimaryKeywords: []string{"sourdough discard banana bread"}}}, 1},
		{"a kind word inside the name's compound keeps the name", "waterproof leather hiking boots",
			[]Target{{PrimaryKeywords: []string{"hiking boots"}}}, 0},
		{"a modifier from another of the target's names makes no other compound", "professional invoice template fields",
			[]Target{{PrimaryKeywords: []string{"professional invoice template"}, Variations: []string{"invoice fields"}}}, 0},
		// a trial's uplink "[pan cast iron skillet]" cut the page's own name
		{"a name that says the phrase as a run wins over names holding its words apart", "pan cast iron skillet",
			[]Target{{PrimaryKeywords: []string{"cast iron skillet"}, Variations: []string{"cast iron pan"}, Title: "Cast Iron Skillet"},
				{PrimaryKeywords: []string{"grill pan cast iron skillet"}, Title: "Our Favourite Grill Pan Cast Iron Skillet"}}, 1},
		// a trial's uplink "[leg sections]" for the tripods hub ("tripod legs")
		{"a noun that also names a thing is no document about its modifier", "leg sections",
			[]Target{{PrimaryKeywords: []string{"camera tripods"}, Variations: []string{"tripod legs"}, Title: "Tripods"}}, -1},
		{"a guide is a document about its modifier", "garlic guide",
			[]Target{{PrimaryKeywords: []string{"growing garlic"}, Title: "Growing Garlic"}}, 0},
		{"no targets, no owner", "trail boots", nil, -1},
		{"an empty phrase has no owner", "  ", []Target{hub}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BestTarget(tc.phrase, tc.targets); got != tc.want {
				t.Errorf("BestTarget(%q) = %d, want %d", tc.phrase, got, tc.want)
			}
		})
	}
}

func TestOwnersGiveANaturalPhraseOnlyToTheLinkOfItsOwner(t *testing.T) {
	p := sag(t)
	// Both name "leather and synthetic trail boots"; the comparison best.
	cleaning := Target{PrimaryKeywords: []string{"waterproof trail boots"}, Variations: []string{"clean leather boots", "synthetic boot care"},
		Title: "How to Clean and Waterproof Trail Boots"}
	comparison := Target{PrimaryKeywords: []string{"leather vs synthetic boots"}, Title: "Leather vs Synthetic Trail Boots: Which Should You Buy?"}
	targets := []Target{cleaning, comparison}
	text := NewText([]string{"Read our comparison of leather and synthetic trail boots before you buy."})
	own := NewOwners(targets)
	natural := func(as []link.Anchor) []string {
		var out []string
		for _, a := range as {
			if a.Type == link.AnchorNatural {
				out = append(out, a.Text)
			}
		}
		return out
	}
	if got := natural(own.Candidates(0, text, p)); len(got) != 0 {
		t.Errorf("the cleaning article was offered %q", got)
	}
	if got := natural(own.Candidates(1, text, p)); !reflect.DeepEqual(got, []string{"leather and synthetic trail boots"}) {
		t.Errorf("the comparison was offered %q", got)
	}
	// Keep does the same to candidates already drawn, and leaves the rest:
	// "sturdy trail boots" names the cleaning article's "waterproof trail
	// boots" too, but the trail boots hub's name covers it.
	trailHub := Target{PrimaryKeywords: []string{"trail boots"}, Title: "Trail Boots"}
	goodBoots := NewText([]string{"Sturdy trail boots last for years."})
	all := Candidates(cleaning, goodBoots, p)
	if !reflect.DeepEqual(natural(all), []string{"Sturdy trail boots"}) {
		t.Fatalf("without ownership the cleaning article was offered %q", natural(all))
	}
	kept := NewOwners([]Target{cleaning, trailHub}).Keep(0, all)
	if len(natural(kept)) != 0 || len(kept) != len(all)-1 {
		t.Errorf("Keep(cleaning) = %+v from %+v", kept, all)
	}
	// The cap of two natural phrases counts owned phrases only: a phrase the
	// hub owns does not take the place of the comparison's own.
	hub := Target{PrimaryKeywords: []string{"hiking boots"}, Variations: []string{"trail boots", "boots"}, Title: "Hiking Boots"}
	text = NewText([]string{"Sturdy boots help. Muddy trail boots help more. Read our comparison of leather and synthetic trail boots."})
	own = NewOwners([]Target{hub, comparison})
	if got := natural(own.Candidates(1, text, p)); !reflect.DeepEqual(got, []string{"leather and synthetic trail boots"}) {
		t.Errorf("the comparison was offered %q (without ownership: %q)", got, NaturalPhrases(text, comparison.names(), p))
	}
	if got := natural(own.Candidates(0, text, p)); !reflect.DeepEqual(got, []string{"Sturdy boots", "Muddy trail boots"}) {
		t.Errorf("the hub was offered %q", got)
	}
}

// A fourth trial site linked "compost pile" inside "hot compost pile", a
// sibling's keyword: each candidate now carries the other targets' longer
// names that hold it and that the text says (its own target's apart, in
// NotWithinOwn), never the source page's.
func TestACandidateCarriesTheLongerNamesOfOtherTargetsThatHoldIt(t *testing.T) {
	p := sag(t)
	hub := Target{PrimaryKeywords: []string{"raised beds"}, Variations: []string{"raised bed", "raised bed gardening"}, Title: "Raised Beds: Building and Filling"}
	soil := Target{PrimaryKeywords: []string{"raised bed soil mix"}, Variations: []string{"filling a raised bed"}, Title: "Raised Bed Soil Mix"}
	kit := Target{PrimaryKeywords: []string{"cedar raised bed"}, Variations: []string{"bed frame"}, Title: "Building a Cedar Raised Bed"}
	source := Target{PrimaryKeywords: []string{"new raised bed"}}
	own := NewOwnersOf([]Target{hub, soil, kit}, source)
	got := map[string][]string{}
	text := NewText([]string{"A cedar raised bed lasts. Filling a raised bed is next; our raised-bed soil mix helps a new raised bed."})
	for _, a := range own.Candidates(0, text, p) {
		got[a.Text] = a.NotWithin
	}
	// The text does not say "Building a Cedar Raised Bed": that name is no
	// matter here. "raised beds" is found as its variation "raised bed",
	// so the same names hold it.
	want := map[string][]string{
		"raised beds":                       {"raised bed soil mix", "filling a raised bed", "cedar raised bed"},
		"raised bed":                        {"raised bed soil mix", "filling a raised bed", "cedar raised bed"},
		"raised bed gardening":              nil,
		"Raised Beds: Building and Filling": nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates' NotWithin = %q, want %q", got, want)
	}
}

func TestGoodNaturalPhrasesStillComeOut(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		target Target
		want   []string
	}{
		{"a noun phrase without its article and 'best'", "These are the best lightweight hiking boots for summer.",
			Target{PrimaryKeywords: []string{"hiking boots"}, Title: "Hiking Boots: How to Choose"}, []string{"lightweight hiking boots"}},
		{"a modifier and a one-word keyword", "Nothing beats hiking in sturdy boots, so care for them.",
			Target{PrimaryKeywords: []string{"hiking boots"}, Variations: []string{"boots"}}, []string{"sturdy boots"}},
		{"a possessive inside the phrase", "Match the pad's R-value to the season.",
			Target{PrimaryKeywords: []string{"sleeping pad R-value"}, Variations: []string{"R-value"}}, []string{"pad's R-value"}},
		{"a compound noun whose head is an '-ing' noun", "Check the sleeping bag temperature rating before a winter trip.",
			Target{PrimaryKeywords: []string{"temperature rating"}}, []string{"sleeping bag temperature rating"}},
		{"an adjectival participle before its noun", "An insulated sleeping pad keeps you warm.",
			Target{PrimaryKeywords: []string{"sleeping pad"}}, []string{"insulated sleeping pad"}},
		{"two phrases in text order, as written", "Waterproof Hiking Boots matter; breathable hiking boots matter in summer.",
			Target{PrimaryKeywords: []string{"hiking boots"}}, []string{"Waterproof Hiking Boots", "breathable hiking boots"}},
		{"at most two", "Light tents pack small. Cheap tents leak. Big tents sleep four.",
			Target{PrimaryKeywords: []string{"backpacking tents"}, Variations: []string{"tent"}}, []string{"Light tents", "Cheap tents"}},
		{"the keyword itself, stemmed, is not a natural phrase, nor graded by 'good'", "A good hiking boot lasts. The hiking boot is key.",
			Target{PrimaryKeywords: []string{"hiking boots"}}, nil},
		{"the keyword graded by 'sensible' is no natural phrase", "Combine it with a sensible cutting diet.",
			Target{PrimaryKeywords: []string{"cutting diet"}}, nil},
		{"the keyword itself, stemmed, with a modifier of its own", "A waterproof hiking boot lasts. The hiking boot is key.",
			Target{PrimaryKeywords: []string{"hiking boots"}}, []string{"waterproof hiking boot"}},
		{"a document about the target, without 'our complete'", "It is one part of our complete guide to tile backsplash, where you will find the tools.",
			Target{PrimaryKeywords: []string{"tile backsplash"}, Title: "Tile Backsplash"}, []string{"guide to tile backsplash"}},
		{"an overview of the target", "Start with the overview of deck building before you buy timber.",
			Target{PrimaryKeywords: []string{"deck building"}}, []string{"overview of deck building"}},
		// an automotive trial: an article after the preposition ended the phrase
		{"a section on the target, with its article", "Read our section on the cooling system and come back here.",
			Target{PrimaryKeywords: []string{"cooling system"}}, []string{"section on the cooling system"}},
		// trial 16: a guide about a gerund and its object named nothing
		{"a guide to a gerund and its object", "Our guide to choosing coffee beans explains how to read roast levels.",
			Target{PrimaryKeywords: []string{"choosing coffee beans"}, Title: "Choosing Coffee Beans"}, []string{"coffee beans", "guide to choosing coffee beans"}},
		// a gardening trial: "grow" is a listed verb, and its gerund named
		// no activity
		{"a guide to a listed verb's gerund and its object", "Read our guide to growing tomatoes before you plant.",
			Target{PrimaryKeywords: []string{"growing tomatoes"}, Title: "Growing Tomatoes"}, []string{"guide to growing tomatoes"}},
		{"a document about something else names nothing", "Our guide to paint colours helps with hiking boots too.",
			Target{PrimaryKeywords: []string{"tile backsplash"}}, nil},
		{"a noun that is no document names nothing more", "The cost of tile backsplash varies.",
			Target{PrimaryKeywords: []string{"tile backsplash"}}, nil},
		// a finance trial: "piece of" takes a part, it writes about nothing
		{"a piece of the target is no document", "Disability cover is the most overlooked piece of insurance coverage in most plans.",
			Target{PrimaryKeywords: []string{"insurance coverage"}}, nil},
		{"a piece on the target is one", "Our piece on insurance coverage explains the gaps.",
			Target{PrimaryKeywords: []string{"insurance coverage"}}, []string{"piece on insurance coverage"}},
		{"a document named by its subject", "It is set out in our react state management guide, with examples.",
			Target{PrimaryKeywords: []string{"react state management"}}, []string{"react state management guide"}},
		{"the basics of a subject", "Start with tile backsplash basics before this one.",
			Target{PrimaryKeywords: []string{"tile backsplash"}}, []string{"tile backsplash basics"}},
		// a third trial site's uplinks, lost to the word after the guide,
		// a plural before it or a document noun missing from the list
		{"a guide named by its subject, then 'first'", "Read our tile backsplash guide first.",
			Target{PrimaryKeywords: []string{"tile backsplash"}}, []string{"tile backsplash guide"}},
		{"a gerund subject's guide", "If you are new, skim our budgeting guide first and come back.",
			Target{PrimaryKeywords: []string{"budgeting"}}, []string{"budgeting guide"}},
		{"a plural subject's guide", "See our credit cards guide for more.",
			Target{PrimaryKeywords: []string{"credit cards"}, Variations: []string{"credit card"}}, []string{"credit cards guide"}},
		{"a section of the site", "Start with our insurance section, then read on.",
			Target{PrimaryKeywords: []string{"insurance"}}, []string{"insurance section"}},
		{"a hub of the site", "Our mortgages hub walks from preapproval to refinancing.",
			Target{PrimaryKeywords: []string{"mortgages"}}, []string{"mortgages hub"}},
		// a travel trial: "the money page of our Lisbon travel guide" was
		// linked whole, as a document about the guide; a page of a guide is
		// a part of it, as a section of one is
		{"a page of the target is no document", "This is the money page of our Lisbon travel guide.",
			Target{PrimaryKeywords: []string{"Lisbon"}, Variations: []string{"Lisbon travel guide"}}, nil},
		{"a section of the target is no document", "This is the budget section of our Lisbon travel guide.",
			Target{PrimaryKeywords: []string{"Lisbon"}, Variations: []string{"Lisbon travel guide"}}, nil},
		{"a page on the target is one", "Our page on Lisbon trams lists the routes.",
			Target{PrimaryKeywords: []string{"Lisbon trams"}}, []string{"page on Lisbon trams"}},
		// trial N: a sentence adverbial without its comma ran into the name
		{"'in our experience' before the name, no comma", "In our experience build matrix strategy is where most teams first notice the gap.",
			Target{PrimaryKeywords: []string{"build matrix strategy"}}, nil},
		{"'in practice' before the name, no comma", "In practice container image scanning catches most of it.",
			Target{PrimaryKeywords: []string{"container image scanning"}}, nil},
		{"'experience' as a noun of its own still heads a phrase", "Our user experience research guide explains it.",
			Target{PrimaryKeywords: []string{"user experience research"}}, []string{"user experience research guide"}},
		// trial N: a compound ending on a noun in "-ly" read as an adverb
		// written in lower case, so only "Webassembly" named its hub
		{"a series on a one-word name in '-ly', lower case", "This piece is part of our series on webassembly, and it covers memory.",
			Target{PrimaryKeywords: []string{"webassembly"}}, []string{"series on webassembly"}},
		// a fourth trial site's uplink, lost to word order
		{"a gerund name written object first", "Our garlic growing guide covers the basics.",
			Target{PrimaryKeywords: []string{"growing garlic"}, Variations: []string{"garlic bulbs"}}, []string{"garlic growing guide"}},
		{"a guide named by the head of the target's name", "Our garlic guide shows how cloves become bulbs.",
			Target{PrimaryKeywords: []string{"growing garlic"}}, []string{"garlic guide"}},
		{"a guide named by a word that heads no name names nothing", "Our growing guide shows how cloves become bulbs.",
			Target{PrimaryKeywords: []string{"growing garlic"}}, nil},
		{"an object and gerund before no document noun name nothing", "The garlic growing season is short.",
			Target{PrimaryKeywords: []string{"growing garlic"}}, nil},
		// a dental trial: "so" after a comma joins a clause, it grades
		// nothing, and wearing something is no kind of it
		{"a phrase after a joining 'so'", "Bacteria release sulphur compounds, so better dental hygiene is nearly always the cure.",
			Target{PrimaryKeywords: []string{"dental hygiene"}}, []string{"better dental hygiene"}},
		{"a phrase graded by 'so' inside a run is still refused", "Their enamel is so fragile dental hygiene matters more.",
			Target{PrimaryKeywords: []string{"dental hygiene"}}, nil},
		{"wearing a thing is no kind of it", "Skipping this step undoes the benefit of wearing clear aligners in the first place.",
			Target{PrimaryKeywords: []string{"clear aligners"}}, nil},
		{"a gerund after a verb of beginning is that verb's object", "Most adults start flossing daily routines too late.",
			Target{PrimaryKeywords: []string{"daily routines"}}, nil},
		{"a gerund modifier after another verb still names a kind", "Buy hiking boots that fit.",
			Target{PrimaryKeywords: []string{"boots"}}, []string{"hiking boots"}},
		// a home-services trial and a photography trial: a name that opens
		// on a verb and its object is the activity, which its object alone
		// does not name
		{"the object of a title's opening gerund", "An electric car is only as convenient as the place you charge it.",
			Target{PrimaryKeywords: []string{"EV charging for flats"}, Title: "Charging an Electric Car When You Live in a Flat"}, nil},
		{"the object of a keyword's opening verb", "Cleaning a camera lens takes two minutes and a soft cloth.",
			Target{PrimaryKeywords: []string{"clean a camera lens"}}, nil},
		{"the object with the verb still names the activity", "Our electric car charging checklist covers the cable.",
			Target{PrimaryKeywords: []string{"EV charging for flats"}, Title: "Charging an Electric Car When You Live in a Flat"}, []string{"electric car charging checklist"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := sag(t)
			got := NaturalPhrases(NewText([]string{tc.text}), tc.target.names(), p)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%q: natural phrases %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestPhrasesStayWithinThePolicysWordRangeAndKeepTheirHead(t *testing.T) {
	p := sag(t)
	text := NewText([]string{"We love lightweight durable waterproof breathable supportive comfortable affordable leather hiking boots."})
	names := []string{"leather hiking boots"}
	// Ten words of noun phrase: the phrase keeps its last eight, ending on
	// its head.
	if got := NaturalPhrases(text, names, p); !reflect.DeepEqual(got, []string{"waterproof breathable supportive comfortable affordable leather hiking boots"}) {
		t.Errorf("eight words: %q", got)
	}
	p.AnchorMaxWords, p.AnchorMinWords = 4, 4
	if got := NaturalPhrases(text, names, p); !reflect.DeepEqual(got, []string{"affordable leather hiking boots"}) {
		t.Errorf("four words: %q", got)
	}
	p.AnchorMinWords = 5
	if got := NaturalPhrases(text, names, p); len(got) != 0 {
		t.Errorf("minimum above maximum: %q", got)
	}
}

// The lexicon's rules, read off the noun phrases they cut a sentence into.
func TestNounPhrasesFollowTheLexiconAndItsHeuristics(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"determiners, prepositions and pronouns end phrases", "Put the stove in your pack with them.", []string{"stove", "pack"}},
		{"common verbs end phrases", "Leather loses its shape, and the boot gives support.", []string{"Leather", "shape", "boot", "support"}},
		{"a relative word ends a phrase", "Choose a bag whose comfort rating matches the night.", []string{"bag", "comfort rating", "night"}},
		{"ambiguous verb: verb after a plural, noun after a determiner", "Boots need care, and the fit matters.", []string{"Boots", "care", "fit"}},
		{"ambiguous verb: noun after a singular noun", "Ankle support and boot care are key.", []string{"Ankle support", "boot care", "key"}},
		{"ambiguous verb: verb before a determiner", "Check the seams.", []string{"seams"}},
		{"ambiguous verb: verb opening a clause", "Never store a wet tent, and check tent stakes often.", []string{"wet tent", "tent stakes"}},
		{"ambiguous verb: verb after an infinitive 'to'", "Learn how to waterproof boots.", []string{"boots"}},
		// a trial site's cross-cluster anchor "[start chocolate cake]"
		{"ambiguous verb: verb after a noun that takes an infinitive 'to'", "Use the leftover time to start chocolate cake.", []string{"leftover time", "chocolate cake"}},
		// a pet-care trial's "[cure leash pulling]"
		{"a verb of purpose after any 'to' is a verb", "If you have practised loose-lead walking to cure leash pulling, be patient.", []string{"loose-lead walking", "leash pulling", "patient"}},
		{"an unknown word after such a 'to' is a verb too", "It is one of the most rewarding ways to practise macro photography at home.", []string{"rewarding ways", "macro photography", "home"}},
		{"ambiguous verb: verb after an adjective that takes an infinitive 'to'", "It is easy to clean leather boots at home.", []string{"easy", "leather boots", "home"}},
		// a trial's "how [long ACH transfers] take"
		{"the word a 'how' asks the degree of modifies no noun", "The honest answer to how long ACH transfers take is two days.", []string{"honest answer", "ACH transfers", "days"}},
		{"any word after 'who' is its verb", "For people who brew filter coffee, a burr grinder helps.", []string{"people", "filter coffee", "burr grinder"}},
		// a gardening trial's "[trouble roses]"
		{"a relative clause's verb agrees with the noun before 'that'", "Ladybirds eat many of the pests that trouble roses and lupins.", []string{"Ladybirds", "pests", "roses", "lupins"}},
		{"a singular noun's relative verb ends in -s", "Choose a mulch which protects roots from frost.", []string{"mulch", "roots", "frost"}},
		{"a noun after 'that' leading its own verb is a noun", "These are the shoes that trail runners choose.", []string{"shoes", "trail runners"}},
		{"'to' as a preposition keeps the noun, and a document names what it is about", "Read our guide to camp stoves.", []string{"guide", "camp stoves", "guide to camp stoves"}},
		{"a document about a gerund goes on through its object", "Read our guide to choosing camp stoves.", []string{"guide", "camp stoves", "guide to choosing camp stoves"}},
		{"a document before a verb that is no gerund names nothing more", "Read our guide to buy camp stoves.", []string{"guide", "camp stoves"}},
		{"verb-leaning '-s' form after a noun is a verb", "The boot fits snugly.", []string{"boot"}},
		{"noun-leaning '-s' form after a noun is a plural", "Tent stakes bend in rock.", []string{"Tent stakes", "rock"}},
		{"'-s' form after a noun before an '-ly' adverb is a verb", "The tent stakes easily.", []string{"tent"}},
		{"'-ed' after an auxiliary is a verb", "Down is rated by fill power.", []string{"fill power"}},
		{"'-ed' before a noun is an adjective", "A padded hip belt helps.", []string{"padded hip belt"}},
		{"'-ed' before a preposition is a verb", "Boots treated with wax resist water.", []string{"Boots", "wax", "water"}},
		{"irregular participle before a noun is an adjective", "Replace worn soles.", []string{"worn soles"}},
		{"'-ing' before a noun is a modifier", "A sleeping bag and trekking poles.", []string{"sleeping bag", "trekking poles"}},
		{"'-ing' with an object is a verb", "Choosing a tent is hard.", []string{"tent", "hard"}},
		{"'-ing' of a common verb is a verb", "Before buying boots, read reviews.", []string{"boots", "reviews"}},
		{"'-ly' is an adverb", "An extremely durable boot.", []string{"durable boot"}},
		{"'-ly' nouns and adjectives stay", "A family tent for early spring.", []string{"family tent", "early spring"}},
		{"'-ize' is a verb", "The fuel vaporizes quickly in pressurized canisters.", []string{"fuel", "pressurized canisters"}},
		{"a subject pronoun is followed by a verb", "It weighs less. Nothing beats wool socks.", []string{"wool socks"}},
		{"a modal is followed by a verb", "You should replace frayed laces.", []string{"frayed laces"}},
		{"a word between a plural subject and its object is its verb", "Gardeners sow tomato seedlings in March.", []string{"Gardeners", "tomato seedlings", "March"}},
		{"so is one after a partitive 'of us'", "Many of us julienne spring carrots.", []string{"spring carrots"}},
		{"'and' joins one-word modifiers of one head", "Compare leather and synthetic trail boots.", []string{"leather and synthetic trail boots"}},
		{"'and' between nouns ends a phrase", "Bring tents and sleeping bags, dinner and coffee.", []string{"tents", "sleeping bags", "dinner", "coffee"}},
		{"a plural ends its phrase", "The boots laces snap.", []string{"boots", "laces"}},
		{"numbers and units are not words of a phrase", "It weighs 2 lb 6 oz on the trail at 31°F.", []string{"trail"}},
		{"a possessive starts but never ends a phrase", "The hiker's boots and the boot's.", []string{"hiker's boots"}},
		{"hyphenated compounds are words", "A three-season tent with a full-grain leather upper.", []string{"three-season tent", "full-grain leather upper"}},
		// a scheduling trial's hub could not link "the Starter Plan upward"
		{"a direction adverb ends a phrase", "Swapping is included from the Starter Plan upward, and onwards.", []string{"Swapping", "Starter Plan"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nounPhrasesOf(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%q: noun phrases %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// Random word sequences drawn from nouns, adjectives, closed-class words,
// verbs and suffixed forms: every natural phrase starts and ends on an
// open-class word, ends on its head (no noun of the vocabulary follows it
// after a singular last word), stays in the word range, and is a run of
// the text's words as written.
func TestNaturalPhrasesNeverStartOrEndOnAClosedClassWord(t *testing.T) {
	nouns := []string{"boot", "boots", "tent", "tents", "stove", "fuel", "pack", "rating", "power", "trail", "leather", "bag", "bags", "pole", "poles", "canister", "comfort", "fill", "weight", "water"}
	adjectives := []string{"light", "waterproof", "synthetic", "durable", "warm", "heavy", "insulated", "three-season", "hiking", "sleeping"}
	closed := []string{"the", "a", "an", "your", "its", "this", "of", "by", "with", "in", "to", "for", "down", "and", "or", "but", "because", "that", "which", "whose", "who", "where", "it", "you", "they", "is", "are", "was", "were", "can", "should", "has", "not", "very", "so", "gives", "loses", "means", "choose", "expect", "buy", "read", "stay", "2", "lb"}
	verbs := []string{"need", "needs", "care", "cares", "matches", "support", "rated", "treated", "using", "choosing", "quickly", "vaporizes", "check"}
	breaks := []string{",", ".", ";", " |", ":"}
	vocab := [][]string{nouns, nouns, adjectives, closed, closed, verbs}
	// Words that are nouns or adjectives wherever they stand (not "light",
	// "rating" or "insulated", which context decides).
	open := map[string]bool{}
	for _, w := range append(append([]string{}, nouns...), adjectives...) {
		open[w] = lexClass(w) == cOpen
	}
	rng := rand.New(rand.NewPCG(7, 2026))
	p := sag(t)
	checked := 0
	for range 5000 {
		var words []string
		n := 3 + rng.IntN(25)
		for range n {
			list := vocab[rng.IntN(len(vocab))]
			w := list[rng.IntN(len(list))]
			if rng.IntN(12) == 0 {
				w += breaks[rng.IntN(len(breaks))]
			}
			words = append(words, w)
		}
		para := strings.Join(words, " ")
		names := []string{nouns[rng.IntN(len(nouns))] + " " + nouns[rng.IntN(len(nouns))], adjectives[rng.IntN(len(adjectives))] + " " + nouns[rng.IntN(len(nouns))], nouns[rng.IntN(len(nouns))]}
		text := NewText([]string{para})
		got := NaturalPhrases(text, names, p)
		if again := NaturalPhrases(NewText([]string{para}), names, p); !reflect.DeepEqual(got, again) {
			t.Fatalf("%q: %q, then %q", para, got, again)
		}
		for _, phrase := range got {
			checked++
			ws := strings.Fields(phrase)
			if len(ws) < p.AnchorMinWords || len(ws) > p.AnchorMaxWords {
				t.Errorf("%q: %q has %d words", para, phrase, len(ws))
			}
			if first, last := ws[0], ws[len(ws)-1]; closedClass(first) || closedClass(last) {
				t.Errorf("%q: %q starts or ends on a closed-class word", para, phrase)
			}
			at := indexWords(words, ws)
			if at < 0 {
				t.Errorf("%q: %q is not a run of its words", para, phrase)
				continue
			}
			for _, w := range ws[:len(ws)-1] {
				if strings.ContainsAny(w, ",.;:|") {
					t.Errorf("%q: %q crosses punctuation", para, phrase)
				}
			}
			last := words[at+len(ws)-1] // as written, with what follows it
			if end := at + len(ws); end < len(words) && !plural(fold(last)) && !strings.ContainsAny(last, ",.;:|") && open[words[end]] {
				t.Errorf("%q: %q stops before %q", para, phrase, words[end])
			}
		}
	}
	if checked < 400 {
		t.Errorf("only %d phrases checked", checked)
	}
}

func indexWords(words, run []string) int {
	for i := 0; i+len(run) <= len(words); i++ {
		ok := true
		for j, w := range run {
			if strings.TrimRight(words[i+j], ",.;:| ") != w || j < len(run)-1 && words[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

func TestClosedClassWordsAreClosed(t *testing.T) {
	for _, w := range []string{"the", "A", "whose", "that", "by", "and", "you", "it's", "is", "was", "gives", "loses", "means", "can't", "not", "choose", "gave"} {
		if !closedClass(w) {
			t.Errorf("%q is not closed-class", w)
		}
	}
	for _, w := range []string{"boots", "rating", "power", "care", "support", "waterproof", "insulated", "hiking"} {
		if closedClass(w) {
			t.Errorf("%q is closed-class", w)
		}
	}
}

func TestTextOutsideTheLexiconsLanguageGivesNoNaturalPhrase(t *testing.T) {
	p := sag(t)
	boots := []string{"hiking boots", "leather hiking boots", "Wanderschuhe aus Leder", "登山靴"}
	for _, tc := range []struct{ name, text string }{
		{"German", "Wanderschuhe aus Leder brauchen regelmäßige Pflege, damit sie in den Alpen lange halten und an nassen Tagen trocken bleiben."},
		{"German with English loanwords and words English shares", "Die besten leichten Hiking Boots sind in diesem Test die Modelle mit einer guten Sohle an der Ferse."},
		{"French", "Les chaussures de randonnée en cuir sont plus durables que les modèles synthétiques pour les longues hiking boots."},
		{"Japanese", "登山靴の手入れは、革のひび割れを防ぎ、長持ちさせるために欠かせません。"},
		{"Japanese with English words", "軽量な hiking boots を選ぶなら、leather hiking boots も検討しよう。"},
		{"a paragraph of names only", "Leather Hiking Boots Waterproof Hiking Boots"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NaturalPhrases(NewText([]string{tc.text}), boots, p); len(got) != 0 {
				t.Errorf("%q gave %q", tc.text, got)
			}
		})
	}
	// An English paragraph beside them still gives its phrases (a
	// superlative opens none).
	got := NaturalPhrases(NewText([]string{"登山靴の手入れは欠かせません。", "Die besten Hiking Boots sind in diesem Test.", "Buy the lightest waterproof hiking boots you can afford."}), boots, p)
	if !reflect.DeepEqual(got, []string{"waterproof hiking boots"}) {
		t.Errorf("mixed paragraphs: %q", got)
	}
	// Keyword and title candidates still apply to non-English text.
	as := Candidates(Target{PrimaryKeywords: []string{"登山靴"}, Title: "登山靴の選び方"}, NewText([]string{"登山靴の手入れは欠かせません。"}), p)
	if len(as) != 2 || as[0].Text != "登山靴" || as[1].Text != "登山靴の選び方" {
		t.Errorf("candidates %+v", as)
	}
}

// Re-trials (t34) linked "[plan lowered blood pressure]", "[centimetre
// lowered knee pain]", "fitted, sold and [fixed bikes]" and "my [son's
// night cough]": a past form after a whole noun phrase, or after "and"
// following a verb, is a verb, and a possessive after "my" belongs to
// the determiner.
func TestNaturalPhrasesLeaveOutPastVerbsAndTheOwnersPossessive(t *testing.T) {
	p := sag(t)
	for _, c := range []struct {
		text  string
		names []string
		bad   string
	}{
		{"Following the DASH eating plan lowered blood pressure within two weeks.", []string{"blood pressure monitoring", "high blood pressure"}, "lowered"},
		{"A saddle moved up by one centimetre lowered knee pain within two weeks.", []string{"knee pain"}, "lowered"},
		{"Since 1990 we have fitted, sold and fixed bikes for the whole town.", []string{"road bikes", "bikes"}, "fixed"},
		{"The syrup cured my son's night cough in a week.", []string{"night cough"}, "son"},
		{"It cured my husband's knee pain for good.", []string{"knee pain"}, "husband"},
		// a verb after "you" that a clause opener or a causative leads, or
		// joined by "and" to a verb (t30, t33)
		{"Flakiness often appears only after you introduce parallel test execution, because order changes.", []string{"parallel test execution"}, "introduce"},
		{"A balance transfer card lets you move existing credit card debt onto a new card.", []string{"credit card debt"}, "move"},
		{"We start with how you ship today and design deployment strategies that fit.", []string{"deployment strategies"}, "design"},
		{"Each chew adds glucosamine and chondroitin to support dog joint health every day.", []string{"dog joint health"}, "support"},
	} {
		for _, got := range NaturalPhrases(NewText([]string{c.text}), c.names, p) {
			if strings.Contains(strings.ToLower(got), c.bad) {
				t.Errorf("%q gave %q", c.text, got)
			}
		}
	}
	if got := NaturalPhrases(NewText([]string{"Women's running shoes need a wider toe box."}), []string{"running shoes"}, p); len(got) == 0 {
		t.Errorf("a classifying possessive opens no phrase any more: %q", got)
	}
}

// On a home-improvement trial's site "wallpaper primer" (the coating)
// linked the Wallpaper hub: "primer" was read as a document noun, so the
// phrase named the document's subject, wallpaper.
func TestAPrimerIsACoatingNotAGuide(t *testing.T) {
	p := sag(t)
	wallpaper := Target{PrimaryKeywords: []string{"wallpaper"}, Title: "Wallpaper"}
	for _, text := range []string{"Use a good wallpaper primer here.", "Apply a mildew-resistant wallpaper primer first."} {
		for _, a := range Candidates(wallpaper, NewText([]string{text}), p) {
			if a.Type == link.AnchorNatural && strings.Contains(Normalize(a.Text), "primer") {
				t.Errorf("%q offers %q for the Wallpaper page", text, a.Text)
			}
		}
	}
}

// A Dutch trial's paragraphs passed for English ("is", "was", "in" and
// "we" are Dutch words too) and gave "een schone racefiets" as an
// anchor: a site in another language reads no
// phrase with the English lexicon, whatever its paragraphs look like.
func TestASiteInAnotherLanguageReadsNoEnglishPhrases(t *testing.T) {
	p := sag(t)
	bike := []string{"racefiets"}
	for _, text := range []string{
		"Is je racefiets in de winter in de schuur, of was hij over de zomer in gebruik? In beide gevallen is een schone racefiets het halve werk.",
	} {
		if got := NaturalPhrases(NewText([]string{text}), bike, p); len(got) == 0 {
			t.Errorf("%q read as English gives no phrase; the case proves nothing", text)
		}
		if got := NaturalPhrases(NewTextIn([]string{text}, "dutch"), bike, p); len(got) != 0 {
			t.Errorf("%q on a Dutch site gave %q, want none", text, got)
		}
	}
	english := "Buy the lightest waterproof hiking boots you can afford."
	if got := NaturalPhrases(NewTextIn([]string{english}, "english"), []string{"hiking boots"}, p); len(got) == 0 {
		t.Errorf("%q on an English site gave no phrase", english)
	}
}

func TestNaturalPhrasesAndOwnershipAreDeterministic(t *testing.T) {
	p := sag(t)
	paras := []string{
		"Read our comparison of leather and synthetic trail boots before you buy.",
		"Good trail boots and sturdy hiking boots need care; waterproof leather trail boots need more.",
		"Down is rated by fill power, and higher fill power means more warmth for the weight.",
	}
	targets := []Target{
		{PrimaryKeywords: []string{"waterproof trail boots"}, Variations: []string{"clean leather boots"}, Title: "How to Clean and Waterproof Trail Boots"},
		{PrimaryKeywords: []string{"leather vs synthetic boots"}, Title: "Leather vs Synthetic Trail Boots: Which Should You Buy?"},
		{PrimaryKeywords: []string{"hiking boots"}, Variations: []string{"trail boots", "boots"}, Title: "Hiking Boots"},
		{PrimaryKeywords: []string{"down fill power"}, Title: "Down Fill Power Explained"},
	}
	run := func() string {
		text := NewText(paras)
		own := NewOwners(targets)
		var b strings.Builder
		for i, tg := range targets {
			fmt.Fprintf(&b, "%d %q %q\n", i, NaturalPhrases(text, tg.names(), p), own.Candidates(i, text, p))
		}
		return b.String()
	}
	first := run()
	for range 20 {
		if again := run(); again != first {
			t.Fatalf("different output:\n%s\nthen\n%s", first, again)
		}
	}
	// Ownership does not depend on the order the targets are listed in.
	phrases := []string{"leather and synthetic trail boots", "waterproof leather trail boots", "sturdy hiking boots", "higher fill power", "Good trail boots"}
	for _, phrase := range phrases {
		owner := targets[BestTarget(phrase, targets)].Title
		for _, perm := range [][]int{{3, 2, 1, 0}, {2, 0, 3, 1}, {1, 3, 0, 2}} {
			var shuffled []Target
			for _, i := range perm {
				shuffled = append(shuffled, targets[i])
			}
			if got := shuffled[BestTarget(phrase, shuffled)].Title; got != owner {
				t.Errorf("%q: owned by %q in order %v, by %q in order 0 1 2 3", phrase, got, perm, owner)
			}
		}
	}
	if !slices.Equal(nounPhrasesOf(paras[1]), nounPhrasesOf(paras[1])) {
		t.Error("noun phrases differ")
	}
}

// A keyword found inside a longer noun phrase is not an anchor for it:
// the cases a trial site showed, and the readings that must stand.
func TestAPhraseThatGoesOnIntoALongerNounPhraseIsTold(t *testing.T) {
	for _, c := range []struct {
		phrase, following string
		goesOn            bool
	}{
		// a help-center trial and a pet-health one: a time adverb and a
		// verb taking a bare verb end the phrase
		{"direct deposit", " early for new hires", false},
		{"direct deposit", " early access", true},
		{"senior dog food", " helps keep joints moving", false},
		// fragments a trial site linked
		{"exterior paint", " prep, one of the steps", true},
		{"bathroom remodel", " budget.", true},
		{"raised bed", " soil mix and compost", true},
		{"Cabinet Paint", " Kit is a complete set", true},
		{"drywall repair", " kit", true},
		{"concrete patio", " ideas for small yards", true},
		{"deck building", " permits", true},
		// whole phrases
		{"hiking boots", " guide covers fit", false},
		{"hiking boots", " for beginners", false},
		{"tile backsplash", ", where you will find", false},
		{"tile backsplash", " finishes the look", false},
		{"tile backsplash", " adds value to a kitchen", false},
		{"deck building", " requires a permit", false},
		{"tile backsplash", " is the cheapest", false},
		{"drywall repair", " and patching", false},
		{"drywall repair", " that lasts", false},
		{"fence installation", "", false},
		{"fence installation", " 101", false},
		{"concrete patio", " usually cracks", false},
		{"sleeping bag", " should be aired", false},
		// a phrase before a document noun names the document's subject
		{"SUP paddle length", " guide to set it correctly", false},
		{"inflatable vs epoxy SUP", " comparison covers the trade-offs", false},
		{"skeg vs rudder", " question suddenly very practical", false},
		{"go concurrency", " basics first", false},
		// a model or edition number is the name's (an electronics trial),
		// a count of something after it is not
		{"Sonora Arc Bar", " 5.1 has the clearest dialogue", true},
		{"alta via", " 2 starts in Cortina", true},
		{"hiking boots", " 3 times a week", false},
		{"hiking boots", " 2 or 3 sizes", false},
		{"hiking boots", ". 2024 was", false},
		// and before a review site's plural ones (an electronics trial)
		{"TV soundbar", " picks", false},
		{"Bluetooth speaker", " reviews cover battery life", false},
		{"speaker battery life", " tests run for a week", false},
		// a third trial site: a plural noun before its verb, a name ending
		// on an "-ing" noun
		{"health insurance", " deductibles explains the terms", true},
		{"retirement saving", " advice", true},
		{"retirement saving", " is a habit", false},
		// a verb with its particle, a comparative: no noun goes on
		{"timeouts in asyncio", " sooner or later", false},
		{"the question mark operator", " pick up", false},
		{"derived state", " faster than you think", false},
		// a fifth trial site: a plural before a verb the lexicon lacked, and
		// a verb and an adverb read as nouns
		{"marathon pace", " runs teach your body", true},
		{"marathon pace", " remind your legs", false},
		{"carb loading", " beforehand.", false},
		// an eighth trial site: a verb before its manner adverb
		{"dog dental care", " fit neatly into the same weekly routine", false},
		{"cat litter", " clumps quickly", false},
		// and a service named before the word "service"
		{"mobile dog grooming", " service comes to your door", false},
		// a fifteenth trial site: a name ending on a number
		{"Alta Via 1", " itinerary breaks the trek into stages", true},
		{"Alta Via 1", " is the classic Dolomites trek", false},
		// trial T: a plural before a clause that "so" opens, and a name
		// before an adverb
		{"C++ firmware", " templates so the filter stays small", true},
		{"ESP32 deep sleep", " cycles so it wakes on time", true},
		{"remodel", " costs so much", false},
		{"desoldering braid", " nearby.", false},
		{"desoldering braid", " wick twice as fast", false},
		// a silo trial: a word completing the verb, not a noun, follows
		{"credit utilization", " low from the very beginning", false},
		{"rebalance your portfolio", " back to your targets", false},
		{"emergency fund", " ready for surprises", false},
		{"sleeping bag", " dry sack keeps it compact", true},
		// a trial's home page: two things joined by "and" before their verb
		{"Storage and networking", " start with object storage", false},
		{"salt and pepper", " shaker", true},
		// a food blog: a plural before its verb and that verb's object
		{"dense sourdough", " fixes cover the common mistakes", true},
		{"dense sourdough", " fixes in my troubleshooting post", true},
		// a finance trial: one side of a comparison is its front
		{"budget apps", " vs spreadsheets helps you decide", true},
		{"leather boots", " versus synthetic ones", true},
		// a dev-tools trial: a word completing "makes ... practical"
		{"parallel test execution", " practical even for large suites", false},
		// a finance trial: a common verb's gerund after a singular noun,
		// before no object, is the activity's name; an "-s" noun that
		// modifies as a singular does goes on
		{"student loan", " refinancing, which carries very different trade-offs", true},
		{"mortgage", " refinancing is cheaper", true},
		{"retirement savings", " calculator that shows", true},
		{"high-yield savings", " account", true},
		{"a small tool", " using machine learning", false},
		// a bare verb-or-noun after a name ending on "-ing" is no verb of it
		{"retirement saving", " plan you can start in your twenties", true},
		{"retirement saving", " helps everyone", false},
		// a home-services trial: "worth" before what it is worth says so
		// of the phrase, it is no noun of it; "net worth" is one
		{"electrical problem", " worth a look too", false},
		{"kitchen remodel", " worth it in the end", false},
		{"home energy audit", " worth doing before winter", false},
		{"net", " worth calculator", true},
		// a cycling trial: "keep your drivetrain maintenance regular"
		// cut the hub's cross-cluster link; a routine's noun still goes on
		{"drivetrain maintenance", " regular and your brakes adjusted", false},
		{"drivetrain maintenance", " routine", true},
		{"tyre pressure", " sensible, and the ride gets smoother", false},
		{"chain cleaning", " slows wear.", false},
		{"chain cleaning", " kits make it easy", true},
	} {
		if got := GoesOn("", c.phrase, c.following); got != c.goesOn {
			t.Errorf("GoesOn(%q, %q) = %v, want %v", c.phrase, c.following, got, c.goesOn)
		}
	}
}

// A services trial linked "an electrical [panel upgrade]" to the panel
// upgrades hub, its keyword "panel upgrades" found as a variation inside
// the hub's primary keyword, which the text says whole (and which was at
// the anchor cap). A candidate's own longer names hold it by its stems too.
func TestACandidateFoundAsAVariationCarriesTheOwnLongerNamesThatHoldIt(t *testing.T) {
	hub := Target{PrimaryKeywords: []string{"electrical panel upgrade"}, Variations: []string{"panel upgrades", "breaker panel"}, Title: "Electrical Panel Upgrades"}
	own := NewOwnersOf([]Target{hub}, Target{PrimaryKeywords: []string{"water heaters"}})
	text := NewText([]string{"A new tankless unit may need an electrical panel upgrade first."})
	for _, a := range own.Candidates(0, text, sag(t)) {
		if a.Text == "panel upgrades" && !slices.Contains(a.NotWithinOwn, "electrical panel upgrade") {
			t.Errorf("%q is not held back inside %q: NotWithinOwn %q", a.Text, "electrical panel upgrade", a.NotWithinOwn)
		}
	}
}

// A title's complement, the noun phrase after a preposition, says where or
// when, not what the page is about: a hub's "wet rides can be enjoyable"
// linked to "Cleaning Your Bike After a Wet Ride", and "punctures are
// more likely on wet roads" to "Tire Grip on Wet Roads" (trial S). What
// comes before the preposition still names the page, and a keyword is
// the writer's own name, complement and all.
func TestATitlesComplementNamesNothing(t *testing.T) {
	p := sag(t)
	natural := func(target Target, text string) []string {
		var out []string
		for _, a := range Candidates(target, NewText([]string{text}), p) {
			if a.Type == link.AnchorNatural {
				out = append(out, a.Text)
			}
		}
		return out
	}
	cleaning := Target{PrimaryKeywords: []string{"cleaning your bike"}, Variations: []string{"bike wash"}, Title: "Cleaning Your Bike After a Wet Ride"}
	grip := Target{PrimaryKeywords: []string{"wet road grip"}, Variations: []string{"tire grip"}, Title: "Tire Grip on Wet Roads"}
	for _, c := range []struct {
		target Target
		text   string
		want   []string
	}{
		{cleaning, "With the right clothing and a bit of technique, wet rides can be surprisingly enjoyable.", nil},
		{grip, "Punctures also become more likely on wet roads, which is why repair skills matter.", nil},
		// "Good" grades the phrase: the variation "tire grip" carries the
		// link, not "Good tire grip".
		{grip, "Good tire grip helps in every season.", nil},
		{grip, "Sticky rubber keeps tire grip on wet roads high.", nil},
		{Target{PrimaryKeywords: []string{"wet weather riding"}, Title: "Riding on Wet Roads"}, "Riding on wet roads takes care.", nil},
		{Target{PrimaryKeywords: []string{"emergency fund on a low income"}}, "If you are building from a very low income, small transfers add up.", []string{"low income"}},
		// a B2B trial: a name ending on a number ("SOC 2") is a noun before
		// its complement too, and "Finance teams" linked the SOC 2 page
		{Target{PrimaryKeywords: []string{"SOC 2 compliance"}, Title: "SOC 2 for Finance Teams"},
			"Finance teams are small, and a single vacation can stall a task.", nil},
	} {
		if got := natural(c.target, c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q in %q: natural phrases %q, want %q", c.target.Title, c.text, got, c.want)
		}
	}
}

// A fitness trial's hub could not link "The Long Run" on "the long run":
// the title's opening article made it a longer own name around the keyword
// "long run". A name's opening article is no part of what a text says.
func TestANamesOpeningArticleMakesNoLongerNameAroundACandidate(t *testing.T) {
	longRun := Target{PrimaryKeywords: []string{"long run"}, Title: "The Long Run"}
	text := NewText([]string{"Every good plan rests on the long run, and our guide explains how to build it."})
	for _, a := range NewOwners([]Target{longRun}).Candidates(0, text, sag(t)) {
		if a.Text == "long run" && (len(a.NotWithinOwn) > 0 || len(a.NotWithin) > 0) {
			t.Errorf("%q is held back inside %q %q", a.Text, a.NotWithinOwn, a.NotWithin)
		}
	}
	// A longer own name is still one.
	hill := Target{PrimaryKeywords: []string{"long run"}, Variations: []string{"long run pacing"}, Title: "The Long Run"}
	text = NewText([]string{"Start with long run pacing before you add hills."})
	for _, a := range NewOwners([]Target{hill}).Candidates(0, text, sag(t)) {
		if a.Text == "long run" && !slices.Contains(a.NotWithinOwn, "long run pacing") {
			t.Errorf("%q is not held back inside %q: NotWithinOwn %q", a.Text, "long run pacing", a.NotWithinOwn)
		}
	}
}

// A trial's home page, under silo, linked its Payments sector on "[card
// payments]": the card payments hub, no target of the page, names it best.
func TestAPhraseAContenderNamesBestLinksNoTarget(t *testing.T) {
	sector := Target{PrimaryKeywords: []string{"payments"}, Variations: []string{"Payments"}, Title: "Payments"}
	home := Target{Title: "Ledgerly: Invoicing and Payments Software", Brand: "Ledgerly"}
	cards := Target{PrimaryKeywords: []string{"card payments"}, Variations: []string{"credit card processing"}, Title: "Card Payments"}
	ach := Target{PrimaryKeywords: []string{"ach transfers"}, Title: "ACH Transfers"}
	own := NewOwnersAmong([]Target{sector}, home, NewContenders([]Target{ach, cards}), nil)
	for phrase, want := range map[string]int{
		"card payments":          3, // the second contender, after the target and the page itself
		"recurring payments":     0,
		"faster ACH transfers":   2,
		"credit card processing": 3,
	} {
		if got := own.Best(phrase); got != want {
			t.Errorf("Best(%q) = %d, want %d", phrase, got, want)
		}
	}
	text := NewText([]string{"Customers settle an invoice with card payments, and recurring payments renew on their own."})
	var natural []string
	for _, a := range own.Candidates(0, text, sag(t)) {
		if a.Type == link.AnchorNatural {
			natural = append(natural, a.Text)
		}
	}
	if !reflect.DeepEqual(natural, []string{"recurring payments"}) {
		t.Errorf("the sector is offered natural phrases %q, want only \"recurring payments\"", natural)
	}
}

// An automotive trial linked "Shocks and [Struts overview]" to an article
// on loaded struts, cutting the hub's name in two: a candidate that
// overlaps another page's name at an end, where the text says both,
// carries that name to be kept whole (link.Anchor.NotCutting).
func TestACandidateOverlappingAnotherPagesNameCarriesItToKeepWhole(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	text := NewText([]string{"If your shocks are new to you, start with the Shocks and Struts overview and come back here before you order parts."})
	hub := Target{PrimaryKeywords: []string{"shocks and struts"}, Title: "Shocks and Struts"}
	art := Target{PrimaryKeywords: []string{"loaded struts"}, Title: "Quick Strut Install"}
	o := NewOwnersOf([]Target{hub, art}, Target{PrimaryKeywords: []string{"heavy-duty shocks for towing"}})
	cands := o.Candidates(1, text, p)
	i := slices.IndexFunc(cands, func(c link.Anchor) bool { return strings.EqualFold(c.Text, "Struts overview") })
	if i < 0 || !slices.Contains(cands[i].NotCutting, "shocks and struts") {
		t.Errorf("candidates %+v, want \"Struts overview\" with the hub's name in its NotCutting", cands)
	}
}

// A travel trial: a place name cut in half gave a natural phrase that named
// another destination's page. "a Gili Islands [day trip]" (a plural proper
// name ended the noun phrase) and "[Douro Valley day trip]" (the name "day
// trip to Capri" names Capri after its noun phrase) both linked a day trip
// elsewhere.
func TestAPlaceNameSetsAPhraseApartFromAnotherPlacesName(t *testing.T) {
	src := NewText([]string{
		"Plenty of travellers ask whether a Gili Islands day trip is worth the long boat ride from Sanur.",
		"Readers compare it with a Douro Valley day trip, which is a very different kind of outing.",
	})
	for _, tg := range []Target{
		{PrimaryKeywords: []string{"Nusa Penida day trip"}, Variations: []string{"fast boat to Nusa Penida"}, Title: "Nusa Penida Day Trip: Honest Tips"},
		{PrimaryKeywords: []string{"Capri day trip"}, Variations: []string{"day trip to Capri"}, Title: "Is a Capri Day Trip Worth It? An Honest Answer"},
	} {
		for _, c := range Candidates(tg, src, pol()) {
			if c.Type == link.AnchorNatural {
				t.Errorf("%s: natural phrase %q names another place's day trip", tg.Title, c.Text)
			}
		}
	}
	// Nor does a phrase without the place: "day trips" are anyone's, and
	// "Capri" is a proper name of the page's keyword "day trip to Capri".
	general := NewText([]string{"A good base in Sorrento makes day trips easy, including the Path of the Gods hike."})
	for _, c := range Candidates(Target{PrimaryKeywords: []string{"Capri day trip"}, Variations: []string{"day trip to Capri"}}, general, pol()) {
		if c.Type == link.AnchorNatural {
			t.Errorf("natural phrase %q names the Capri day trip without Capri", c.Text)
		}
	}
	// The page's own place still names it.
	capri := NewText([]string{"The first boats of a Capri day trip with kids leave at seven."})
	if got := NaturalPhrases(capri, []string{"day trip to Capri"}, pol()); !slices.Equal(got, []string{"Capri day trip"}) {
		t.Errorf("natural phrases %v, want \"Capri day trip\", the name \"day trip to Capri\" said", got)
	}
	if got := BestTarget("Capri boat day trip", []Target{{PrimaryKeywords: []string{"day trip to Capri"}}}); got != 0 {
		t.Errorf("\"Capri boat day trip\" names target %d, want the Capri day trip", got)
	}
}

// A law firm trial: "every [injury claim] in England" was linked to the hub
// of "whiplash injury claim". On a site whose clusters' names hold
// "injury" and "claim" again and again, the two words name no one page.
func TestAPhraseOfWordsManyClustersHoldNamesNoneOfThem(t *testing.T) {
	var clusters []Target
	for _, kw := range [][]string{
		{"car accident claim", "road traffic accident claim"}, {"whiplash claim", "whiplash injury claim"},
		{"accident claim deadline", "personal injury time limit"}, {"workplace accident claim", "work injury compensation"},
		{"industrial disease claim"}, {"car insurance claim"}, {"denied insurance claim"},
	} {
		clusters = append(clusters, Target{PrimaryKeywords: kw[:1], Variations: kw[1:]})
	}
	whiplash := Target{PrimaryKeywords: []string{"whiplash claim"}, Variations: []string{"whiplash injury claim"}, Title: "Whiplash Injury Claims"}
	deadlines := Target{PrimaryKeywords: []string{"accident claim deadline"}, Title: "Accident Claim Deadlines"}
	src := NewText([]string{"Every injury claim in England and Wales is subject to a time limit."})
	// The whiplash cluster is the target's own: no contender of it.
	excluded := []bool{false, true, false, false, false, false, false}
	got := NewOwnersAmong([]Target{whiplash}, deadlines, NewContenders(clusters), excluded).Candidates(0, src, pol())
	for _, c := range got {
		if c.Type == link.AnchorNatural && Normalize(c.Text) == "injury claim" {
			t.Errorf("candidates %v: \"injury claim\" names no one cluster of this site", got)
		}
	}
	// Where few clusters share the words, a phrase holding two of a name's
	// still names it: "comfort rating" is the sleeping bag comfort rating.
	bags := Target{PrimaryKeywords: []string{"sleeping bag comfort rating"}, Title: "Sleeping Bag Comfort Ratings"}
	gear := NewContenders([]Target{{PrimaryKeywords: []string{"sleeping bags"}}, {PrimaryKeywords: []string{"hiking boots"}}, {PrimaryKeywords: []string{"tents"}}})
	text := NewText([]string{"Check the comfort rating before a cold trip."})
	if got := NewOwnersAmong([]Target{bags}, Target{PrimaryKeywords: []string{"winter camping"}}, gear, nil).Candidates(0, text, pol()); !hasNatural(got, "comfort rating") {
		t.Errorf("candidates %v, want the natural phrase \"comfort rating\"", got)
	}
}

func hasNatural(cands []link.Anchor, text string) bool {
	for _, c := range cands {
		if c.Type == link.AnchorNatural && Normalize(c.Text) == text {
			return true
		}
	}
	return false
}

// A recipe trial's uplink anchor was "[second favorite homemade pizza
// night]": an ordinal before a grading word, and the grading word, open
// no phrase.
func TestANaturalPhraseOpensOnNoOrdinalOrFavorite(t *testing.T) {
	src := NewText([]string{"They have become our second favorite homemade pizza night, and the kids like crimping the edges."})
	got := NaturalPhrases(src, []string{"homemade pizza", "pizza recipes", "pizza night", "pizza at home"}, pol())
	if len(got) == 0 {
		t.Fatal("no natural phrase: want \"homemade pizza night\"")
	}
	for _, phrase := range got {
		if first := strings.ToLower(strings.Fields(phrase)[0]); first == "second" || first == "favorite" {
			t.Errorf("natural phrase %q opens on %q", phrase, first)
		}
	}
}

// A DIY trial's laminate hub linked "a wavy subfloor, the [wrong
// underlayment], or no room for expansion" to its underlayment article:
// "wrong", as "right", grades what it comes before and opens no phrase.
func TestANaturalPhraseOpensOnNoWrong(t *testing.T) {
	src := NewText([]string{"Most failures trace back to a wavy subfloor, the wrong underlayment, or no room for expansion at the walls."})
	if got := NaturalPhrases(src, []string{"underlayment"}, pol()); len(got) > 0 {
		t.Errorf("natural phrases %q, want none: \"wrong underlayment\" grades, it does not name", got)
	}
	kinds := NewText([]string{"Most failures trace back to a wavy subfloor or foam underlayment at the walls."})
	if got := NaturalPhrases(kinds, []string{"underlayment"}, pol()); !slices.Equal(got, []string{"foam underlayment"}) {
		t.Errorf("natural phrases %q, want \"foam underlayment\", a kind of it", got)
	}
}

// A home-services trial's hub "AC Repair in Austin, Round Rock & Cedar
// Park" was linked on "[Round Rock]" and "[Cedar Park]" from other pages'
// lists of the towns they serve: a title's complement names nothing, the
// list it opens past a comma or "&" included.
func TestATitlesComplementNamesNothingThroughTheListItOpens(t *testing.T) {
	src := NewText([]string{"We offer same-day water heater repair in Austin, Round Rock and Cedar Park, seven days a week."})
	got := Candidates(Target{PrimaryKeywords: []string{"AC repair"}, Title: "AC Repair in Austin, Round Rock & Cedar Park"}, src, pol())
	for _, c := range got {
		if c.Type == link.AnchorNatural {
			t.Errorf("natural phrase %q names the AC repair hub", c.Text)
		}
	}
}

// A home-services trial's service page said "Our [tankless water heater
// installation service] includes…", linked to the Water Heaters hub for
// its name "water heater service": a phrase holding the page's own name
// whole names the page it is on, as does one that is its activity.
func TestAPhraseHoldingThePagesOwnNameNamesNoOtherPage(t *testing.T) {
	src := NewText([]string{"Our tankless water heater installation service includes removal of the old tank and a new gas line."})
	hub := Target{PrimaryKeywords: []string{"water heater repair"}, Variations: []string{"water heater service", "hot water heater repair", "water heaters"},
		Title: "Water Heater Repair & Installation in Austin, TX"}
	self := Target{PrimaryKeywords: []string{"tankless water heater installation"}, Variations: []string{"water heater installation", "tankless installer"},
		Title: "Tankless Water Heater Installation"}
	for _, c := range NewOwnersOf([]Target{hub}, self).Candidates(0, src, pol()) {
		if c.Type == link.AnchorNatural {
			t.Errorf("natural phrase %q names the hub", c.Text)
		}
	}
	// Nor does the activity a page is about, its "-ing" name with words
	// between it and its object: a gardening trial's uplink was placed on
	// "[Staking tall cottage garden perennials] in spring".
	perennials := Target{PrimaryKeywords: []string{"cottage garden perennials"}, Variations: []string{"hardy perennials"},
		Title: "Cottage Garden Perennials: Plants, Planning and Care"}
	staking := Target{PrimaryKeywords: []string{"staking perennials"}, Title: "Staking Tall Perennials Before They Flop"}
	src = NewText([]string{"Staking tall cottage garden perennials in spring saves them from flopping over in June."})
	for _, c := range NewOwnersOf([]Target{perennials}, staking).Candidates(0, src, pol()) {
		if c.Type == link.AnchorNatural {
			t.Errorf("natural phrase %q, the staking article's own activity, names the hub", c.Text)
		}
	}
	// Nor does the activity a how-to page names by its verb: a solar
	// trial's "How to Size a Solar Panel System" linked its hub on
	// "[Sizing solar panels] starts with your electricity bills". The
	// hub's own keyword inside the phrase stays its way up.
	panels := Target{PrimaryKeywords: []string{"solar panels"}, Variations: []string{"rooftop solar", "PV panels"},
		Title: "Solar Panels: A Homeowner's Guide"}
	sizing := Target{PrimaryKeywords: []string{"solar system size"}, Variations: []string{"how many solar panels"},
		Title: "How to Size a Solar Panel System"}
	src = NewText([]string{"Sizing solar panels starts with your electricity bills, not the roof."})
	keyword := false
	for _, c := range NewOwnersOf([]Target{panels}, sizing).Candidates(0, src, pol()) {
		if c.Type == link.AnchorNatural {
			t.Errorf("natural phrase %q, the sizing article's own activity, names the hub", c.Text)
		}
		keyword = keyword || c.Text == "solar panels"
	}
	if !keyword {
		t.Error("the hub's keyword inside the phrase is no candidate")
	}
	// A phrase opening on a verb the target's names hold is the target's.
	running := Target{PrimaryKeywords: []string{"running shoes"}, Title: "Running Shoes"}
	pace := Target{PrimaryKeywords: []string{"running pace"}, Title: "How to Run a Faster Pace"}
	src = NewText([]string{"Cushioned running shoes absorb some of the shock of a faster pace."})
	if !slices.ContainsFunc(NewOwnersOf([]Target{running}, pace).Candidates(0, src, pol()), func(c link.Anchor) bool {
		return c.Type == link.AnchorNatural && c.Text == "Cushioned running shoes"
	}) {
		t.Error("\"Cushioned running shoes\" is no natural phrase for the running shoes page")
	}
	// The hub's name in a page about another activity is still the hub's.
	dividing := Target{PrimaryKeywords: []string{"dividing irises"}, Title: "Dividing Irises"}
	src = NewText([]string{"Our favourite tall cottage garden perennials flower in June."})
	natural := 0
	for _, c := range NewOwnersOf([]Target{perennials}, dividing).Candidates(0, src, pol()) {
		if c.Type == link.AnchorNatural {
			natural++
		}
	}
	if natural == 0 {
		t.Error("\"tall cottage garden perennials\" on a page about dividing irises is no natural phrase for the hub")
	}
}

// A scheduling trial's "creates an [open shift]" went to the sibling
// about "close-open shifts": its compound's "open" counted as a word of
// the name, and the open shifts article, whose keyword reads as a verb and
// its object, was not named at all. A phrase that is a target's name word
// for word goes to it, and a phrase holding part of a name's hyphenated
// compound without the rest does not name it.
func TestAPhraseIsNotNamedByPartOfAHyphenatedCompound(t *testing.T) {
	p := sag(t)
	clopening := Target{PrimaryKeywords: []string{"clopening shifts"}, Variations: []string{"clopening", "close-open shifts"},
		Title: "Clopening Shifts: Why They Hurt Retention"}
	openShifts := Target{PrimaryKeywords: []string{"open shifts"}, Variations: []string{"unfilled shifts", "open shift board"},
		Title: "Open Shifts: How to Fill Gaps Fast"}
	if got := BestTarget("open shift", []Target{clopening, openShifts}); got != 1 {
		t.Errorf("\"open shift\" goes to target %d, want 1, the open shifts article", got)
	}
	if got := BestTarget("open shift", []Target{clopening}); got != -1 {
		t.Errorf("\"open shift\" names target %d alone, want none: it cuts \"close-open\"", got)
	}
	if got := BestTarget("close-open shift", []Target{clopening, openShifts}); got != 0 {
		t.Errorf("\"close-open shift\" goes to target %d, want 0, the clopening article", got)
	}
	text := NewText([]string{"People who are scheduled against their stated hours quit, and every one of those creates an open shift."})
	for _, a := range NewOwners([]Target{clopening, openShifts}).Candidates(0, text, p) {
		if a.Text == "open shift" {
			t.Errorf("the clopening article was offered %q (%s)", a.Text, a.Type)
		}
	}
}

// A DIY trial's pilot-light article linked "three nuts at the [gas
// valve]" to the article on a leaking T&P valve: the "&" split the
// initialism into letters too short to be words, leaving the name "valve"
// with no modifier, which any valve named. An initialism joined by "&" is
// one word of the name.
func TestAnInitialismJoinedByAnAmpersandIsAModifierOfItsName(t *testing.T) {
	src := NewText([]string{"Remove the burner assembly (three nuts at the gas valve and the access panel) and clean it."})
	for _, names := range [][]string{{"T&P valve"}, {"R&D budget"}} {
		if got := NaturalPhrases(src, names, pol()); len(got) > 0 {
			t.Errorf("%q: natural phrases %q, want none: a gas valve is no T&P valve", names, got)
		}
	}
	// The name's own modifier still names it.
	leaky := NewText([]string{"Check the water heater relief valve once a year."})
	if got := NaturalPhrases(leaky, []string{"T&P valve", "relief valve"}, pol()); !slices.Equal(got, []string{"water heater relief valve"}) {
		t.Errorf("natural phrases %q, want \"water heater relief valve\"", got)
	}
}

// A DIY trial's drains hub said "a shower drain benefits from a hair
// catcher", and its article on the shower drain was left to the list:
// "benefits" was read as the plural the phrase goes on into. After a
// singular determiner an "-s" word that no noun follows is the phrase's
// verb; after "the", "our" or a number it may still be its plural head.
func TestAnSWordAfterASingularNounPhraseIsItsVerb(t *testing.T) {
	for _, c := range []struct {
		preceding, phrase, following string
		goesOn                       bool
	}{
		{"the enemy is hair, and a ", "shower drain", " benefits from a hair catcher", false},
		{"and each blocked ", "shower drain", " needs a hair catcher", false},
		{"every ", "tile backsplash", " costs more than paint", false},
		{"the ", "patio", " ideas for small yards", true},
		{"our ", "patio", " ideas for small yards", true},
		{"", "patio", " ideas for small yards", true},
		{"two ", "patio", " ideas for small yards", true},
		// The phrase's own last word is the verb: a solar trial's hub
		// linked its running costs article on "a ground source [heat
		// pump costs] more to install".
		{"is the usual choice; a ground source ", "heat pump costs", " more to install and less to run", true},
		{"a ", "heat pump costs", " about twice as much", true},
		{"the ", "heat pump costs", " more to install", false},
		{"we compare ", "heat pump costs", " across three climates", false},
	} {
		if got := GoesOn(c.preceding, c.phrase, c.following); got != c.goesOn {
			t.Errorf("GoesOn(%q, %q, %q) = %v, want %v", c.preceding, c.phrase, c.following, got, c.goesOn)
		}
	}
	src := NewText([]string{"In the bathroom, a shower drain benefits from a hair catcher that costs less than a coffee."})
	if got := NaturalPhrases(src, []string{"drains"}, pol()); !slices.Equal(got, []string{"shower drain"}) {
		t.Errorf("natural phrases %q, want \"shower drain\", the subject of \"benefits\"", got)
	}
}

// A SaaS trial's recurring-invoices article linked "open an [existing
// invoice]" to the article named "first invoice": the ordinal, no content
// word, left the name "invoice" with no modifier, which any invoice
// named. An ordinal before a name's noun sets it apart as a modifier does.
func TestAnOrdinalInANameSetsItApartAsAModifierDoes(t *testing.T) {
	src := NewText([]string{"To start, open an existing invoice and choose More, then Make recurring."})
	if got := NaturalPhrases(src, []string{"first invoice", "create an invoice"}, pol()); len(got) > 0 {
		t.Errorf("natural phrases %q, want none: an existing invoice is no first invoice", got)
	}
	kit := NewText([]string{"Pack a compact first aid kit for every day hike."})
	if got := NaturalPhrases(kit, []string{"first aid kit"}, pol()); len(got) == 0 {
		t.Error("no natural phrase, want the compact first aid kit named")
	}
}

// A SaaS trial's home page linked "the A/R [aging report]" to its reports
// hub, cutting the A/R aging report article's name: an initialism joined
// by "/" or "&" before a phrase opens the name the phrase is the rest of.
func TestAPhraseAfterAnInitialismIsTheRestOfAName(t *testing.T) {
	for _, c := range []struct {
		preceding, phrase, following string
		goesOn                       bool
	}{
		{"our financial reports, the a/r ", "aging report", " are one click away", true},
		{"check the t&p ", "valve", " every year", true},
		{"the p&l ", "statement", " shows it", true},
		{"open the ", "aging report", " and filter it", false},
		{"reports and/or ", "aging report", " in one place", false},
		{"read a/r", "aging report", "", false},
	} {
		if got := GoesOn(c.preceding, c.phrase, c.following); got != c.goesOn {
			t.Errorf("GoesOn(%q, %q, %q) = %v, want %v", c.preceding, c.phrase, c.following, got, c.goesOn)
		}
	}
}

// A SaaS trial's page linked "It's included in [Ledgerline's small
// business payroll]", the brand's possessive inside the anchor, where
// another page linked "Ledgerline's [small business payroll]". A name's
// possessive says whose the thing is and opens no phrase; a classifying
// one does.
func TestANamesPossessiveOpensNoNaturalPhrase(t *testing.T) {
	p := sag(t)
	for _, c := range []struct {
		text  string
		names []string
		want  []string
	}{
		{"It's included in Ledgerline's small business payroll at no extra cost.", []string{"payroll"}, []string{"small business payroll"}},
		{"Anna’s trail running shoes lasted two seasons.", []string{"running shoes"}, []string{"trail running shoes"}},
		{"Women's trail running shoes need a wider toe box.", []string{"running shoes"}, []string{"Women's trail running shoes"}},
	} {
		if got := NaturalPhrases(NewText([]string{c.text}), c.names, p); !slices.Equal(got, c.want) {
			t.Errorf("%q: natural phrases %q, want %q", c.text, got, c.want)
		}
	}
}

// A parenting trial wrote its comparisons with "vs.", whose period ended
// the phrase: "cold vs. flu vs. [RSV symptom] by symptom" and "our infant
// car seat vs. [convertible comparison]" were linked, fragments of the
// comparison. "vs." joins the sides as "vs" does, and a noun repeated
// around "by" says how, ending the phrase before it.
func TestAComparisonWrittenWithVsAndAPeriodIsOnePhrase(t *testing.T) {
	src := NewText([]string{
		"We compare cold vs. flu vs. RSV symptom by symptom, with a table you can keep on the fridge.",
		"Before you buy, our infant car seat vs. convertible comparison explains how to choose.",
	})
	var got []string
	for _, np := range src.phrases {
		got = append(got, np.text())
	}
	for _, fragment := range []string{"RSV symptom", "convertible comparison", "cold", "flu"} {
		if slices.Contains(got, fragment) {
			t.Errorf("noun phrases %q hold the fragment %q of a comparison written with \"vs.\"", got, fragment)
		}
	}
	for _, whole := range []string{"cold vs. flu vs. RSV", "infant car seat vs. convertible comparison"} {
		if !slices.Contains(got, whole) {
			t.Errorf("noun phrases %q, want the whole comparison %q", got, whole)
		}
	}
	if GoesOn("We compare ", "cold vs. flu vs. RSV", " symptom by symptom, with") {
		t.Error(`"cold vs. flu vs. RSV" goes on into "symptom by symptom", which says how`)
	}
	if got := NaturalPhrases(src, []string{"convertible car seats"}, pol()); len(got) > 0 {
		t.Errorf("natural phrases %q for convertible car seats, want none: the back half of a comparison", got)
	}
}

// A parenting trial's hub linked "why the [infamous 4-month sleep
// regression] is often the moment": what people think of a thing opens
// no phrase naming it.
func TestANaturalPhraseOpensOnNoWordOfRepute(t *testing.T) {
	src := NewText([]string{"That is why the infamous 4-month sleep regression is often the moment parents start."})
	got := NaturalPhrases(src, []string{"sleep regression"}, pol())
	if !slices.Equal(got, []string{"4-month sleep regression"}) {
		t.Errorf("natural phrases %q, want \"4-month sleep regression\" without \"infamous\"", got)
	}
}

// A solar trial's audit offered the "Sunward 10 kWh Home Battery" page the
// phrase "kWh battery" in "a 13.5 kWh battery may let you draw only 12":
// a name that says the words after its own number is not named where the
// text writes another number before them.
func TestAPhraseAfterAnotherNumberThanTheNamesNamesNotIt(t *testing.T) {
	product := Target{PrimaryKeywords: []string{"Sunward 10 kWh battery"}, Variations: []string{"10 kWh battery"}, Title: "Sunward 10 kWh Home Battery"}
	natural := func(text string) []string {
		var out []string
		for _, c := range Candidates(product, NewText([]string{text}), pol()) {
			if c.Type == link.AnchorNatural {
				out = append(out, c.Text)
			}
		}
		return out
	}
	for _, text := range []string{
		"Look at usable capacity: a 13.5 kWh battery may let you draw only 12.",
		"A 5 kWh battery covers the evening in a small flat.",
	} {
		if got := natural(text); len(got) > 0 {
			t.Errorf("in %q the product is named by %q", text, got)
		}
	}
	if got := natural("Almost any kWh battery works with a hybrid inverter."); !slices.Equal(got, []string{"kWh battery"}) {
		t.Errorf("natural phrases %q where no number is written, want \"kWh battery\"", got)
	}
}
