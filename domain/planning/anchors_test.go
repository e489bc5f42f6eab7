package planning

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/site"
)

// Anchor text rules (SAG §2.3) as planning applies them to the links it
// plans. The exact-match cap and the >40% diversification flag need the
// anchors placed across the site, which planning does not see: validation
// checks them.

// anchorScene is a boots article whose hub's cluster has one-word and
// nine-word keywords next to usable ones, and whose text talks about the hub.
func anchorScene(t *testing.T, pageID string) Input {
	in := articleScene(t, 3, 4, 2500, 0)
	c := &in.Structure.Clusters[0]
	c.Keywords = []string{"boots", "waterproof hiking boots for wet trails and muddy paths", "winter hiking boots"}
	in.Structure.BuildIndex()
	in.Page.ID = pageID
	in.Texts = []string{"Nothing beats hiking in sturdy boots, so care for them.", "Hiking boots need wax."}
	return in
}

func wordCount(s string) int { return len(strings.Fields(s)) }

func TestAnchorsAreTwoToEightWords(t *testing.T) {
	in := anchorScene(t, "care")
	plan := planOf(t, in)
	n := 0
	for _, l := range plan.Links {
		if l.Zone != link.ZoneInBody {
			continue // generated lists and breadcrumbs are named by title by design
		}
		if len(l.Candidates) == 0 {
			t.Errorf("%s → %s has no usable anchor", l.Type, l.TargetPageID)
		}
		for _, a := range l.Candidates {
			n++
			if w := wordCount(a.Text); w < 2 || w > 8 {
				t.Errorf("%s → %s: anchor %q has %d words", l.Type, l.TargetPageID, a.Text, w)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d anchors checked", n)
	}
	up, _ := findLink(plan, "hub-boots", link.TypeVerticalUp)
	for _, refused := range []string{`refused "boots"`, `refused "waterproof hiking boots for wet trails and muddy paths"`} {
		if !strings.Contains(up.Explanation, refused) {
			t.Errorf("uplink explanation %q does not say it %s", up.Explanation, refused)
		}
	}
	for _, a := range up.Candidates {
		if a.Text == "winter hiking boots" {
			return
		}
	}
	t.Errorf("the three-word keyword is not a candidate: %+v", up.Candidates)
}

func TestAnchorTypesFollowTheSixtyThirtyTenMixAcrossManySources(t *testing.T) {
	// A thousand articles link up to the same hub; each has a keyword, a
	// title and a natural phrase to choose from. The anchor each would use
	// first follows the 60/30/10 mix.
	const sources = 1000
	counts := map[link.AnchorType]int{}
	in := anchorScene(t, "")
	for i := 0; i < sources; i++ {
		in.Page.ID = fmt.Sprintf("article-%04d", i)
		up, ok := findLink(planOf(t, in), "hub-boots", link.TypeVerticalUp)
		if !ok || len(up.Candidates) == 0 {
			t.Fatalf("%s: no uplink anchors", in.Page.ID)
		}
		counts[up.Candidates[0].Type]++
	}
	for typ, want := range map[link.AnchorType]float64{link.AnchorPrimaryKeyword: 0.6, link.AnchorPageTitle: 0.3, link.AnchorNatural: 0.1} {
		if got := float64(counts[typ]) / sources; math.Abs(got-want) > 0.04 {
			t.Errorf("%s anchors first for %.3f of sources, want %.2f", typ, got, want)
		}
	}
}

func TestNaturalAnchorsComeFromThePagesOwnText(t *testing.T) {
	in := anchorScene(t, "care")
	up, _ := findLink(planOf(t, in), "hub-boots", link.TypeVerticalUp)
	text := strings.Join(in.Texts, " ")
	natural := 0
	for _, a := range up.Candidates {
		if a.Type != link.AnchorNatural {
			continue
		}
		natural++
		if !strings.Contains(text, a.Text) {
			t.Errorf("natural anchor %q is not in the page's text", a.Text)
		}
	}
	if natural == 0 {
		t.Fatalf("no natural anchor from %q: %+v", text, up.Candidates)
	}
	in.Texts = []string{"Nothing here talks about the topic at all."}
	up, _ = findLink(planOf(t, in), "hub-boots", link.TypeVerticalUp)
	for _, a := range up.Candidates {
		if a.Type == link.AnchorNatural {
			t.Errorf("natural anchor %q without a matching phrase in the text", a.Text)
		}
	}
}

func TestAnchorChoiceIsDeterministic(t *testing.T) {
	in := anchorScene(t, "care")
	first, _ := findLink(planOf(t, in), "hub-boots", link.TypeVerticalUp)
	for i := 0; i < 5; i++ {
		again, _ := findLink(planOf(t, in), "hub-boots", link.TypeVerticalUp)
		if !reflect.DeepEqual(first.Candidates, again.Candidates) {
			t.Fatalf("run %d ranked %+v, first run %+v", i, again.Candidates, first.Candidates)
		}
	}
	// Which other pages the page links to does not change a link's anchors,
	// only the other pages' names they must not be taken inside.
	alone := in
	alone.Targets = []Target{{Page: *in.Hub}}
	solo, _ := findLink(planOf(t, alone), "hub-boots", link.TypeVerticalUp)
	withoutNames := func(as []link.Anchor) []link.Anchor {
		out := make([]link.Anchor, len(as))
		for i, a := range as {
			out[i] = link.Anchor{Text: a.Text, Type: a.Type}
		}
		return out
	}
	if !reflect.DeepEqual(withoutNames(first.Candidates), withoutNames(solo.Candidates)) {
		t.Errorf("anchors with siblings %+v, alone %+v", first.Candidates, solo.Candidates)
	}
	// The preferred type is the pair's draw from the mix.
	if want := anchors.PreferredType(in.Policy, "care", "hub-boots"); first.Candidates[0].Type != want {
		t.Errorf("first anchor %+v, the pair drew %s", first.Candidates[0], want)
	}
}

func TestHomeLinksUseTheSiteBrand(t *testing.T) {
	in := anchorScene(t, "care")
	in.Targets = append(in.Targets, Target{Page: site.Page{SiteID: "s", ID: "home", URL: "/", Kind: site.KindHome}})
	home, ok := findLink(planOf(t, in), "home", link.TypeBreadcrumb)
	if !ok || home.Anchor != "Outdoor Shop" || home.AnchorType != link.AnchorBranded {
		t.Errorf("home link %+v, want the brand as a branded anchor", home)
	}
}

// A kitchen trial site linked "A common question is cleaning [cast iron]"
// from its hub to the article whose keyword is "cleaning cast iron": a
// natural phrase drawn from inside the name the text gives whole. A
// candidate is now not taken inside its own target's longer name; only
// the mandatory uplink may still be, when nothing else carries it.
func TestALinkIsNotPlacedOnAFragmentOfItsTargetsOwnNameTheTextSaysWhole(t *testing.T) {
	pol := sagPolicy(t)
	cleaning := anchors.Target{PrimaryKeywords: []string{"cleaning cast iron"}, Title: "Cleaning Cast Iron Without Ruining the Seasoning"}
	versus := anchors.Target{PrimaryKeywords: []string{"carbon steel pans"}, Title: "Cast Iron vs Carbon Steel Pans"}
	hub := anchors.Target{PrimaryKeywords: []string{"cast iron skillets"}, Variations: []string{"cast iron skillet"}}
	texts := []string{"Choosing among cast iron skillets is easier once you know what each one does well.",
		"A common question is cleaning cast iron, and the answer depends on how often you cook."}
	own := anchors.NewOwnersOf([]anchors.Target{cleaning, versus}, hub)
	cands := own.Candidates(0, anchors.NewText(texts), pol)
	// The anchor mix drew a natural phrase for this link: it comes first.
	natural := naturalCandidates(t, cands)
	l := link.Link{ID: "lnk", Type: link.TypeVerticalDown, TargetURL: "/cast-iron-skillets/cleaning-cast-iron/",
		Candidates: append(natural, cands...)}
	if got := NotWithin(l, CandidateTexts(l.Candidates)); !slices.Contains(got, "cleaning cast iron") {
		t.Fatalf("NotWithin = %q, want the target's own keyword among them", got)
	}
	for _, c := range natural {
		if slices.Contains(c.NotWithin, "cleaning cast iron") || !slices.Contains(c.NotWithinOwn, "cleaning cast iron") {
			t.Errorf("candidate %q: NotWithin %q, NotWithinOwn %q: the own keyword belongs to the second", c.Text, c.NotWithin, c.NotWithinOwn)
		}
	}
	html := "<p>" + texts[0] + "</p>\n<p>" + texts[1] + "</p>"
	out, placed, err := markup.Place([]byte(html), []markup.LinkRequest{Request(l, CandidateTexts(l.Candidates), "")},
		markup.Options{OwnNames: []string{"cast iron skillets", "cast iron skillet"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(placed) != 1 || !placed[0].Placed || placed[0].AnchorText != "cleaning cast iron" {
		t.Fatalf("placed %+v in %s, want the whole keyword \"cleaning cast iron\"", placed, out)
	}

	// The uplink keeps a shorter name of its hub inside a longer one it is
	// not offered (one at the anchor cap); any other link to the hub does
	// not.
	up := link.Link{ID: "up", Type: link.TypeVerticalUp, Mandatory: true, Candidates: []link.Anchor{
		{Text: "cast iron skillet", Type: link.AnchorPrimaryKeyword, NotWithinOwn: []string{"cast iron skillet care guide"},
			NotWithin: []string{"seasoned cast iron skillet"}},
		{Text: "cast iron skillets", Type: link.AnchorPrimaryKeyword}}}
	if got, want := NotWithin(up, CandidateTexts(up.Candidates)), []string{"seasoned cast iron skillet"}; !reflect.DeepEqual(got, want) {
		t.Errorf("uplink NotWithin = %q, want %q: only other pages' names", got, want)
	}
	up.Mandatory, up.Type = false, link.TypeRelated
	if got, want := NotWithin(up, CandidateTexts(up.Candidates)), []string{"seasoned cast iron skillet", "cast iron skillet care guide"}; !reflect.DeepEqual(got, want) {
		t.Errorf("another link's NotWithin = %q, want %q", got, want)
	}
}

// A trial's marinade article linked up to its coq au vin hub as "attempted
// coq [au vin] at home": the inject stage offers the uplink its least used
// candidate first, "au vin", and the uplink was taken inside any longer
// name of its hub. It now gives way to the whole name while that name is
// still offered (under the anchor cap), and takes the shorter one inside
// it only once the whole name is used up.
func TestTheUplinkTakesTheWholeNameOfItsHubWhileTheCapLeavesIt(t *testing.T) {
	up := link.Link{ID: "up", Type: link.TypeVerticalUp, Mandatory: true, TargetURL: "/bistro/coq-au-vin/", FirstParagraphs: 2,
		Candidates: []link.Anchor{
			{Text: "coq au vin", Type: link.AnchorPrimaryKeyword},
			{Text: "au vin", Type: link.AnchorNatural, NotWithinOwn: []string{"coq au vin"}}}}
	html := []byte("<p>Anyone who has attempted coq au vin at home knows the marinade matters most.</p>")
	for _, c := range []struct {
		offered []string // least used first, as the inject stage orders them
		want    string
	}{
		{[]string{"au vin", "coq au vin"}, "coq au vin"},
		{[]string{"au vin"}, "au vin"}, // "coq au vin" at the cap
	} {
		_, placed, err := markup.Place(html, []markup.LinkRequest{Request(up, c.offered, "")}, markup.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(placed) != 1 || !placed[0].Placed || placed[0].AnchorText != c.want {
			t.Errorf("offered %q: placed %+v, want the uplink on %q", c.offered, placed, c.want)
		}
	}
}

// A trial's coq au vin hub linked its article on "burgundy wine for
// cooking" as "Our [page on burgundy wine] for cooking": a phrase that
// cuts across the name the text says whole. An occurrence overlapping
// the target's own name in part is passed over, and the link takes the
// whole name.
func TestALinkIsNotPlacedAcrossItsTargetsOwnNameTheTextSaysWhole(t *testing.T) {
	pol := sagPolicy(t)
	wine := anchors.Target{PrimaryKeywords: []string{"burgundy wine for cooking"}, Title: "Burgundy Wine for Cooking: What to Buy"}
	hub := anchors.Target{PrimaryKeywords: []string{"coq au vin"}}
	texts := []string{"Coq au vin needs a wine you would drink, and a pot that holds heat.",
		"Our page on burgundy wine for cooking goes deeper into the choice and the price."}
	cands := anchors.NewOwnersOf([]anchors.Target{wine}, hub).Candidates(0, anchors.NewText(texts), pol)
	natural := naturalCandidates(t, cands)
	for _, c := range natural {
		if !slices.Contains(c.NotWithinOwn, "burgundy wine for cooking") {
			t.Errorf("candidate %q: NotWithinOwn %q, want the own keyword it is inside or cuts", c.Text, c.NotWithinOwn)
		}
	}
	// The anchor mix drew a natural phrase for this link: it comes first.
	l := link.Link{ID: "lnk", Type: link.TypeVerticalDown, TargetURL: "/bistro/coq-au-vin/burgundy-wine/",
		Candidates: append(natural, cands...)}
	html := "<p>" + texts[0] + "</p>\n<p>" + texts[1] + "</p>"
	out, placed, err := markup.Place([]byte(html), []markup.LinkRequest{Request(l, CandidateTexts(l.Candidates), "")}, markup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(placed) != 1 || !placed[0].Placed || placed[0].AnchorText != "burgundy wine for cooking" {
		t.Fatalf("placed %+v in %s, want the whole keyword \"burgundy wine for cooking\"", placed, out)
	}
}

// naturalCandidates are the natural phrases among a link's candidates;
// the test stops when there is none to test with.
func naturalCandidates(t *testing.T, cands []link.Anchor) []link.Anchor {
	t.Helper()
	var natural []link.Anchor
	for _, c := range cands {
		if c.Type == link.AnchorNatural {
			natural = append(natural, c)
		}
	}
	if len(natural) == 0 {
		t.Fatalf("no natural candidate to test with: %+v", cands)
	}
	return natural
}

// A trial's ingress article lost its mandatory uplink on "On our managed
// Kubernetes hosting you can run…": the hub's two names overlap there,
// and each was held to the other as an own name it would cut, so neither
// was taken. Two names of the target both name it; the uplink is placed.
func TestTwoNamesOfTheTargetOverlappingInTheTextDoNotHoldEachOtherBack(t *testing.T) {
	pol := sagPolicy(t)
	hub := anchors.Target{PrimaryKeywords: []string{"managed kubernetes"}, Variations: []string{"kubernetes hosting"}, Title: "Managed Kubernetes"}
	article := anchors.Target{PrimaryKeywords: []string{"kubernetes ingress controllers"}, Title: "Choosing an Ingress Controller"}
	texts := []string{"On our managed Kubernetes hosting you can run any controller you like.",
		"Controllers route traffic from the load balancer to your services."}
	cands := anchors.NewOwnersOf([]anchors.Target{hub}, article).Candidates(0, anchors.NewText(texts), pol)
	up := link.Link{ID: "up", Type: link.TypeVerticalUp, Mandatory: true, TargetURL: "/k8s/", FirstParagraphs: 2, Candidates: cands}
	html := "<p>" + texts[0] + "</p>\n<p>" + texts[1] + "</p>"
	out, placed, err := markup.Place([]byte(html), []markup.LinkRequest{Request(up, CandidateTexts(cands), "")}, markup.Options{GoesOn: anchors.GoesOn})
	if err != nil {
		t.Fatal(err)
	}
	if len(placed) != 1 || !placed[0].Placed || !strings.Contains(strings.ToLower(placed[0].AnchorText), "kubernetes") {
		t.Fatalf("placed %+v in %s, want the uplink on a name of the hub", placed, out)
	}
}

// A Spanish trial's article said "nuestras recetas de pescado y marisco",
// both names of its hub, and its uplink was refused everywhere: the hub's
// keyword "pescado y marisco" was held to the other name "recetas de
// pescado", which only that name's own candidate is held to. Each anchor
// is held to its own target names alone (markup.LinkRequest.TargetNames).
func TestTheTargetsKeywordIsNotHeldToTheNameItHoldsBack(t *testing.T) {
	pol := languagePolicy(t, "es")
	hub := anchors.Target{PrimaryKeywords: []string{"pescado y marisco"}, Variations: []string{"recetas de pescado", "pescados"},
		Title: "Pescado y marisco: recetas del Cantábrico al Atlántico", Language: "spanish"}
	article := anchors.Target{PrimaryKeywords: []string{"limpiar calamares"}, Title: "Cómo limpiar calamares y sepia sin mancharte", Language: "spanish"}
	texts := []string{"Con este método se tarda dos minutos por pieza y sirve para cualquiera de nuestras recetas de pescado y marisco."}
	cands := anchors.NewOwnersOf([]anchors.Target{hub}, article).Candidates(0, anchors.NewTextIn(texts, "spanish"), pol)
	up := link.Link{ID: "up", Type: link.TypeVerticalUp, Mandatory: true, TargetURL: "/pescados/", FirstParagraphs: 2, Candidates: cands}
	out, placed, err := markup.Place([]byte("<p>"+texts[0]+"</p>"), []markup.LinkRequest{Request(up, CandidateTexts(cands), "")}, markup.Options{Language: "spanish"})
	if err != nil {
		t.Fatal(err)
	}
	if len(placed) != 1 || !placed[0].Placed || placed[0].AnchorText != "pescado y marisco" {
		t.Fatalf("placed %+v in %s, want the uplink on the hub's keyword \"pescado y marisco\"", placed, out)
	}
}

// A gardening trial's hub linked the Climbing Roses hub on "climbing
// [roses on a wall]", a keyword variation cutting the primary keyword
// "climbing roses", which was at the anchor cap. A name of the target
// never cuts its primary keyword where the text says it: the link waits.
func TestANameOfTheTargetDoesNotCutItsPrimaryKeyword(t *testing.T) {
	pol := sagPolicy(t)
	roses := anchors.Target{PrimaryKeywords: []string{"climbing roses"}, Variations: []string{"climbing rose", "roses on a wall"},
		Title: "Climbing Roses: Choosing, Planting and Pruning"}
	hub := anchors.Target{PrimaryKeywords: []string{"cottage garden perennials"}, Title: "Cottage Garden Perennials"}
	texts := []string{"Shrub roses fit naturally among them, and climbing roses on a wall or arch give the border a backdrop."}
	cands := anchors.NewOwnersOf([]anchors.Target{roses}, hub).Candidates(0, anchors.NewText(texts), pol)
	cross := link.Link{ID: "cross", Type: link.TypeCrossCluster, TargetURL: "/flowers/climbing-roses/", Candidates: cands}
	var offered []string // the primary keyword and its singular are at the cap
	for _, c := range cands {
		if f := anchors.Normalize(c.Text); f != "climbing roses" && f != "climbing rose" {
			offered = append(offered, c.Text)
		}
	}
	out, placed, err := markup.Place([]byte("<p>"+texts[0]+"</p>"), []markup.LinkRequest{Request(cross, offered, "")}, markup.Options{GoesOn: anchors.GoesOn})
	if err != nil {
		t.Fatal(err)
	}
	if len(placed) != 1 || placed[0].Placed {
		t.Errorf("placed %+v in %s, want no link: the text names the hub \"climbing roses\", which the variation would cut", placed, out)
	}
}

// A Russian trial's uplink took "[обрезки смородины]" (a name of the hub)
// inside "осенней обрезки смородины", the sibling's name "осенняя обрезка
// смородины" in another case, and left "чёрной смородины" in paragraph 1,
// the hub's keyword "черная смородина" in another form, unused. The
// sibling's name said in another form holds the candidate back; the
// uplink goes to paragraph 1.
func TestAnUplinkIsNotTakenInsideASiblingsNameSaidInAnotherForm(t *testing.T) {
	pol := sagPolicy(t)
	pol.Language = "russian"
	hub := anchors.Target{PrimaryKeywords: []string{"обрезка смородины", "черная смородина"}, Title: "Черная смородина"}
	sibling := anchors.Target{PrimaryKeywords: []string{"осенняя обрезка смородины"}, Title: "Осенняя обрезка смородины"}
	article := anchors.Target{PrimaryKeywords: []string{"черенкование смородины"}, Title: "Черенкование смородины"}
	texts := []string{"Укореняемость у чёрной смородины очень высокая.", "Удобнее всего заготавливать их во время осенней обрезки смородины."}
	cands := anchors.NewOwnersOf([]anchors.Target{hub, sibling}, article).Candidates(0, anchors.NewText(texts), pol)
	up := link.Link{ID: "up", Type: link.TypeVerticalUp, Mandatory: true, TargetURL: "/smorodina/", FirstParagraphs: 2, Candidates: cands}
	html := "<p>" + texts[0] + "</p>\n<p>" + texts[1] + "</p>"
	out, placed, err := markup.Place([]byte(html), []markup.LinkRequest{Request(up, CandidateTexts(cands), "")}, markup.Options{Language: "russian"})
	if err != nil {
		t.Fatal(err)
	}
	if len(placed) != 1 || !placed[0].Placed || placed[0].ContentParagraph != 1 {
		t.Fatalf("placed %+v in %s (candidates %+v), want the uplink in paragraph 1, not inside the sibling's name", placed, out, cands)
	}
}

// A lighting trial's "The Lumen & Co. [Smart A19 Bulb] uses Wi-Fi" cut the
// product's name, which the text said whole, because the name the title
// gave kept its spec (", Tunable White (4-Pack)"). The title's name is
// cut as its candidate is, so the keyword is held back inside it.
func TestAProductsKeywordIsNotLinkedInsideItsNameWithoutTheSpec(t *testing.T) {
	pol := sagPolicy(t)
	product := anchors.Target{PrimaryKeywords: []string{"smart A19 bulb"}, Title: "Lumen & Co. Smart A19 Bulb, Tunable White (4-Pack)"}
	source := anchors.Target{PrimaryKeywords: []string{"wifi vs zigbee smart bulbs"}, Title: "Wi-Fi vs Zigbee Smart Bulbs"}
	texts := []string{"The Lumen & Co. Smart A19 Bulb uses Wi-Fi with Matter support, so it pairs with most hubs."}
	cands := anchors.NewOwnersOf([]anchors.Target{product}, source).Candidates(0, anchors.NewText(texts), pol)
	l := link.Link{ID: "lnk", Type: link.TypeHorizontal, TargetURL: "/shop/smart-a19/", Candidates: cands}
	out, placed, err := markup.Place([]byte("<p>"+texts[0]+"</p>"), []markup.LinkRequest{Request(l, CandidateTexts(l.Candidates), "")},
		markup.Options{GoesOn: anchors.GoesOn})
	if err != nil {
		t.Fatal(err)
	}
	if len(placed) != 1 || !placed[0].Placed || placed[0].AnchorText != "Lumen & Co. Smart A19 Bulb" {
		t.Errorf("placed %+v in %s, want the product's whole name \"Lumen & Co. Smart A19 Bulb\"", placed, out)
	}
}
