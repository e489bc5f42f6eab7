package markup

import (
	"errors"
	"strings"
	"testing"
)

// filler returns n distinct-enough words, to space links apart.
func filler(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "lorem"
	}
	return strings.Join(w, " ")
}

func placeOne(t *testing.T, src string, req LinkRequest, opts Options) (string, Placement) {
	t.Helper()
	out, pls, err := Place([]byte(src), []LinkRequest{req}, opts)
	if err != nil {
		t.Fatalf("Place: %v", err)
	}
	if msg := checkPlacement([]byte(src), out, pls); msg != "" {
		t.Fatal(msg)
	}
	return string(out), pls[0]
}

func TestPlaceWrapsFirstOccurrenceInParagraph3(t *testing.T) {
	src := "<h2>Trail running shoes</h2><p>Intro.</p><p>More text.</p>" +
		"<p>Good trail running shoes grip. Other trail running shoes slip.</p>"
	out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/collections/trail/", Anchors: []string{"trail running shoes"}}, Options{})
	want := `<h2>Trail running shoes</h2><p>Intro.</p><p>More text.</p>` +
		`<p>Good <a href="/collections/trail/" data-interlinker="l1">trail running shoes</a> grip. Other trail running shoes slip.</p>`
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	if !pl.Placed || pl.Paragraph != 3 || pl.Anchor != "trail running shoes" || pl.CandidateIndex != 0 || pl.Variation {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceNotFoundReportsReason(t *testing.T) {
	src := "<p>Nothing relevant here.</p>"
	out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/x/", Anchors: []string{"lightweight trail shoes"}}, Options{})
	if out != src || pl.Placed || pl.Reason == "" {
		t.Fatalf("out %q placement %+v", out, pl)
	}
}

func TestPlaceAnchorOnlyInsideExistingLinkIsNotFound(t *testing.T) {
	src := `<p>See <a href="/other/">running shoes</a> today.</p>`
	out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/x/", Anchors: []string{"running shoes"}}, Options{})
	if out != src || pl.Placed {
		t.Fatalf("out %q placement %+v", out, pl)
	}
}

// A fitness trial linked "Post-[race weeks]": an anchor never starts or
// ends inside a hyphenated compound; it is found where it stands whole.
func TestPlaceNeverCutsAHyphenatedCompound(t *testing.T) {
	for _, tc := range []struct{ src, anchor, want string }{
		{"<p>Post-race weeks are for rest. Race weeks are for sharpening.</p>", "race weeks",
			`<p>Post-race weeks are for rest. <a href="/x/" data-interlinker="l1">Race weeks</a> are for sharpening.</p>`},
		{"<p>Buy trail-running shoes or road running shoes.</p>", "running shoes",
			`<p>Buy trail-running shoes or road <a href="/x/" data-interlinker="l1">running shoes</a>.</p>`},
		{"<p>A hiking boots-only trip, then hiking boots again.</p>", "hiking boots",
			`<p>A hiking boots-only trip, then <a href="/x/" data-interlinker="l1">hiking boots</a> again.</p>`},
		{"<p>Try a push-up today.</p>", "push-up",
			`<p>Try a <a href="/x/" data-interlinker="l1">push-up</a> today.</p>`},
		{"<p>Lace the boots - hiking boots need it.</p>", "hiking boots",
			`<p>Lace the boots - <a href="/x/" data-interlinker="l1">hiking boots</a> need it.</p>`},
	} {
		out, pl := placeOne(t, tc.src, LinkRequest{ID: "l1", Href: "/x/", Anchors: []string{tc.anchor}}, Options{})
		if out != tc.want || !pl.Placed {
			t.Errorf("%q in %q:\n got  %s\n want %s (%+v)", tc.anchor, tc.src, out, tc.want, pl)
		}
	}
	src := "<p>Post-race weeks are for rest.</p>"
	if out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/x/", Anchors: []string{"race weeks"}}, Options{}); out != src || pl.Placed {
		t.Errorf("placed %q in %q: %s", "race weeks", src, out)
	}
}

func TestPlaceCaseInsensitiveKeepsPageCasing(t *testing.T) {
	src := "<p>We love running shoes.</p>"
	out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/x/", Anchors: []string{"Running Shoes"}}, Options{})
	if !strings.Contains(out, `>running shoes</a>`) || pl.Anchor != "running shoes" {
		t.Fatalf("out %q placement %+v", out, pl)
	}
}

func TestPlaceMandatoryUplinkFirstTwoParagraphs(t *testing.T) {
	src := "<p>Running shoes for every trail.</p><p>Second.</p><p>Third.</p>"
	_, pl := placeOne(t, src, LinkRequest{ID: "up", Href: "/running-shoes/", Anchors: []string{"running shoes"},
		Position: Position{FirstParagraphs: 2}}, Options{})
	if !pl.Placed || pl.Paragraph != 1 {
		t.Fatalf("placement %+v", pl)
	}

	src = "<p>First.</p><p>Second.</p><p>Running shoes appear late.</p>"
	out, pl := placeOne(t, src, LinkRequest{ID: "up", Href: "/running-shoes/", Anchors: []string{"running shoes"},
		Position: Position{FirstParagraphs: 2}}, Options{})
	if pl.Placed || out != src || !strings.Contains(pl.Reason, "paragraphs 1-2") {
		t.Fatalf("placement %+v", pl)
	}
}

// What a CMS puts before the text (an empty or spacer paragraph, an image,
// an ad script, a hidden note) is no paragraph a reader reads: the uplink's
// paragraphs 1–2 are the first two that show words.
func TestPlaceMandatoryUplinkCountsOnlyParagraphsThatShowWords(t *testing.T) {
	for _, lead := range []string{
		`<p>&nbsp;</p><p><img src="/hero.jpg" alt="A trail"></p>`,
		`<p></p><p><br></p><p>&shy; </p>`,
		`<p><script>ads()</script></p><p><!-- spacer --></p>`,
		`<p hidden>Editor's note.</p><p><del>Old intro.</del></p>`,
	} {
		src := lead + `<p>First words.</p><p>Running shoes for every trail.</p><p>Third.</p>`
		_, pl := placeOne(t, src, LinkRequest{ID: "up", Href: "/running-shoes/", Anchors: []string{"running shoes"},
			Position: Position{FirstParagraphs: 2}}, Options{})
		if !pl.Placed || pl.ContentParagraph != 2 {
			t.Errorf("after %s: placement %+v, want it placed in content paragraph 2", lead, pl)
		}
		links, err := Links([]byte(lead+`<p>First words.</p><p>See <a href="/hub/">the hub</a>.</p>`), "https://example.com/a/", "example.com")
		if err != nil {
			t.Fatal(err)
		}
		if len(links) != 1 || links[0].ContentParagraph != 2 {
			t.Errorf("after %s: links %+v, want the link read in content paragraph 2", lead, links)
		}
	}
}

// The author's link to the hub at the end of an article does not keep the
// uplink out of its first paragraphs; one within them does, and any link
// to the target keeps out a request that does not ask to go over it.
func TestPlaceUplinkGoesOverTheAuthorsLaterLinkToTheHub(t *testing.T) {
	req := LinkRequest{ID: "up", Href: "/decking/", Anchors: []string{"garden decking"},
		Position: Position{FirstParagraphs: 2}, OverLaterLink: true}
	later := `<p>Garden decking lasts when it is oiled.</p><p>Second.</p><p>Back to <a href="/decking/">our decking guide</a>.</p>`
	if _, pl := placeOne(t, later, req, Options{}); !pl.Placed || pl.Paragraph != 1 {
		t.Errorf("uplink beside the author's link in paragraph 3: %+v, want it placed in paragraph 1", pl)
	}
	early := `<p>Garden decking lasts when it is oiled.</p><p>See <a href="/decking/">our decking guide</a>.</p>`
	if out, pl := placeOne(t, early, req, Options{}); pl.Placed || out != early || !strings.Contains(pl.Reason, "already links to /decking/ in its first 2 paragraphs") {
		t.Errorf("uplink beside the author's link in paragraph 2: %+v, want it refused", pl)
	}
	// A link in a list between the first paragraphs is in none of them,
	// as mandatory_uplink counts: the uplink still goes in.
	listed := `<p>Garden decking lasts when it is oiled.</p><ul><li><a href="/decking/">our decking guide</a></li></ul><p>Second.</p>`
	if _, pl := placeOne(t, listed, req, Options{}); !pl.Placed || pl.Paragraph != 1 {
		t.Errorf("uplink beside the author's link in a list: %+v, want it placed in paragraph 1", pl)
	}
	req.OverLaterLink = false
	if _, pl := placeOne(t, later, req, Options{}); pl.Placed || !strings.Contains(pl.Reason, "already links to /decking/") {
		t.Errorf("a request not going over later links: %+v, want it refused", pl)
	}
}

// The link first_link_rule wants first takes an occurrence of its anchor
// before the content's first link that the rule counts, even a less
// preferred candidate or a later paragraph's; links to other sites count
// only when the policy's rule reads them (silo), and with no occurrence
// before the first link it goes where it fits, as any link does.
func TestPlaceFirstLinkGoesBeforeTheWritersFirstLink(t *testing.T) {
	req := LinkRequest{ID: "up", Href: "/rye/", Anchors: []string{"rye bread", "rye loaves"},
		Position: Position{FirstParagraphs: 2, First: true}}
	cited := `<p>Rye loaves are older than <a href="https://en.wikipedia.org/wiki/Rye">the grain trade</a>, and rye bread keeps for a week.</p><p>Second.</p>`
	silo := Options{SiteHost: "example.com", FirstLinkCountsExternal: true}
	if out, pl := placeOne(t, cited, req, silo); !pl.Placed || pl.AnchorText != "Rye loaves" ||
		strings.Index(out, `href="/rye/"`) > strings.Index(out, "wikipedia") {
		t.Errorf("silo: %+v in %s, want the uplink on %q before the citation", pl, out, "Rye loaves")
	}
	if _, pl := placeOne(t, cited, req, Options{SiteHost: "example.com"}); !pl.Placed || pl.AnchorText != "rye bread" {
		t.Errorf("sag: %+v, want the preferred %q: a citation is no first link there", pl, "rye bread")
	}
	sibling := `<p>Proof it as <a href="/starter/">our starter guide</a> says.</p><p>Rye bread rises slowly.</p>`
	if _, pl := placeOne(t, sibling, req, Options{SiteHost: "example.com"}); !pl.Placed || pl.ContentParagraph != 2 {
		t.Errorf("only after the writer's link: %+v, want it placed in paragraph 2 all the same", pl)
	}
	req.Position.First = false
	if _, pl := placeOne(t, cited, req, silo); !pl.Placed || pl.AnchorText != "rye bread" {
		t.Errorf("without First: %+v, want the preferred candidate", pl)
	}
}

// An occurrence inside the page's own name reads as the page naming
// itself: another occurrence of any candidate is taken first, and the own
// name's only when the text has no other.
func TestPlacePassesOverThePagesOwnNameWhileTheTextOffersAnotherPlace(t *testing.T) {
	req := LinkRequest{ID: "up", Href: "/cabinets/", Anchors: []string{"cabinet doors", "kitchen cabinet installation"},
		Position: Position{FirstParagraphs: 2}, InsideOwnNames: true}
	opts := Options{OwnNames: []string{"Adjusting Cabinet Doors", "adjusting cabinet doors"}}
	src := "<p>Adjusting cabinet doors takes a single screwdriver and finishes any kitchen cabinet installation.</p>"
	if _, pl := placeOne(t, src, req, opts); !pl.Placed || pl.AnchorText != "kitchen cabinet installation" {
		t.Errorf("placement %+v, want it on \"kitchen cabinet installation\", outside the page's own name", pl)
	}
	only := "<p>Adjusting cabinet doors takes a single screwdriver.</p>"
	if _, pl := placeOne(t, only, req, opts); !pl.Placed || pl.AnchorText != "cabinet doors" {
		t.Errorf("placement %+v, want it inside the page's own name, the text's only place", pl)
	}
	if _, pl := placeOne(t, src, req, Options{}); !pl.Placed || pl.AnchorText != "cabinet doors" {
		t.Errorf("placement without own names %+v, want the first candidate", pl)
	}
	// A request that may not go inside the page's own names stays out of
	// them, the text's only place or not (trial 16: "a compact
	// dual-boiler [espresso machine]" on the machine's page).
	optional := req
	optional.InsideOwnNames = false
	if _, pl := placeOne(t, only, optional, opts); pl.Placed || !strings.Contains(pl.Reason, "only as or inside this page's own name") {
		t.Errorf("placement %+v inside the page's own name for a request that may not go there, or a reason not saying so", pl)
	}
	if _, pl := placeOne(t, src, optional, opts); !pl.Placed || pl.AnchorText != "kitchen cabinet installation" {
		t.Errorf("placement %+v, want it outside the page's own name", pl)
	}
	// An occurrence that cuts across the page's own name is passed over as
	// one inside it is (an electronics trial's uplink read "a [good robot
	// vacuum] for pet hair" on the pet-hair article, past a plain "a robot
	// vacuum").
	vacuum := LinkRequest{ID: "up", Href: "/robot-vacuums/", Anchors: []string{"good robot vacuum", "robot vacuum"},
		Position: Position{FirstParagraphs: 2}, InsideOwnNames: true}
	own := Options{OwnNames: []string{"robot vacuum for pet hair"}}
	cut := "<p>Finding a good robot vacuum for pet hair takes more than suction figures.</p><p>A robot vacuum with a rubber roller tangles less.</p>"
	if _, pl := placeOne(t, cut, vacuum, own); !pl.Placed || pl.AnchorText != "robot vacuum" || pl.Paragraph != 2 {
		t.Errorf("placement %+v, want \"robot vacuum\" in paragraph 2, outside the page's own name", pl)
	}
}

// A page's own name said whole in its text is the page naming itself, as
// an occurrence inside it is: a trial's hub on "payroll taxes" linked
// those words to a guide whose title opens "Payroll taxes:". Only the
// mandatory uplink may take it, when the text offers no other place.
func TestPlaceKeepsThePagesOwnNameSaidWholeForTheUplinkAlone(t *testing.T) {
	opts := Options{OwnNames: []string{"Payroll taxes", "payroll taxes"}}
	src := "<p>Once you hire your first employee you become responsible for payroll taxes every quarter.</p>"
	down := LinkRequest{ID: "down", Href: "/payroll-taxes-guide/", Anchors: []string{"Payroll taxes"}}
	if _, pl := placeOne(t, src, down, opts); pl.Placed || !strings.Contains(pl.Reason, "only as or inside this page's own name") {
		t.Errorf("placement %+v, want the page's own name kept from a link to another page, and a reason saying so", pl)
	}
	plural := LinkRequest{ID: "down", Href: "/payroll-taxes-guide/", Anchors: []string{"payroll tax"}}
	if _, pl := placeOne(t, src, plural, opts); pl.Placed {
		t.Errorf("placement %+v, want the page's own name kept in another form too", pl)
	}
	up := down
	up.InsideOwnNames = true
	if _, pl := placeOne(t, src, up, opts); !pl.Placed || pl.AnchorText != "payroll taxes" {
		t.Errorf("placement %+v, want the request that may go inside the page's own names to take it", pl)
	}
}

// One anchor text names one page: words that already link a page, by the
// author's hand or by an earlier request, do not link another (a trial's
// article linked "payroll taxes" to its hub and, further down, to a guide).
func TestPlaceNeverLinksTheSameWordsToTwoPages(t *testing.T) {
	src := "<p>Ledgerly works out payroll taxes for every employee on the payroll.</p>" +
		"<p>There is a lot more to say about how the system behaves at the end of each quarter, and the filing " +
		"calendar changes from one state to the next, so read the notes for your own state before you start.</p>" +
		"<p>For contractors, Ledgerly withholds nothing: a contractor pays their own payroll taxes each year.</p>"
	reqs := []LinkRequest{
		{ID: "up", Href: "/payroll-taxes/", Anchors: []string{"payroll taxes"}, Position: Position{FirstParagraphs: 2}},
		{ID: "side", Href: "/payroll-taxes-guide/", Anchors: []string{"payroll taxes"}},
	}
	out, pls, err := Place([]byte(src), reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if msg := checkPlacement([]byte(src), out, pls); msg != "" {
		t.Fatal(msg)
	}
	if !pls[0].Placed || pls[1].Placed || !strings.Contains(pls[1].Reason, "already link another page here") {
		t.Errorf("placements %+v, want the uplink placed and the same words refused to the guide, saying why", pls)
	}
	author := `<p>Ledgerly works out <a href="/payroll-taxes/">payroll taxes</a> for every employee.</p>` +
		"<p>There is a lot more to say about how the system behaves at the end of each quarter, and the filing " +
		"calendar changes from one state to the next, so read the notes for your own state before you start.</p>" +
		"<p>A contractor pays their own Payroll  Taxes each year.</p>"
	if _, pl := placeOne(t, author, reqs[1], Options{}); pl.Placed {
		t.Errorf("placement %+v, want words the author linked to one page kept from another", pl)
	}
	padded := LinkRequest{ID: "pad", Href: "/payroll-taxes-guide/", Anchors: []string{"own payroll taxes"}}
	if _, pl := placeOne(t, author, padded, Options{}); pl.Placed {
		t.Errorf("placement %+v, want words holding those the author linked to another page kept too", pl)
	}
	// A longer name holding the words one of our links took is another
	// page's name, and is linked (trials lost "student credit card" beside
	// an uplink on "credit card").
	longer := "<p>Ledgerly works out payroll taxes for every employee on the payroll.</p>" +
		"<p>There is a lot more to say about how the system behaves at the end of each quarter, and the filing " +
		"calendar changes from one state to the next, so read the notes for your own state before you start.</p>" +
		"<p>Contractors send their own quarterly payroll taxes estimate each year.</p>"
	reqs[1].Anchors = []string{"quarterly payroll taxes estimate"}
	if _, pls, err := Place([]byte(longer), reqs, Options{}); err != nil || !pls[0].Placed || !pls[1].Placed {
		t.Errorf("placements %+v (%v), want the uplink and the longer name both placed", pls, err)
	}
	if _, pl := placeOne(t, author, LinkRequest{ID: "same", Href: "/payroll-taxes/", Anchors: []string{"payroll taxes"}},
		Options{AllowDuplicateTargets: true}); !pl.Placed {
		t.Errorf("placement %+v, want the same words free to link the page they already link", pl)
	}
	// One word the author linked is held to itself alone: a gardening
	// trial's tag link "tomatoes" held back "grow tomatoes", its uplink.
	oneWord := `<p>We grow tomatoes in pots on a sunny balcony every summer.</p><p>See also <a href="/taxonomy/term/12">tomatoes</a>.</p>`
	grow := LinkRequest{ID: "up", Href: "/tomatoes/", Anchors: []string{"grow tomatoes"}}
	if _, pl := placeOne(t, oneWord, grow, Options{}); !pl.Placed {
		t.Errorf("placement %+v, want a phrase holding one word the author linked elsewhere placed", pl)
	}
	// A CMS's list of tags is no content: its links are not the author's
	// words in the text (termListNames).
	tags := `<p>We grow tomatoes in pots on a sunny balcony every summer.</p>` +
		`<div class="field field--name-field-tags"><a href="/taxonomy/term/12">grow tomatoes</a></div>`
	if _, pl := placeOne(t, tags, grow, Options{}); !pl.Placed {
		t.Errorf("placement %+v, want a tag list's link text no hold on the content's words", pl)
	}
}

// A longer name holding words the author linked to another page is the
// target's own name, not the author's words again: a reef trial's article
// linked "reef tank" to its hub, and its sibling's keyword "reef tank water
// parameters" further down was refused. A phrase made around the author's
// words stays refused.
func TestAnAuthorsLinkedWordsHoldBackNoLongerNameOfTheTarget(t *testing.T) {
	src := `<p>Soft corals are the right first corals for a new <a href="/saltwater/reef-tanks/">reef tank</a>.</p>` +
		"<p>They tolerate moderate light and small swings in alkalinity, and they grow fast enough to frag and trade " +
		"with other keepers at the local club, which is how most of us fill a tank for next to nothing.</p>" +
		"<p>Once they thrive for six months, think about reef tank water parameters in more detail.</p>"
	name := LinkRequest{ID: "params", Href: "/saltwater/reef-tanks/water-parameters/",
		Anchors: []string{"reef tank water parameters"}, Names: []string{"Reef Tank Water Parameters"}}
	out, pl := placeOne(t, src, name, Options{})
	if !pl.Placed || pl.AnchorText != "reef tank water parameters" {
		t.Fatalf("placement %+v, want the target's own longer name placed beside the author's link", pl)
	}
	if !strings.Contains(out, `new <a href="/saltwater/reef-tanks/">reef tank</a>`) {
		t.Errorf("the author's link changed:\n%s", out)
	}
	phrase := name
	phrase.Names = nil
	if _, pl := placeOne(t, src, phrase, Options{}); pl.Placed || !strings.Contains(pl.Reason, "already link another page here") {
		t.Errorf("placement %+v, want the same words as no name of the target refused, saying why", pl)
	}
	same := LinkRequest{ID: "hub-again", Href: "/saltwater/reef-tanks/water-parameters/", Anchors: []string{"reef tank"},
		Names: []string{"reef tank"}}
	if _, pl := placeOne(t, src, same, Options{}); pl.Placed || !strings.Contains(pl.Reason, "already link another page here") {
		t.Errorf("placement %+v, want the author's very words kept from another page, name or not, saying why", pl)
	}
}

// WooCommerce's product meta lists the product's terms: its links are
// no content of the page (a gardening trial's "Category: Tools").
func TestAStoresProductMetaIsNoContent(t *testing.T) {
	src := `<div class="summary entry-summary"><h1>Folding Pruning Saw</h1><p>A 180 mm blade for branches up to 10 cm.</p>` +
		`<div class="product_meta"><span class="sku_wrapper">SKU: <span class="sku">PS-180</span></span>` +
		`<span class="posted_in">Category: <a href="/product-category/tools/" rel="tag">Tools</a></span></div></div>`
	links, err := Links([]byte(src), "https://garden.example/product/saw/", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || links[0].Position == "content" {
		t.Errorf("links %+v, want the category link outside the content", links)
	}
}

// A soft hyphen is not shown: "query per&shy;formance" says the keyword
// "query performance" (a docs trial's uplink found no anchor there), and
// the link's text is the word a reader reads.
func TestASoftHyphenInsideAWordDoesNotHideTheKeyword(t *testing.T) {
	for _, src := range []string{"<p>For most teams the simplest query per&shy;formance wins.</p>", "<p>For most teams the simplest query per\u00adformance wins.</p>"} {
		out, pl := placeOne(t, src, LinkRequest{ID: "l", Href: "/perf/", Anchors: []string{"query performance"}}, Options{})
		if !pl.Placed || pl.AnchorText != "query performance" {
			t.Errorf("%s: placement %+v (%s), want the keyword linked across the soft hyphen", src, pl, out)
		}
	}
	if _, pl := placeOne(t, "<p>Ein guter Rasen&shy;mäher schneidet sauber.</p>", LinkRequest{ID: "l", Href: "/m/", Anchors: []string{"mäher"}}, Options{}); pl.Placed {
		t.Errorf("placement %+v, want no link on half of a compound a soft hyphen splits", pl)
	}
}

func TestPlaceEndOfArticlePrefersLastParagraph(t *testing.T) {
	src := "<p>Boots are great.</p><p>Middle.</p><p>Boots again at the end.</p>"
	_, pl := placeOne(t, src, LinkRequest{ID: "r", Href: "/boots/", Anchors: []string{"boots"},
		Position: Position{EndOfArticle: true}}, Options{})
	if !pl.Placed || pl.Paragraph != 3 {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceParagraphWithTwoLinksIsSkipped(t *testing.T) {
	src := `<p>one</p><p>two</p><p>three</p>` +
		`<p><a href="/a/">a</a> ` + filler(60) + ` <a href="/b/">b</a> hiking socks here.</p>` +
		`<p>Fresh hiking socks.</p>`
	_, pl := placeOne(t, src, LinkRequest{ID: "s", Href: "/socks/", Anchors: []string{"hiking socks"}}, Options{})
	if !pl.Placed || pl.Paragraph != 5 {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceLinksTooCloseMoveOn(t *testing.T) {
	src := `<p><a href="/a/">tents</a> ` + filler(20) + ` camping stoves.</p><p>Compare camping stoves.</p>`
	_, pl := placeOne(t, src, LinkRequest{ID: "s", Href: "/stoves/", Anchors: []string{"camping stoves"}}, Options{})
	if !pl.Placed || pl.Paragraph != 2 {
		t.Fatalf("placement %+v", pl)
	}
	// With 50 words between them it fits in the same paragraph.
	src = `<p><a href="/a/">tents</a> ` + filler(50) + ` camping stoves.</p><p>Compare camping stoves.</p>`
	_, pl = placeOne(t, src, LinkRequest{ID: "s", Href: "/stoves/", Anchors: []string{"camping stoves"}}, Options{})
	if !pl.Placed || pl.Paragraph != 1 {
		t.Fatalf("placement %+v", pl)
	}
}

// A link to another site is no internal link: the seed's density limits
// do not count it.
func TestPlaceDensityCountsOnlyInternalLinks(t *testing.T) {
	src := `<p>Since <a href="https://www.worldathletics.org/rules">World Athletics</a> capped soles, ` + filler(10) +
		` read our running shoe guide.</p><p>More running shoe guide.</p>`
	opts := Options{SiteHost: "www.stride.example"}
	_, pl := placeOne(t, src, LinkRequest{ID: "up", Href: "/running-shoes/", Anchors: []string{"running shoe guide"}}, opts)
	if !pl.Placed || pl.Paragraph != 1 {
		t.Fatalf("placement %+v, want paragraph 1: the link before it goes to another site", pl)
	}
	src = `<p>Since <a href="https://www.stride.example/rules/">our rules</a> capped soles, ` + filler(10) +
		` read our running shoe guide.</p><p>More running shoe guide.</p>`
	_, pl = placeOne(t, src, LinkRequest{ID: "up", Href: "/running-shoes/", Anchors: []string{"running shoe guide"}}, opts)
	if !pl.Placed || pl.Paragraph != 2 {
		t.Fatalf("placement %+v, want paragraph 2: an internal link is 13 words before", pl)
	}
}

func TestPlaceTwoRequestsDensityBetweenThem(t *testing.T) {
	src := `<p>Tents and stoves ` + filler(10) + ` and lanterns.</p><p>Lanterns glow.</p>`
	reqs := []LinkRequest{
		{ID: "1", Href: "/tents/", Anchors: []string{"tents"}},
		{ID: "2", Href: "/lanterns/", Anchors: []string{"lanterns"}},
	}
	out, pls, err := Place([]byte(src), reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if msg := checkPlacement([]byte(src), out, pls); msg != "" {
		t.Fatal(msg)
	}
	if pls[0].Paragraph != 1 || pls[1].Paragraph != 2 {
		t.Fatalf("placements %+v", pls)
	}
}

func TestPlaceRefusesUnsafeHrefs(t *testing.T) {
	for _, href := range []string{
		"javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
		"data:text/html,<script>", "vbscript:msgbox", "//evil.example/x", "/\\evil.example", "https://evil.example/",
		"http://user@www.site.example/", "ftp://www.site.example/", "relative/path", "", "/a\"onmouseover=x",
		"&#106;avascript:alert(1)",
	} {
		_, _, err := Place([]byte("<p>x</p>"), []LinkRequest{{ID: "1", Href: href, Anchors: []string{"x"}}}, Options{SiteHost: "www.site.example"})
		if !errors.Is(err, ErrUnsafeHref) {
			t.Errorf("href %q: err %v, want ErrUnsafeHref", href, err)
		}
	}
	for _, href := range []string{"/ok/", "https://www.site.example/ok/", "HTTP://WWW.SITE.EXAMPLE/ok/?a=1&b=2"} {
		_, _, err := Place([]byte("<p>x</p>"), []LinkRequest{{ID: "1", Href: href, Anchors: []string{"x"}}}, Options{SiteHost: "www.site.example"})
		if err != nil {
			t.Errorf("href %q: %v", href, err)
		}
	}
}

func TestPlaceEscapesHrefAndAttributes(t *testing.T) {
	src := "<p>x marks</p>"
	out, _ := placeOne(t, src, LinkRequest{ID: `i"d<`, Href: "/a/?q=1&r='2'", Anchors: []string{"x"}},
		Options{Attributes: map[string]string{"rel": "nofollow", "class": `a"b`, "data-kind": "uplink"}})
	want := `<p><a href="/a/?q=1&amp;r=&#39;2&#39;" data-interlinker="i&#34;d&lt;" class="a&#34;b" data-kind="uplink" rel="nofollow">x</a> marks</p>`
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	for _, bad := range []string{"onclick", "style", "href", MarkerAttr, "data-", "data-A", "src"} {
		_, _, err := Place([]byte(src), nil, Options{Attributes: map[string]string{bad: "x"}})
		if !errors.Is(err, ErrBadAttribute) {
			t.Errorf("attribute %q: err %v", bad, err)
		}
	}
}

func TestPlaceBadRequests(t *testing.T) {
	for name, reqs := range map[string][]LinkRequest{
		"no id":     {{Href: "/a/"}},
		"dup id":    {{ID: "a", Href: "/a/"}, {ID: "a", Href: "/b/"}},
		"neg first": {{ID: "a", Href: "/a/", Position: Position{FirstParagraphs: -1}}},
	} {
		if _, _, err := Place([]byte("<p>x</p>"), reqs, Options{}); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: err %v", name, err)
		}
	}
	if _, _, err := Place([]byte("<p>x</p>"), nil, Options{Language: "klingon"}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("language: err %v", err)
	}
}

func TestStripInsertedRoundTrip(t *testing.T) {
	src := "<!DOCTYPE html><html><head><title>T</title></head><body>\n" +
		"<p class=x>Caf&eacute; &amp; running&nbsp;shoes&#x21; <!-- c --> trail\n  running shoes</p>\n</body></html>"
	reqs := []LinkRequest{{ID: "1", Href: "/shoes/", Anchors: []string{"running shoes"}}}
	out, pls, err := Place([]byte(src), reqs, Options{MinWordsBetweenLinks: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !pls[0].Placed || pls[0].Anchor != "running&nbsp;shoes" || pls[0].AnchorText != "running shoes" {
		t.Fatalf("placements %+v", pls)
	}
	if msg := checkPlacement([]byte(src), out, pls); msg != "" {
		t.Fatal(msg)
	}
}

func TestStripInternalKeepsExternal(t *testing.T) {
	src := `<h2>Shoes</h2><p>See <a href="/collections/a">A</a>, <a href="https://www.shop.example/collections/b">B</a>, ` +
		`<a href="../c">C</a> and <a href="https://other.com">Other</a> or <a href="#top">top</a>.</p><ul><li>x</li></ul>`
	out, err := StripInternal([]byte(src), "www.shop.example")
	if err != nil {
		t.Fatal(err)
	}
	want := `<h2>Shoes</h2><p>See A, B, C and <a href="https://other.com">Other</a> or <a href="#top">top</a>.</p><ul><li>x</li></ul>`
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
}

// Seed scenario: paragraph 4 already holds 2 injected links and a third
// link's anchor is found there; it goes to a later paragraph.
func TestPlaceThirdLinkSkipsParagraphWithTwoInjected(t *testing.T) {
	p4 := "<p>Tents for two " + filler(55) + " stoves for cooking and lanterns for light.</p>"
	src := "<p>one</p><p>two</p><p>three</p>" + p4 + "<p>" + filler(5) + " lanterns on sale.</p>"
	reqs := []LinkRequest{
		{ID: "1", Href: "/tents/", Anchors: []string{"tents"}},
		{ID: "2", Href: "/stoves/", Anchors: []string{"stoves"}},
		{ID: "3", Href: "/lanterns/", Anchors: []string{"lanterns"}},
	}
	out, pls, err := Place([]byte(src), reqs, Options{MinWordsBetweenLinks: -1})
	if err != nil {
		t.Fatal(err)
	}
	if msg := checkPlacement([]byte(src), out, pls); msg != "" {
		t.Fatal(msg)
	}
	if pls[0].Paragraph != 4 || pls[1].Paragraph != 4 || pls[2].Paragraph != 5 {
		t.Fatalf("placements %+v", pls)
	}
	// Only 20 words apart, the second link does not fit the density rule
	// and its anchor appears nowhere else.
	src = "<p>Tents for two " + filler(20) + " stoves for cooking.</p>"
	_, pls, _ = Place([]byte(src), reqs[:2], Options{})
	if !pls[0].Placed || pls[1].Placed || !strings.Contains(pls[1].Reason, "density") {
		t.Fatalf("placements 20 words apart: %+v", pls)
	}
}

func TestPlaceDuplicateTargets(t *testing.T) {
	src := `<p>See <a href="https://www.shop.example/boots/">our range</a>. Boots and more boots ` + filler(60) + ` boots.</p>`
	_, pl := placeOne(t, src, LinkRequest{ID: "1", Href: "/boots/", Anchors: []string{"boots"}}, Options{SiteHost: "www.shop.example"})
	if pl.Placed || !strings.Contains(pl.Reason, "already links") {
		t.Fatalf("placement %+v", pl)
	}
	_, pl = placeOne(t, src, LinkRequest{ID: "1", Href: "/boots/", Anchors: []string{"boots"}}, Options{SiteHost: "www.shop.example", AllowDuplicateTargets: true})
	if !pl.Placed {
		t.Fatalf("placement %+v", pl)
	}
	// An ID the page already carries is not placed twice.
	src = `<p><a href="/x/" data-interlinker="7">x</a> and boots</p>`
	out, pls, err := Place([]byte(src), []LinkRequest{{ID: "7", Href: "/y/", Anchors: []string{"boots"}}}, Options{})
	if err != nil || pls[0].Placed || string(out) != src {
		t.Fatalf("placement %+v, %v", pls[0], err)
	}
}

// Writers link a page in many forms, and each is a link to it: a second
// link to the same page beside the author's would be a duplicate to a
// reader, whatever its href says.
func TestPlaceCountsTheAuthorsLinkToThePageInAnyFormAsLinkingItAlready(t *testing.T) {
	opts := Options{SiteHost: "www.shop.example", PageURL: "/gear/boot-care/"}
	req := LinkRequest{ID: "1", Href: "/gear/boots/", Anchors: []string{"boots"}}
	for _, href := range []string{
		"/gear/boots", "/gear/boots/#fit", "/gear/boots?ref=care", "/gear/boots/?ref=care#fit",
		"https://www.shop.example/gear/boots", "HTTPS://WWW.SHOP.EXAMPLE/gear/boots/#fit", "../boots/", "../boots#fit",
	} {
		src := `<p>See <a href="` + href + `">our range</a>. Boots and more boots ` + filler(60) + ` boots.</p>`
		if _, pl := placeOne(t, src, req, opts); pl.Placed || !strings.Contains(pl.Reason, ReasonAlreadyLinked) {
			t.Errorf("with the author's link %q the page was linked again: %+v", href, pl)
		}
	}
	// Another page, whatever it shares with the target's path, is not it.
	for _, href := range []string{"/gear/boots-sale/", "/gear/boots/laces/", "/gear/", "https://elsewhere.example/gear/boots/", "../../boots/"} {
		src := `<p>See <a href="` + href + `">our range</a>. Boots and more boots ` + filler(60) + ` boots.</p>`
		if _, pl := placeOne(t, src, req, opts); !pl.Placed {
			t.Errorf("a link to %q stopped the link to /gear/boots/: %+v", href, pl)
		}
	}
}

func TestPlaceDuplicateTargetsInBodyOnlyIgnoresMenuLinks(t *testing.T) {
	body := `<p>Boots and more boots ` + filler(60) + ` boots.</p>`
	opts := Options{SiteHost: "www.shop.example", DuplicateTargetsInBodyOnly: true}
	for _, around := range []string{
		`<nav><a href="/boots/">Boots</a></nav>`,
		`<header><a href="https://www.shop.example/boots/">Boots</a></header>`,
		`<footer><a href="/boots/">Boots</a></footer>`,
		`<div role="navigation"><a href="/boots/">Boots</a></div>`,
	} {
		_, pl := placeOne(t, around+body, LinkRequest{ID: "1", Href: "/boots/", Anchors: []string{"boots"}}, opts)
		if !pl.Placed {
			t.Errorf("with %s the in-body link was refused: %+v", around, pl)
		}
	}
	// An in-body link to the target still counts.
	src := `<p>See <a href="/boots/">our range</a>.</p>` + body
	_, pl := placeOne(t, src, LinkRequest{ID: "1", Href: "/boots/", Anchors: []string{"boots"}}, opts)
	if pl.Placed || !strings.Contains(pl.Reason, "already links") {
		t.Fatalf("a second in-body link was placed: %+v", pl)
	}
}

func TestPlaceMalformedPageIsCheckedByParser(t *testing.T) {
	// Misnested formatting makes the scanner unsure; the parser has the
	// last word and the link still lands in the paragraph.
	src := `<p><b>bold <i>both</b> italic</i> and trail maps here</p>`
	doc, _ := scanDocument([]byte(src), wantFold)
	if !doc.uncertain {
		t.Fatal("misnested markup not flagged")
	}
	_, pl := placeOne(t, src, LinkRequest{ID: "1", Href: "/maps/", Anchors: []string{"trail maps"}}, Options{})
	if !pl.Placed {
		t.Fatalf("placement %+v", pl)
	}
	// A well-formed page never pays for a parse.
	doc, _ = scanDocument([]byte(`<p><b>bold</b> <i>it</i> trail maps</p><ul><li>x<li>y</ul>`), wantFold)
	if doc.uncertain {
		t.Fatal("well-formed markup flagged")
	}
}

func TestPlaceAcrossEntitiesAndWhitespace(t *testing.T) {
	cases := []struct{ src, anchor, want string }{
		{"<p>Boots &amp; Socks sale</p>", "boots & socks", "Boots &amp; Socks"},
		{"<p>Boots&#38;Socks</p>", "boots&socks", "Boots&#38;Socks"},
		{"<p>caf&#xE9; au lait</p>", "café au lait", "caf&#xE9; au lait"},
		{"<p>trail\n\t\t&nbsp; map</p>", "trail map", "trail\n\t\t&nbsp; map"},
		{"<p>trail&#32;map</p>", "trail map", "trail&#32;map"},
		{"<p>It&rsquo;s here</p>", "it's here", "It&rsquo;s here"},
		{"<p>Fish &amp chips</p>", "fish & chips", "Fish &amp chips"}, // legacy reference without ';'
	}
	for _, c := range cases {
		_, pl := placeOne(t, c.src, LinkRequest{ID: "1", Href: "/x/", Anchors: []string{c.anchor}}, Options{Language: "none"})
		if !pl.Placed || pl.Anchor != c.want {
			t.Errorf("%q in %q: %+v", c.anchor, c.src, pl)
		}
	}
	// An anchor in the request is text, not HTML: "&amp;" is five characters.
	_, pl := placeOne(t, "<p>Boots &amp; Socks</p>", LinkRequest{ID: "1", Href: "/x/", Anchors: []string{"boots &amp; socks"}}, Options{})
	if pl.Placed {
		t.Errorf("HTML in an anchor matched: %+v", pl)
	}
}

// A request for whole phrases passes over an occurrence that starts a
// longer noun phrase, as Options.GoesOn tells, and takes the next one;
// with only such occurrences it is not placed, and says why. A request
// without WholePhrase takes the first occurrence as before.
func TestAWholePhraseRequestPassesOverTheFrontOfALongerPhrase(t *testing.T) {
	goesOn := func(_, phrase, following string) bool {
		return phrase == "exterior paint" && strings.HasPrefix(strings.TrimSpace(following), "prep")
	}
	opts := Options{GoesOn: goesOn, MinWordsBetweenLinks: -1}
	src := "<p>This article is about exterior paint prep before the first coat.</p>\n<p>" + filler(20) +
		" Choosing exterior paint comes after.</p>\n"
	req := LinkRequest{ID: "l1", Href: "/paint/", Anchors: []string{"exterior paint"}, WholePhrase: true}

	out, pl := placeOne(t, src, req, opts)
	if !pl.Placed || pl.ContentParagraph != 2 || !strings.Contains(out, `Choosing <a href="/paint/" data-interlinker="l1">exterior paint</a> comes`) {
		t.Errorf("placed %+v in %s, want the whole phrase in paragraph 2", pl, out)
	}

	req.Position.FirstParagraphs = 1
	if _, pl := placeOne(t, src, req, opts); pl.Placed || pl.Reason != "candidate anchor found in paragraph 1 only as the front of a longer phrase" {
		t.Errorf("paragraph 1 only: %+v, want it refused with the reason", pl)
	}

	req.WholePhrase = false
	if _, pl := placeOne(t, src, req, opts); !pl.Placed || pl.ContentParagraph != 1 {
		t.Errorf("without WholePhrase: %+v, want the first occurrence", pl)
	}
}

// An occurrence inside another page's longer name names that page: the
// request passes over it, whatever its other options, and says so when
// nothing else is found.
func TestAnOccurrenceInsideAnotherPagesLongerNameIsPassedOver(t *testing.T) {
	opts := Options{MinWordsBetweenLinks: -1}
	src := "<p>A Cedar Raised Bed lasts for years.</p>\n<p>Our raised bed guide covers the rest.</p>\n"
	req := LinkRequest{ID: "up", Href: "/raised-beds/", Anchors: []string{"raised bed"},
		Position: Position{FirstParagraphs: 2}, WholePhraseFirst: true, NotWithin: []string{"cedar raised bed", "raised bed soil mix"}}
	out, pl := placeOne(t, src, req, opts)
	if !pl.Placed || pl.ContentParagraph != 2 || !strings.Contains(out, `Our <a href="/raised-beds/" data-interlinker="up">raised bed</a> guide`) {
		t.Errorf("placed %+v in %s, want paragraph 2's phrase, not the one inside \"cedar raised bed\"", pl, out)
	}

	req.Position.FirstParagraphs = 1
	if _, pl := placeOne(t, src, req, opts); pl.Placed || pl.Reason != "candidate anchor found in paragraph 1 only inside a longer name: another page's, or the target's own" {
		t.Errorf("paragraph 1 only: %+v, want it refused with the reason", pl)
	}

	req.NotWithin = []string{"raised bed soil mix", "bed lasts"}
	if _, pl := placeOne(t, src, req, opts); !pl.Placed || pl.ContentParagraph != 1 {
		t.Errorf("no longer name around it: %+v, want the first occurrence", pl)
	}
}

// The longer name may be said in another form: a Russian trial's uplink
// took "[обрезки смородины]" inside "осенней обрезки смородины", a
// sibling's name "осенняя обрезка смородины" in another case; an English
// name in the plural holds its words as the singular does.
func TestAnOccurrenceInsideAnotherPagesLongerNameInAnotherFormIsPassedOver(t *testing.T) {
	for _, c := range []struct{ lang, src, anchor, longer string }{
		{"russian", "<p>Заготавливать их удобно во время осенней обрезки смородины.</p>", "обрезка смородины", "осенняя обрезка смородины"},
		{"english", "<p>Fill the cedar raised beds with compost.</p>", "raised bed", "cedar raised bed"},
	} {
		req := LinkRequest{ID: "up", Href: "/x/", Anchors: []string{c.anchor}, NotWithin: []string{c.longer}}
		if out, pl := placeOne(t, c.src, req, Options{Language: c.lang}); pl.Placed {
			t.Errorf("%s: placed %+v in %s, want it passed over inside %q", c.lang, pl, out, c.longer)
		}
		req.NotWithin = nil
		if _, pl := placeOne(t, c.src, req, Options{Language: c.lang}); !pl.Placed {
			t.Errorf("%s: %+v, want it placed with no longer name around it", c.lang, pl)
		}
	}
}

// An occurrence that cuts across one of the target's own names in the
// text (LinkRequest.NotCutting) is passed over; one that holds the name
// whole, or lies apart from it, is not.
func TestAnOccurrenceCuttingTheTargetsOwnNameIsPassedOver(t *testing.T) {
	opts := Options{MinWordsBetweenLinks: -1}
	src := "<p>Our page on burgundy wine for cooking goes deeper.</p>\n<p>Read the page on burgundy wine before you shop.</p>\n"
	req := LinkRequest{ID: "w", Href: "/wine/", Anchors: []string{"page on burgundy wine"}, Position: Position{FirstParagraphs: 2},
		NotCutting: []string{"burgundy wine for cooking"}}
	if _, pl := placeOne(t, src, req, opts); !pl.Placed || pl.ContentParagraph != 2 {
		t.Errorf("placed %+v, want paragraph 2's phrase, not the one cutting \"burgundy wine for cooking\"", pl)
	}
	req.Anchors = []string{"our page on burgundy wine for cooking"}
	if _, pl := placeOne(t, src, req, opts); !pl.Placed || pl.ContentParagraph != 1 {
		t.Errorf("placed %+v, want paragraph 1's phrase, which holds the name whole", pl)
	}
}

// A name the text says whole across inline formatting is one occurrence:
// "<em>rate</em> limit headers" reads "rate limit headers", so a link on
// "limit headers" would sit inside the longer name, or cut the target's
// own (trial N).
func TestALongerNameSplitByInlineFormattingIsStillWhole(t *testing.T) {
	opts := Options{MinWordsBetweenLinks: -1}
	src := "<p>We also found that <em>rate</em> limit headers deserves a checklist.</p>\n" +
		"<p>Limit headers tell a client when to retry.</p>\n"
	for _, req := range []LinkRequest{
		{ID: "w", Href: "/limits/", Anchors: []string{"limit headers"}, Position: Position{FirstParagraphs: 2},
			NotWithin: []string{"rate limit headers"}},
		{ID: "c", Href: "/limits/", Anchors: []string{"limit headers deserves"}, Position: Position{FirstParagraphs: 2},
			NotCutting: []string{"rate limit headers"}},
	} {
		if out, pl := placeOne(t, src, req, opts); pl.Placed && pl.ContentParagraph == 1 {
			t.Errorf("%s: placed %+v in %s, want nothing in paragraph 1, where <em> splits the longer name", req.ID, pl, out)
		}
	}
	// an existing link's text between the words is no inline formatting
	src = "<p>We also found that <a href=\"/rate/\">rate</a> limit headers deserve a checklist.</p>\n"
	req := LinkRequest{ID: "w", Href: "/limits/", Anchors: []string{"limit headers"}, Position: Position{FirstParagraphs: 2},
		NotWithin: []string{"rate limit headers"}}
	if out, pl := placeOne(t, src, req, opts); !pl.Placed {
		t.Errorf("placed %+v in %s, want the phrase after the existing link placed", pl, out)
	}
}

// A request that must be placed tries whole phrases first and takes the
// front of a longer phrase only when the text has nothing else.
func TestAWholePhraseFirstRequestTakesAFragmentOnlyAsALastResort(t *testing.T) {
	goesOn := func(_, phrase, following string) bool {
		return strings.HasPrefix(strings.TrimSpace(following), "budget")
	}
	opts := Options{GoesOn: goesOn, MinWordsBetweenLinks: -1}
	req := LinkRequest{ID: "up", Href: "/remodel/", Anchors: []string{"bathroom remodel", "remodel guide"},
		Position: Position{FirstParagraphs: 2}, WholePhraseFirst: true}

	src := "<p>This is about bathroom remodel budget.</p>\n<p>See the remodel guide first.</p>\n"
	if out, pl := placeOne(t, src, req, opts); !pl.Placed || pl.AnchorText != "remodel guide" {
		t.Errorf("placed %+v in %s, want the whole phrase, the second candidate", pl, out)
	}
	src = "<p>This is about bathroom remodel budget.</p>\n<p>Nothing else here.</p>\n"
	if out, pl := placeOne(t, src, req, opts); !pl.Placed || pl.AnchorText != "bathroom remodel" {
		t.Errorf("placed %+v in %s, want the fragment, the only occurrence", pl, out)
	}
}

// A link bound to come after another (the page's uplink) passes over
// occurrences before it, and is placed freely when that one is not placed.
func TestALinkBoundToFollowTheUplinkGoesAfterIt(t *testing.T) {
	src := "<p>Pick the right exterior paint before anything else.</p>\n<p>" + filler(10) +
		" Our guide to house painting has the order of work. Exterior paint needs a dry day.</p>\n"
	opts := Options{MinWordsBetweenLinks: -1}
	up := LinkRequest{ID: "up", Href: "/painting/", Anchors: []string{"guide to house painting"}, Position: Position{FirstParagraphs: 2}}
	sib := LinkRequest{ID: "sib", Href: "/paint/", Anchors: []string{"exterior paint"}, Position: Position{After: "up"}}

	out, pls, err := Place([]byte(src), []LinkRequest{up, sib}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !pls[0].Placed || !pls[1].Placed || pls[1].Start < pls[0].End {
		t.Errorf("placements %+v in %s, want the sibling after the uplink", pls, out)
	}

	sib.Position.FirstParagraphs = 1
	if _, pls, _ := Place([]byte(src), []LinkRequest{up, sib}, opts); pls[1].Placed ||
		pls[1].Reason != "candidate anchor found only before the link it must follow (the page's uplink comes first)" {
		t.Errorf("sibling bound to paragraph 1: %+v, want it refused with the reason", pls[1])
	}

	// The uplink not placed: the links that follow it wait for it, since
	// any of them would be the page's first link and fail first_link_rule
	// (trials shipped such flagged links); the LLM fallback or a later
	// plan places the uplink, and they follow it.
	up.Anchors = []string{"no such words"}
	sib.Position.FirstParagraphs = 0
	const waits = "waits for the page's uplink, which has no anchor yet: the uplink is the page's first link (first_link_rule), and the others follow it"
	if _, pls, _ := Place([]byte(src), []LinkRequest{up, sib}, opts); pls[1].Placed || pls[1].Reason != waits {
		t.Errorf("uplink not placed: sibling %+v, want it waiting, saying why", pls[1])
	}
	// So do they when the uplink is asked for with no anchor at all (its
	// candidates all at the anchor cap).
	capped := up
	capped.Anchors = nil
	if _, pls, err := Place([]byte(src), []LinkRequest{capped, sib}, opts); err != nil || pls[1].Placed {
		t.Errorf("uplink with no anchor: sibling %+v (%v), want it waiting", pls[1], err)
	}
	third := src + "<p>Exterior paint dries slower in autumn.</p>\n"
	if _, pls, _ := Place([]byte(third), []LinkRequest{up, sib}, opts); pls[1].Placed {
		t.Errorf("uplink not placed: sibling %+v, want it waiting in paragraph 3 too", pls[1])
	}
	// Once the uplink is in the page (the fallback placed it), the links
	// that follow it go after it.
	withUp := "<p>Pick the right exterior paint before anything else.</p>\n<p>" + filler(10) +
		` See <a href="/painting/" data-interlinker="up">house painting</a> for the order of work. Exterior paint needs a dry day.</p>` + "\n"
	if _, pls, _ := Place([]byte(withUp), []LinkRequest{up, sib}, opts); !pls[1].Placed || pls[1].ContentParagraph != 2 {
		t.Errorf("uplink in the page: sibling %+v, want it after the uplink, in paragraph 2", pls[1])
	}
	// The author's own link to the hub in paragraphs 1-2 stands in for
	// the uplink: the sibling goes after it.
	authored := "<p>Pick the right exterior paint first; see <a href=\"/painting/\">painting</a>.</p>\n<p>" + filler(10) +
		" Exterior paint needs a dry day.</p>\n"
	if _, pls, _ := Place([]byte(authored), []LinkRequest{up, sib}, opts); !pls[1].Placed || pls[1].ContentParagraph != 2 {
		t.Errorf("author's hub link in paragraph 1: sibling %+v, want it after that link, in paragraph 2", pls[1])
	}
}

// A reader's comment is not the page's text: a link is never spliced
// into it, even where the comment is the only place its anchor occurs,
// its words are not the content's, and a link a reader left there is in
// the comment section, not in the body.
func TestACommentSectionIsNeitherContentNorAPlaceForLinks(t *testing.T) {
	article := `<article><h1>Pruning roses</h1><p>Prune in late winter, above an outward bud.</p></article>`
	comment := `<div class="comment-author"><a href="https://reader.example/" rel="ugc external nofollow">Ann</a></div>` +
		`<div class="comment-content"><p>Which climbing roses need this?</p><p>See <a href="/roses/">my rose list</a>.</p></div>`
	sections := map[string]string{
		// WordPress's differs in names (div#comments.comments-area).
		"drupal": `<section id="comments" class="comments"><h2>2 comments</h2><div class="comment-wrapper">` + comment + `</div></section>`,
		// schema.org microdata, whatever the theme calls its elements.
		"microdata comment":       `<div class="feedback"><div itemprop="comment" itemscope itemtype="https://schema.org/Comment">` + comment + `</div></div>`,
		"microdata type only":     `<div class="thread"><article itemscope itemtype="http://schema.org/Comment">` + comment + `</article></div>`,
		"microdata user comments": `<div itemscope itemtype="https://schema.org/UserComments">` + comment + `</div>`,
	}
	for name, section := range sections {
		t.Run(name, func(t *testing.T) {
			page := `<main>` + article + section + `</main>`
			out, pl := placeOne(t, page, LinkRequest{ID: "l1", Href: "/roses/climbing/", Anchors: []string{"climbing roses"}}, Options{})
			if pl.Placed || out != page {
				t.Errorf("a link was placed in a comment: %+v\n%s", pl, out)
			}
			if got, want := WordCount([]byte(page)), WordCount([]byte(article)); got != want {
				t.Errorf("WordCount of the page with comments %d, of its article %d", got, want)
			}
			links, _ := Links([]byte(page), "https://garden.example/pruning/", "garden.example")
			if len(links) != 2 {
				t.Fatalf("links %+v, want the comment's two", links)
			}
			for _, l := range links {
				if l.Position != "comments" || l.ContentParagraph != 0 {
					t.Errorf("link %q: position %q, content paragraph %d; want the comment section's, in no content paragraph",
						l.Text, l.Position, l.ContentParagraph)
				}
			}
		})
	}
}

// A post's author box is no part of its content (trial t10's food blog had
// a cross-cluster link placed in the bio): no link goes there, its words
// and paragraphs are not the content's, and its links are the aside's.
func TestAnAuthorBoxIsNeitherContentNorAPlaceForLinks(t *testing.T) {
	article := `<p>Jam sets when the fruit's pectin meets sugar and acid.</p><p>Test the set on a cold plate.</p>`
	bio := `<p>Maya bakes on weekends and keeps far too much homemade jam in the pantry. ` +
		`<a href="/author/maya-lind/">More by Maya</a></p>`
	boxes := map[string]string{
		"wordpress theme":   `<div class="author-box clearfix">` + bio + `</div>`,
		"post author block": `<div class="wp-block-post-author"><div class="wp-block-post-author__content">` + bio + `</div></div>`,
		"microdata":         `<div itemprop="author" itemscope itemtype="https://schema.org/Person">` + bio + `</div>`,
		"elementor widget": `<div class="elementor-element elementor-widget elementor-widget-author-box"><div class="elementor-author-box">` +
			`<div class="elementor-author-box__text"><div class="elementor-author-box__bio">` + bio + `</div></div></div></div>`,
	}
	for name, box := range boxes {
		t.Run(name, func(t *testing.T) {
			page := `<article><h1>Strawberry jam</h1>` + article + box + `</article>`
			out, pl := placeOne(t, page, LinkRequest{ID: "l1", Href: "/jam/", Anchors: []string{"homemade jam"}}, Options{})
			if pl.Placed || out != page {
				t.Errorf("a link was placed in the author box: %+v\n%s", pl, out)
			}
			if got, want := WordCount([]byte(page)), WordCount([]byte(`<h1>Strawberry jam</h1>`+article)); got != want {
				t.Errorf("WordCount of the page with its author box %d, without it %d", got, want)
			}
			links, _ := Links([]byte(page), "https://jam.example/strawberry/", "jam.example")
			if len(links) != 1 || links[0].Position != "aside" || links[0].ContentParagraph != 0 {
				t.Errorf("links %+v, want the bio's one link in the aside, in no content paragraph", links)
			}
		})
	}
}

// A newsletter or sign-up box is no part of the content: a trial's travel
// blog had sibling links placed in the pitch its box repeated on every
// article ("This month: Kyoto cherry blossom season…").
func TestASignUpBoxIsNeitherContentNorAPlaceForLinks(t *testing.T) {
	article := `<p>Kyoto's temples open at dawn.</p><p>Go early to beat the crowds.</p>`
	pitch := `<p>This month: Kyoto cherry blossom season, the dates and the best viewing spots.</p>`
	for _, box := range []string{
		`<div class="newsletter-signup">` + pitch + `<form action="/subscribe/"><input type="email"></form></div>`,
		`<div id="mc_embed_signup">` + pitch + `</div>`,
		`<aside-like class="wp-block-group optin-box">` + pitch + `</aside-like>`,
		`<section class="subscribe-cta">` + pitch + `</section>`,
	} {
		page := `<article><h1>Kyoto temples at dawn</h1>` + article + box + `</article>`
		out, pl := placeOne(t, page, LinkRequest{ID: "l1", Href: "/kyoto/cherry-blossom/", Anchors: []string{"Kyoto cherry blossom season"}}, Options{})
		if pl.Placed || out != page {
			t.Errorf("%s: a link was placed in the sign-up box: %+v\n%s", box, pl, out)
		}
		if got, want := WordCount([]byte(page)), WordCount([]byte(`<h1>Kyoto temples at dawn</h1>`+article)); got != want {
			t.Errorf("%s: WordCount with the box %d, without it %d", box, got, want)
		}
	}
	// The classes of a post's terms, a page's features and a subscriber's
	// content name no box: the content is the content.
	for _, content := range []string{
		`<article class="post type-post category-newsletter tag-subscribe has-breadcrumbs">` + pitch + `</article>`,
		`<body class="single-newsletter"><div class="entry-content subscriber-only">` + pitch + `</div></body>`,
	} {
		if _, pl := placeOne(t, content, LinkRequest{ID: "l1", Href: "/kyoto/cherry-blossom/", Anchors: []string{"Kyoto cherry blossom season"}}, Options{}); !pl.Placed {
			t.Errorf("%s: no link placed in the content: %+v", content, pl)
		}
	}
}

// A related-posts plugin's block is its list, not the writer's links: a
// trial's audit counted YARPP's and Jetpack's links as in-body and its
// fixes unwrapped them. An affiliate disclosure is boilerplate, not
// paragraph 1 of the article; a recipe card is structured data, not the
// post's prose (a recipe trial had links placed in its notes), and a
// classic editor's caption is a caption.
func TestARelatedPostsBlockAndADisclosureAreNoContent(t *testing.T) {
	article := `<p>Cloudy water after a water change is a bacterial bloom.</p><p>It clears on its own within a week.</p>`
	for _, box := range []string{
		`<div class='yarpp yarpp-related yarpp-related-website'><h3>Related posts:</h3><ol><li><a href="/fishless-cycling/">Fishless Cycling</a></li></ol></div>`,
		`<div id="jp-relatedposts" class="jp-relatedposts"><p class="jp-relatedposts-post"><a href="/ammonia-spike/">Ammonia spike</a> in a new tank</p></div>`,
		`<div class="crp_related"><ul><li><a href="/water-changes/">Water changes</a></li></ul></div>`,
		`<p class="affiliate-disclosure">This post contains affiliate links. <a href="/disclosure/">Learn more</a></p>`,
		`<div class="wp-block-group aviso-afiliados"><p class="has-small-font-size">Este artículo contiene enlaces de afiliados. <a href="/aviso/">Más información</a></p></div>`,
		`<div id="wprm-recipe-container-812" class="wprm-recipe-container"><div class="wprm-recipe-notes"><p>Use the <a href="/sourdough-starter/">sourdough starter</a> at its peak.</p></div></div>`,
		`<div class="wp-caption aligncenter"><img src="/a.jpg"><p class="wp-caption-text">The bloom, day two. <a href="/ammonia/">Why</a></p></div>`,
		// A French trial's home page listed its posts with Elementor's
		// Posts widget; the block editor's Latest Posts is the same.
		`<div class="elementor-element elementor-widget elementor-widget-posts"><div class="elementor-posts-container elementor-posts"><article class="elementor-post"><h3 class="elementor-post__title"><a href="/ammonia-spike/">Ammonia spike</a></h3></article></div></div>`,
		`<ul class="wp-block-latest-posts__list wp-block-latest-posts"><li><a class="wp-block-latest-posts__post-title" href="/ammonia-spike/">Ammonia spike</a></li></ul>`,
		// A pet store trial's "You may also like" carousel (Shopify), and
		// WooCommerce's related products and an announcement bar.
		`<product-recommendations class="product-recommendations"><h2>You may also like</h2><div class="card"><h3 class="card__heading"><a href="/products/sponge-filter">Double Sponge Filter</a></h3></div></product-recommendations>`,
		`<section class="related products"><h2>Related products</h2><ul class="products"><li><a href="/product/sponge-filter/">Sponge Filter</a></li></ul></section>`,
		`<div class="announcement-bar" role="region"><p class="announcement-bar__message">Free shipping over $50 — <a href="/pages/shipping">details</a></p></div>`,
	} {
		page := `<article><h1>Cloudy aquarium water</h1>` + box + article + `</article>`
		links, err := Links([]byte(page), "https://tank.example/cloudy/", "tank.example")
		if err != nil || len(links) != 1 || links[0].Position != "aside" || links[0].ContentParagraph != 0 {
			t.Errorf("%s: links %+v (err %v), want its one link in the aside", box, links, err)
		}
		req := LinkRequest{ID: "up", Href: "/water-quality/", Anchors: []string{"bacterial bloom"}, Position: Position{FirstParagraphs: 1}}
		if _, pl := placeOne(t, page, req, Options{}); !pl.Placed || pl.ContentParagraph != 1 {
			t.Errorf("%s: uplink %+v, want it in content paragraph 1, the box not counted", box, pl)
		}
	}
}

// Themes name their boxes in their site's language: an Italian trial's
// newsletter and author boxes got links, its related-posts block counted
// as the writer's links, its table of contents as paragraph 1, and its
// breadcrumb trail as content.
func TestBoxesNamedInTheSitesLanguageAreNoContent(t *testing.T) {
	article := `<p>La granita siciliana si mangia a colazione con la brioche.</p><p>A Catania la preferiscono alla mandorla.</p>`
	for _, c := range []struct{ box, position string }{
		{`<div class="box-iscrizione"><p>Resta aggiornato: ogni mese un itinerario per le <a href="/eolie/">isole Eolie</a>.</p></div>`, "aside"},
		{`<div class="box-autore"><p>Giulia è palermitana: ama la <a href="/arancine/">arancina al ragù</a>.</p></div>`, "aside"},
		{`<div class="articoli-correlati"><p><a href="/palermo/">Palermo in tre giorni</a></p></div>`, "aside"},
		{`<div class="indice-contenuti"><p class="indice-titolo">Indice dei contenuti</p><ol><li><a href="#storia">Storia</a></li></ol></div>`, ""},
		{`<nav class="briciole" aria-label="Ti trovi in"><a href="/">Home</a> › <a href="/sicilia/">Sicilia</a></nav>`, "navigation"},
		{`<p class="fil-ariane"><a href="/">Accueil</a> › <a href="/sicile/">Sicile</a></p>`, "navigation"},
		// a Portuguese trial's newsletter box
		{`<section class="box-assine"><h3>Assine nossa newsletter</h3><p>Nesta semana, o nosso <a href="/pao/">pão na panela de ferro</a>.</p></section>`, "aside"},
		{`<div class="inscreva-se"><p>Receba as <a href="/receitas/">receitas da semana</a>.</p></div>`, "aside"},
	} {
		page := `<article>` + c.box + article + `</article>`
		links, err := Links([]byte(page), "https://italia.example/granita/", "italia.example")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if l.JumpsWithinPage() {
				continue
			}
			if l.Position != c.position || l.ContentParagraph != 0 {
				t.Errorf("%s: link %q at %q, content paragraph %d; want %q, in no content paragraph", c.box, l.Text, l.Position, l.ContentParagraph, c.position)
			}
		}
		req := LinkRequest{ID: "up", Href: "/dolci-siciliani/", Anchors: []string{"granita siciliana"}, Position: Position{FirstParagraphs: 1}}
		if _, pl := placeOne(t, page, req, Options{Language: "italian"}); !pl.Placed || pl.ContentParagraph != 1 {
			t.Errorf("%s: uplink %+v, want it in content paragraph 1, the box not counted", c.box, pl)
		}
	}
	if own := FindOwnTrail([]byte(`<nav class="briciole"><a href="/">Home</a></nav><p>Testo.</p>`)); !own.Visible {
		t.Error(`FindOwnTrail misses <nav class="briciole">`)
	}
}

// Customers' reviews are comments: a pet store trial's fix placed a link
// inside a Judge.me review.
func TestAStoresCustomerReviewsAreComments(t *testing.T) {
	article := `<p>A sponge filter is the gentlest filter for a shrimp tank.</p><p>Rinse it in tank water, never under the tap.</p>`
	for _, reviews := range []string{
		`<div class="jdgm-rev-widg"><div class="jdgm-rev__body"><p>I followed your advice on <a href="/switching-food/">switching food</a>, and my betta fish loves it.</p></div></div>`,
		`<div id="shopify-product-reviews" class="spr-container"><div class="spr-review-content"><p>Great for my <a href="/shrimp/">shrimp</a>, and my betta fish too.</p></div></div>`,
		`<div id="reviews" class="woocommerce-Reviews"><ol class="commentlist"><li><p>Works well in a <a href="/nano/">nano tank</a> with a betta fish.</p></li></ol></div>`,
	} {
		page := `<main>` + article + reviews + `</main>`
		links, err := Links([]byte(page), "https://pets.example/products/sponge-filter", "pets.example")
		if err != nil || len(links) != 1 || links[0].Position != "comments" {
			t.Errorf("%s: links %+v (err %v), want its one link in the comments", reviews, links, err)
		}
		req := LinkRequest{ID: "r", Href: "/betta-care/", Anchors: []string{"betta fish"}}
		if _, pl := placeOne(t, page, req, Options{}); pl.Placed {
			t.Errorf("%s: placed in the reviews: %+v", reviews, pl)
		}
	}
}

// Selling is no prose: a home-services trial had links placed in
// Elementor's CTA widget, a testimonial slider, a coupon box and trust
// badges, and its "Book online" buttons counted against density.
func TestCallsToActionTestimonialsCouponsBadgesAndButtonsAreNoContent(t *testing.T) {
	article := `<p>A water heater that won't stay hot usually has a failing element.</p><p>Sediment is the other usual suspect.</p>`
	pitch := `<p>Same-day water heater repair across Austin, with a free estimate.</p>`
	for _, box := range []string{
		`<div class="elementor-element elementor-widget elementor-widget-call-to-action"><div class="elementor-cta__content"><div class="elementor-cta__description">` + pitch + `</div></div></div>`,
		`<div class="strong-view wpmtst-slider"><div class="testimonial-content">` + pitch + `</div></div>`,
		`<div class="coupon-box">` + pitch + `</div>`,
		`<div class="elementor-icon-box-wrapper trust-badge">` + pitch + `</div>`,
	} {
		page := `<article><h1>Water heater trouble</h1>` + article + box + `</article>`
		out, pl := placeOne(t, page, LinkRequest{ID: "l1", Href: "/water-heaters/", Anchors: []string{"water heater repair"}}, Options{})
		if pl.Placed || out != page {
			t.Errorf("%s: a link was placed in it: %+v", box, pl)
		}
	}
	// A button is no in-body link: it counts against no density.
	page := `<article><p>Call us or <a class="elementor-button elementor-size-sm" href="/book-online/">Book online</a> today.</p>` +
		`<p><a class="wp-block-button__link" href="/estimate/">Get an estimate</a></p></article>`
	links, err := Links([]byte(page), "https://plumb.example/water-heaters/", "plumb.example")
	if err != nil || len(links) != 2 {
		t.Fatalf("links %+v (err %v), want the two buttons", links, err)
	}
	for _, l := range links {
		if l.Position == "content" {
			t.Errorf("button %q is an in-body link", l.Text)
		}
	}
}

// A table of contents is navigation: a trial's Easy TOC title, a <p> after
// the first paragraph, was counted as paragraph 2.
func TestATableOfContentsIsNavigation(t *testing.T) {
	for _, toc := range []string{
		`<div id="ez-toc-container" class="ez-toc-v2_0 counter-hierarchy"><p class="ez-toc-title">Table of Contents</p><nav><ul><li><a href="#causes">Causes</a></li></ul></nav></div>`,
		`<div id="toc_container" class="no_bullets"><p class="toc_title">Contents</p><ul class="toc_list"><li><a href="#causes">Causes</a></li></ul></div>`,
		`<div class="wp-block-yoast-seo-table-of-contents yoast-table-of-contents"><p>Contents</p></div>`,
		// A theme's own names (a finance trial's "toc" and "article-toc").
		`<div class="toc"><p class="toc-title">In this article</p><ol><li><a href="#causes">Causes</a></li></ol></div>`,
		`<div class="article-toc"><p>In this article</p></div>`,
	} {
		page := `<article><p>Cloudy water is common in new tanks.</p>` + toc + `<p>A water quality test tells you why.</p></article>`
		req := LinkRequest{ID: "up", Href: "/water-quality/", Anchors: []string{"water quality test"}, Position: Position{FirstParagraphs: 2}}
		if _, pl := placeOne(t, page, req, Options{}); !pl.Placed || pl.ContentParagraph != 2 {
			t.Errorf("%s: uplink %+v, want it in content paragraph 2, the table of contents not counted", toc, pl)
		}
	}
}

// "toc" names a table of contents as a word of a class, not inside one.
func TestATableOfContentsIsNamedByAWordNotInsideOne(t *testing.T) {
	for name, want := range map[string]bool{"toc": true, "article-toc": true, "toc-title": true, "post_toc": true,
		"stock": false, "protocol": false, "stock-levels": false, "tocsin": false} {
		if got := namesNavigation(name); got != want {
			t.Errorf("namesNavigation(%q) = %v, want %v", name, got, want)
		}
	}
}

// A breadcrumb trail a theme writes outside a <nav> is navigation, as a
// <nav> is: a trial's audit took Yoast's <p id="breadcrumbs"> for the
// body and counted its hub link as the page's uplink.
func TestABreadcrumbTrailOutsideANavIsNavigation(t *testing.T) {
	for _, trail := range []string{
		`<p id="breadcrumbs"><span><a href="/">Startseite</a> » <a href="/gemuese/">Gemüse</a> » Möhren</span></p>`,
		`<div class="rank-math-breadcrumb"><p><a href="/">Startseite</a> » <a href="/gemuese/">Gemüse</a></p></div>`,
		`<ol itemscope itemtype="https://schema.org/BreadcrumbList"><li><a href="/">Startseite</a></li><li><a href="/gemuese/">Gemüse</a></li></ol>`,
	} {
		page := `<article>` + trail + `<h1>Möhren säen</h1><p>Möhren keimen langsam.</p></article>`
		links, err := Links([]byte(page), "https://garten.example/gemuese/moehren/", "garten.example")
		if err != nil || len(links) != 2 {
			t.Fatalf("%s: links %+v (err %v), want the trail's two", trail, links, err)
		}
		for _, l := range links {
			if l.Position != "navigation" || l.ContentParagraph != 0 {
				t.Errorf("%s: link %q at position %q, content paragraph %d; want navigation, in no content paragraph",
					trail, l.Text, l.Position, l.ContentParagraph)
			}
		}
	}
}

// A byline is no paragraph of the article: a trial's articles opening on
// "By the workshop team · May 2026" had it counted as paragraph 1 of the
// uplink's two, and 10 of 22 lost their uplink.
func TestABylineIsNotOneOfTheArticlesParagraphs(t *testing.T) {
	article := `<p>Worn pads squeal before they fail.</p><p>Check the brake pads guide before you order parts.</p>`
	for _, byline := range []string{
		`<p class="byline">By the RoadReady workshop team · <time datetime="2026-05-01">May 2026</time></p>`,
		`<div class="entry-meta"><p>Posted by Sam</p></div>`,
		`<p class="post-meta small">Updated <time>May 2026</time></p>`,
		`<p class="by-line">By Sam, the workshop lead</p>`,
	} {
		page := `<article><h1>Uneven pad wear</h1>` + byline + article + `</article>`
		req := LinkRequest{ID: "up", Href: "/brakes/pads/", Anchors: []string{"brake pads guide"}, Position: Position{FirstParagraphs: 2}}
		if _, pl := placeOne(t, page, req, Options{}); !pl.Placed || pl.ContentParagraph != 2 {
			t.Errorf("byline %s: uplink %+v, want it in content paragraph 2, the byline not counted", byline, pl)
		}
	}
}

// A page's article is often marked up as schema.org microdata too; only a
// comment's type makes a comment section.
func TestMicrodataOtherThanACommentIsContent(t *testing.T) {
	page := `<main><article itemscope itemtype="https://schema.org/BlogPosting"><h1>Pruning roses</h1>` +
		`<div itemprop="articleBody"><p>Prune climbing roses in late winter.</p></div>` +
		`<p itemprop="commentCount">0 comments</p></article></main>`
	out, pl := placeOne(t, page, LinkRequest{ID: "l1", Href: "/roses/climbing/", Anchors: []string{"climbing roses"}}, Options{})
	if !pl.Placed || !strings.Contains(out, `>climbing roses</a>`) {
		t.Errorf("no link placed in a BlogPosting's body: %+v\n%s", pl, out)
	}
}

// An uplink whose only occurrence is the front of another page's longer
// name is refused for both, and says both (trial T: "Fed from USB-C PD
// trigger boards" was reported as the front of a longer phrase alone).
func TestAnUplinkInsideAnotherPagesLongerNameSaysSo(t *testing.T) {
	goesOn := func(_, phrase, following string) bool {
		return phrase == "usb-c pd" && strings.HasPrefix(strings.TrimSpace(following), "trigger")
	}
	opts := Options{GoesOn: goesOn, MinWordsBetweenLinks: -1}
	src := "<p>Fed from USB-C PD trigger boards, the converter needs no charger.</p>\n<p>" + filler(20) + "</p>\n"
	req := LinkRequest{ID: "up", Href: "/usb-c-pd/", Anchors: []string{"USB-C PD"},
		Position: Position{FirstParagraphs: 2}, WholePhraseFirst: true, NotWithin: []string{"usb-c pd trigger boards"}}
	want := "candidate anchor found in paragraphs 1-2 only inside a longer name (another page's, or the target's own) or as the front of a longer phrase"
	if _, pl := placeOne(t, src, req, opts); pl.Placed || pl.Reason != want {
		t.Errorf("placed %+v, want it refused with %q", pl, want)
	}
	req.Position.FirstParagraphs, req.NotWithin, req.WholePhraseFirst, req.WholePhrase = 0, nil, false, true
	if _, pl := placeOne(t, src, req, opts); pl.Placed || pl.Reason != "candidate anchor found in the text only as the front of a longer phrase" {
		t.Errorf("anywhere: %+v, want it refused as the front of a longer phrase, in the text", pl)
	}
}

// Every name of a box that is no content is one its start tag is read
// for: WooCommerce's "product_meta" was in termListNames and never read,
// no trigger word being in it.
func TestEveryAsideNameIsReadFromItsTag(t *testing.T) {
	var names []string
	for _, m := range []map[string]bool{authorBoxNames, bylineNames, termListNames} {
		for n := range m {
			names = append(names, n)
		}
	}
	for _, parts := range boxParts {
		names = append(names, parts...)
	}
	for _, n := range names {
		if tag := []byte(`<div class="` + n + `">`); !mayMarkAside(tag) {
			t.Errorf("%s: a name of a box that is no content, but its tag is not read", tag)
		}
	}
}

// A hub's keywords may list its members' topics: a request takes a shared
// own name (Options.SharedOwnNames) that is one of its SharedNames, and
// every other request, or an own name not shared, is kept from it as the
// page naming itself.
func TestPlaceTakesASharedOwnNameOnlyForTheRequestItNames(t *testing.T) {
	src := "<p>Shifting problems usually come down to derailleur adjustment, learnt in an afternoon.</p>"
	opts := Options{OwnNames: []string{"Drivetrain Care", "drivetrain maintenance", "derailleur adjustment"},
		SharedOwnNames: []string{"Derailleur Adjustment"}}
	down := LinkRequest{ID: "down", Href: "/drivetrain/derailleur/", Anchors: []string{"derailleur adjustment"},
		SharedNames: []string{"derailleur adjustment"}}
	if _, pl := placeOne(t, src, down, opts); !pl.Placed || pl.AnchorText != "derailleur adjustment" {
		t.Errorf("placement %+v, want the shared own name taken by the request it names", pl)
	}
	other := down
	other.SharedNames = nil
	if _, pl := placeOne(t, src, other, opts); pl.Placed || !strings.Contains(pl.Reason, "this page's own name") {
		t.Errorf("placement %+v, want a request without the shared name kept from it, and the reason saying so", pl)
	}
	unshared := opts
	unshared.SharedOwnNames = nil
	if _, pl := placeOne(t, src, down, unshared); pl.Placed {
		t.Errorf("placement %+v, want an own name not shared kept from every request", pl)
	}
}
