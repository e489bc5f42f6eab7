package planning

import (
	"encoding/json"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// languagePolicy is the SAG policy of a site whose language override is
// lang, resolved as a site.updated's overrides are.
func languagePolicy(t *testing.T, lang string) policy.Policy {
	t.Helper()
	raw, err := json.Marshal(map[string]string{"language": lang})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Resolve(policy.SAG, raw)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// placeWithPolicy places one link of the given type to /hub/ with its
// anchor candidates in html, with the placement options the site's policy
// gives a supporting article.
func placeWithPolicy(t *testing.T, pol policy.Policy, typ link.Type, html string, anchors ...string) markup.Placement {
	t.Helper()
	st := testSite(bootsCluster())
	page := site.Page{ID: "p", URL: "/p/", Kind: site.KindSupporting}
	l := link.Link{ID: "l", TargetURL: "/hub/", Type: typ, Mandatory: typ == link.TypeVerticalUp}
	if typ == link.TypeVerticalUp {
		l.FirstParagraphs = pol.UplinkParagraphs
	}
	_, pls, err := markup.Place([]byte(html), []markup.LinkRequest{Request(l, anchors, UplinkID([]link.Link{l}))}, MarkupOptions(st, pol, page))
	if err != nil {
		t.Fatal(err)
	}
	return pls[0]
}

// A trial on a Spanish site: no plural of a keyword was ever found, as the
// English stemmer read the text, so mandatory uplinks failed. The
// site's language picks the stemmer, and Spanish writes the plural of a
// word in "-z" with "-ces".
func TestASpanishSiteFindsThePluralOfItsKeywordWithTheSpanishStemmer(t *testing.T) {
	html := "<p>El salmorejo comparte ingredientes con los gazpachos andaluces, pero es más espeso.</p>\n"
	pl := placeWithPolicy(t, languagePolicy(t, "spanish"), link.TypeVerticalUp, html, "gazpacho andaluz")
	if !pl.Placed || !pl.Variation || pl.AnchorText != "gazpachos andaluces" {
		t.Errorf("Spanish site: %+v, want the uplink on the variation \"gazpachos andaluces\"", pl)
	}
	if pl := placeWithPolicy(t, sagPolicy(t), link.TypeVerticalUp, html, "gazpacho andaluz"); pl.Placed {
		t.Errorf("English site: %+v, want no link: the English stemmer does not fold \"andaluces\" into \"andaluz\"", pl)
	}
}

// "Front of a longer phrase" (anchors.GoesOn) reads English word order. In
// Spanish the words after a name are its relative clause or complement,
// so a name followed by them is whole, and the link stands.
func TestTheFrontOfALongerPhraseIsRefusedOnlyOnAnEnglishSite(t *testing.T) {
	spanish := languagePolicy(t, "es")
	for _, c := range []struct{ html, anchor string }{
		{"<p>Hoy vamos a preparar una ropa vieja que a muchos les gusta.</p>\n", "ropa vieja"},
		{"<p>El debate de la tortilla con cebolla divide a España.</p>\n", "tortilla con cebolla"},
	} {
		if pl := placeWithPolicy(t, spanish, link.TypeRelated, c.html, c.anchor); !pl.Placed || pl.AnchorText != c.anchor {
			t.Errorf("Spanish site, %q in %s: %+v, want it linked", c.anchor, c.html, pl)
		}
	}
	english := "<p>Sand the doors before the exterior paint prep starts.</p>\n"
	if pl := placeWithPolicy(t, sagPolicy(t), link.TypeRelated, english, "exterior paint"); pl.Placed {
		t.Errorf("English site: %+v, want \"exterior paint\" refused as the front of \"exterior paint prep\"", pl)
	}
	if pl := placeWithPolicy(t, languagePolicy(t, "en"), link.TypeRelated, english, "exterior paint"); pl.Placed {
		t.Errorf("English site by its code: %+v, want \"exterior paint\" refused", pl)
	}
}

// Every language the policy takes must have a stemmer in markup: one
// without would make every placement on its site fail.
func TestEveryLanguageThePolicyTakesHasAStemmer(t *testing.T) {
	for _, lang := range policy.Languages() {
		if _, _, err := markup.Place([]byte("<p>x</p>"), nil, MarkupOptions(testSite(), languagePolicy(t, lang), site.Page{URL: "/p/"})); err != nil {
			t.Errorf("language %q: %v", lang, err)
		}
	}
}

// The shortening of a crumb's title by its keyword or main clause reads
// English ("How to", "before", "for"): on a Spanish site it left the
// fragments "congelar el pulpo" and "dar la vuelta a la tortilla". Another
// language's title is cut only at a subtitle or, when long, before a
// question clause its "and" joins to it; else it stays whole.
func TestACrumbOfANonEnglishSiteIsItsTitleCutAtASubtitleOrItsOpeningKeyword(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	crumb := func(pol policy.Policy, title, primary string) string {
		page := articleIn(boots, "p", title)
		page.PrimaryKeyword = primary
		plan := planOf(t, Input{Structure: testSite(boots), Policy: pol, Page: page, Hub: &hub, WordCount: 800,
			Targets: asTargets(0, hub)})
		return plan.Breadcrumbs[len(plan.Breadcrumbs)-1].Name
	}
	spanish := languagePolicy(t, "spanish")
	for _, c := range []struct{ title, primary, want string }{
		{"¿Por qué congelar el pulpo antes de cocerlo?", "congelar el pulpo", "¿Por qué congelar el pulpo antes de cocerlo?"},
		{"Cómo dar la vuelta a la tortilla sin romperla", "dar la vuelta a la tortilla", "Cómo dar la vuelta a la tortilla sin romperla"},
		{"Pulpo a la gallega: la receta de las ferias", "pulpo a la gallega", "Pulpo a la gallega"},
		// a trial's long crumbs: a question clause joined by "y" is cut off
		{"Errores comunes del compost casero y cómo evitarlos", "errores del compost", "Errores comunes del compost casero"},
		{"Las plagas más comunes del tomate y por qué aparecen", "plagas del tomate", "Las plagas más comunes del tomate"},
		{"Cuándo y cómo plantar un árbol frutal en tu jardín", "plantar un árbol frutal", "Cuándo y cómo plantar un árbol frutal en tu jardín"},
		{"Cómo usar el compost maduro en el huerto y el jardín", "compost maduro", "Cómo usar el compost maduro en el huerto y el jardín"},
		// a later trial's: a title opening on its keyword is named by it,
		// after an article, but not one item of a list
		{"Qué llevar en la mochila para una ruta de montaña", "qué llevar en la mochila", "Qué llevar en la mochila"},
		{"El Camino de Santiago en invierno con pocos peregrinos", "camino de santiago", "El Camino de Santiago"},
		{"Caños de Meca y Zahara de los Atunes en primavera", "caños de meca", "Caños de Meca y Zahara de los Atunes en primavera"},
		{"¿Qué llevar en la mochila para una ruta de montaña?", "qué llevar en la mochila", "¿Qué llevar en la mochila para una ruta de montaña?"},
	} {
		if got := crumb(spanish, c.title, c.primary); got != c.want {
			t.Errorf("Spanish site: crumb of %q = %q, want %q", c.title, got, c.want)
		}
	}
	// A Dutch trial's question lost its mark when its joined question
	// was cut off.
	if got := crumb(languagePolicy(t, "dutch"), "Waarom piept mijn schijfrem en wat kun je eraan doen?", "piepende schijfrem"); got != "Waarom piept mijn schijfrem?" {
		t.Errorf("Dutch site: crumb %q, want \"Waarom piept mijn schijfrem?\"", got)
	}
	french := languagePolicy(t, "french")
	if got := crumb(french, "Les erreurs du compost maison et comment les éviter", "erreurs du compost"); got != "Les erreurs du compost maison" {
		t.Errorf("French site: crumb %q, want \"Les erreurs du compost maison\"", got)
	}
	// 39 characters in 42 bytes: short enough to stay whole
	if got := crumb(french, "Le velouté de potimarron à la châtaigne", "velouté de potimarron"); got != "Le velouté de potimarron à la châtaigne" {
		t.Errorf("French site: a title of 39 characters is cut to %q", got)
	}
	if got := crumb(sagPolicy(t), "How to Store Coffee Beans So They Stay Fresh", "store coffee beans"); got != "How to Store Coffee Beans" {
		t.Errorf("English site: crumb %q, want \"How to Store Coffee Beans\"", got)
	}
}

// A Spanish trial's page titled "El Camí de Cavalls: recorrer Menorca a
// pie por la costa" got no link where its hub and a sibling said "el Camí
// de Cavalls": its keyword was held back inside its own short title, read
// with its article as a longer name. A name's opening article in the
// site's language is no part of the name.
func TestASpanishTitleOpeningOnItsArticleDoesNotHoldItsOwnKeywordBack(t *testing.T) {
	path := articleIn(bootsCluster(), "cami", "El Camí de Cavalls: recorrer Menorca a pie por la costa")
	path.PrimaryKeyword = "Camí de Cavalls"
	p := placeHubsLinkTo(t, "spanish", path, "La isla se recorre entera por el Camí de Cavalls, el antiguo camino de ronda que une sus calas.")
	if !p.Placed || p.AnchorText != "Camí de Cavalls" {
		t.Errorf("placement %+v, want the link on \"Camí de Cavalls\"", p)
	}
}

// A German site was refused whole ("no stemmer for it"). German, Italian,
// Portuguese, Dutch, Danish and Finnish are now languages a site may
// give, by name or code, and each links the inflected form of its
// keyword that its text says.
func TestSitesInTheAddedLanguagesLinkTheInflectedFormOfTheirKeyword(t *testing.T) {
	for _, c := range []struct{ lang, html, keyword, want string }{
		{"de", "<p>Im Frühjahr prüfen wir alle Gartenschläuche auf Risse, bevor das Wasser wieder läuft.</p>\n", "Gartenschlauch", "Gartenschläuche"},
		{"german", "<p>Gute Wanderschuhe mit fester Sohle schützen den Knöchel auf Geröll.</p>\n", "Wanderschuh mit fester Sohle", "Wanderschuhe mit fester Sohle"},
		{"it", "<p>Abbiamo raccolto le ricette della nonna in un quaderno di cucina.</p>\n", "ricetta della nonna", "ricette della nonna"},
		{"pt", "<p>Guardamos as receitas da avó num caderno antigo da cozinha.</p>\n", "receita da avó", "receitas da avó"},
		{"nl", "<p>In de winkel liggen de boeken over tuinieren naast de zaden.</p>\n", "boek over tuinieren", "boeken over tuinieren"},
		// A Dutch trial's plurals: Snowball stems a final "s", a doubled
		// consonant, a v for f and a plural in -s apart (dutchStem).
		{"nl", "<p>Bakfietsen hebben verrassend weinig bergruimte voor boodschappen.</p>\n", "bakfiets", "Bakfietsen"},
		{"nl", "<p>Goede fietstassen blijven droog, ook in een flinke bui.</p>\n", "fietstas", "fietstassen"},
		{"nl", "<p>Onze regenhuiven houden kinderen in de bak droog.</p>\n", "regenhuif", "regenhuiven"},
		{"nl", "<p>Veel e-bikes hebben een accu onder de bagagedrager.</p>\n", "e-bike", "e-bikes"},
		{"nl", "<p>Een stevige racefiets is het halve werk op een lange toertocht.</p>\n", "racefietsen", "racefiets"},
		{"nl", "<p>Zet er een paar courgettes bij, die groeien snel.</p>\n", "courgette", "courgettes"},
		{"nl", "<p>Een rijpe tomaat smaakt het best vers van de plant.</p>\n", "tomaten", "tomaat"},
		{"nl", "<p>Elke boon heeft een stevige steun nodig.</p>\n", "bonen", "boon"},
		{"da", "<p>Vi har testet hunde i alle aldre, før vi skrev om foder til dem.</p>\n", "hund", "hunde"},
		{"fi", "<p>Polkupyörän huolto kannattaa tehdä keväällä ennen ensimmäistä lenkkiä.</p>\n", "polkupyörä", "Polkupyörän"},
	} {
		pl := placeWithPolicy(t, languagePolicy(t, c.lang), link.TypeVerticalUp, c.html, c.keyword)
		if !pl.Placed || pl.AnchorText != c.want {
			t.Errorf("%s site, keyword %q: %+v, want the uplink on %q", c.lang, c.keyword, pl, c.want)
		}
	}
}

// A title opening on its article, or on one written onto the next word
// (Italian "L'"), does not hold the page's keyword back, as in Spanish.
func TestATitleOpeningOnItsArticleInGermanOrItalianDoesNotHoldItsKeywordBack(t *testing.T) {
	for _, c := range []struct{ lang, title, keyword, text string }{
		{"german", "Der Rheinsteig: in 21 Etappen von Bonn nach Wiesbaden", "Rheinsteig", "Wer den Rheinsteig ganz gehen will, plant drei Wochen und leichtes Gepäck ein."},
		{"italian", "L'Alta Via 1: trekking nelle Dolomiti in dieci tappe", "Alta Via 1", "Chi percorre l'Alta Via 1 attraversa rifugi storici e passi sopra i duemila metri."},
	} {
		if p := placeHubsLinkToItsArticle(t, c.lang, c.title, c.keyword, c.text); !p.Placed || p.AnchorText != c.keyword {
			t.Errorf("%s: placement %+v, want the link on %q", c.lang, p, c.keyword)
		}
	}
}

// placeHubsLinkToItsArticle plans a hub whose one paragraph is text for
// its one article (title, keyword), requires one in-body link to it and
// places it as the inject stage would.
func placeHubsLinkToItsArticle(t *testing.T, lang, title, keyword, text string) markup.Placement {
	t.Helper()
	article := articleIn(bootsCluster(), "article", title)
	article.PrimaryKeyword = keyword
	return placeHubsLinkTo(t, lang, article, text)
}

// placeHubsLinkTo plans a hub whose one paragraph is text for its one
// article, requires one in-body link to it and places it as the inject
// stage would.
func placeHubsLinkTo(t *testing.T, lang string, article site.Page, text string) markup.Placement {
	t.Helper()
	boots := bootsCluster()
	hub := hubOf(boots)
	hub.HTML = "<p>" + text + "</p>\n"
	pol := languagePolicy(t, lang)
	in := Input{Structure: testSite(boots), Policy: pol, Page: hub, Hub: &hub, Targets: []Target{{Page: article}}, Texts: []string{text}, WordCount: 600}
	plan := planOf(t, in)
	down := linksOf(plan, link.TypeVerticalDown, link.ZoneInBody)
	if len(down) != 1 {
		t.Fatalf("%s, %q: the hub plans %v in its body, want its article; notes %q", lang, article.PrimaryKeyword, targetIDs(down), plan.Notes)
	}
	_, placements, err := markup.Place([]byte(hub.HTML), []markup.LinkRequest{Request(down[0], CandidateTexts(down[0].Candidates), "")}, MarkupOptions(in.Structure, pol, hub))
	if err != nil {
		t.Fatal(err)
	}
	return placements[0]
}

// A German trial's bike-bags hub said "wasserdichte Packtaschen" and
// "Lastenrad-Förderung" of its articles, keywords "wasserdichte
// Packtasche" and "Lastenrad Förderung": a literal search found neither,
// and both were left to the hub's list without a word. A hub's text
// names its article in any form the placer takes.
func TestAHubLinksInItsTextAnArticleItNamesInAnotherFormOfItsKeyword(t *testing.T) {
	for _, c := range []struct{ keyword, text, want string }{
		{"Lastenrad Förderung", "Wer ein Lastenrad kauft, findet alles in unserem Überblick zur Lastenrad-Förderung der Länder.", "Lastenrad-Förderung"},
		{"wasserdichte Packtasche", "Für lange Reisen kommen wasserdichte Packtaschen im Paar zum Einsatz, am besten mit Rollverschluss.", "wasserdichte Packtaschen"},
	} {
		if p := placeHubsLinkToItsArticle(t, "german", c.keyword, c.keyword, c.text); !p.Placed || p.AnchorText != c.want {
			t.Errorf("%q: placement %+v, want the link on %q", c.keyword, p, c.want)
		}
	}
}

// Snowball's German stem joins a noun and a verb of one root ("Mäher",
// "mähen"): a German trial's lawnmower hub was linked on "mähen". A
// variation is the noun with an inflection's ending, written with its
// capital, and a compound cut at a soft hyphen is no anchor.
func TestAGermanNounIsNotFoundInAVerbOfItsRootNorInHalfACompound(t *testing.T) {
	german := languagePolicy(t, "de")
	for _, c := range []struct{ html, keyword string }{
		{"<p>Im Mai müssen Sie oft mähen, im Juli seltener.</p>\n", "Mäher"},
		{"<p>Das Rasenmähen am Wochenende stört die Nachbarn.</p>\n", "Rasenmäher"},
		{"<p>Im Herbst sollten Sie den Rasen nicht mehr düngen.</p>\n", "Dünger"},
		{"<p>Ein guter Rasen&shy;mäher schneidet sauber und leise.</p>\n", "Mäher"},
		{"<p>Gute Hochbeet&shy;erde ist locker und nährstoffreich.</p>\n", "Hochbeet"},
		// Declined forms only of a word before another: a name's last
		// word is a noun, and never -er against -en.
		{"<p>Die Lehre dauert drei Jahre.</p>\n", "Lehrer"},
		{"<p>Wer oft fährt, will mähen lernen.</p>\n", "Mäher Test"},
		{"<p>Ein E-Bike-Akku-Tester zeigt die Kapazität.</p>\n", "E-Bike Akku"},
		{"<p>Das alte Haus steht leer.</p>\n", "Hau"},
		// A noun's form is a noun, which German writes with a capital: an
		// e-bike trial's "Kälte" (the cold) was linked on the adjective.
		{"<p>Der Akku sollte nach einer kalten Fahrt erst eine Stunde aufwärmen.</p>\n", "Kälte"},
		{"<p>Ein kaltes Zimmer schont den Akku im Sommer.</p>\n", "Kälte"},
		{"<p>Wer im Winter fährt, lagert den Akku im warmen Flur.</p>\n", "Akku im Winter"},
	} {
		if pl := placeWithPolicy(t, german, link.TypeVerticalUp, c.html, c.keyword); pl.Placed {
			t.Errorf("keyword %q in %s: placed on %q, want no link", c.keyword, c.html, pl.AnchorText)
		}
	}
	for _, c := range []struct{ html, keyword, want string }{
		{"<p>Die Pflege des Hochbeets beginnt im Frühjahr.</p>\n", "Hochbeet", "Hochbeets"},
		{"<p>In den Hochbeeten wächst das Gemüse schneller.</p>\n", "Hochbeet", "Hochbeeten"},
		{"<p>Die Wahl des Düngers hängt vom Boden ab.</p>\n", "Dünger", "Düngers"},
		{"<p>Alte Balkonkästen lassen sich gut bepflanzen.</p>\n", "Balkonkasten", "Balkonkästen"},
		// A bike trial's declined adjectives, plurals in -s and compounds
		// joined by a hyphen.
		{"<p>In unserem Vergleich wasserdichter Packtaschen fällt eine auf.</p>\n", "wasserdichte Packtasche", "wasserdichter Packtaschen"},
		{"<p>Mit einem elektrischen Lastenrad geht es bergauf leichter.</p>\n", "elektrisches Lastenrad", "elektrischen Lastenrad"},
		{"<p>Moderne Akkus halten viele Ladezyklen durch.</p>\n", "Akku", "Akkus"},
		{"<p>Unsere Tipps gelten für jedes Wetter.</p>\n", "Tipp", "Tipps"},
		{"<p>Viele Pedelecs fahren bis 25 km/h.</p>\n", "Pedelec", "Pedelecs"},
		{"<p>Alles in unserem Überblick zur Lastenrad-Förderung der Länder.</p>\n", "Lastenrad Förderung", "Lastenrad-Förderung"},
		{"<p>Den E-Bike-Akku lädt man am besten bei Zimmertemperatur.</p>\n", "E-Bike Akku", "E-Bike-Akku"},
		// A noun opening on an umlaut, which Snowball's stem drops, written
		// as an entity: its capital is the entity's.
		{"<p>Alle &Uuml;bersichten stehen im Anhang.</p>\n", "Übersicht", "Übersichten"},
		{"<p>Akkus im Winter brauchen einen warmen Platz.</p>\n", "Akku im Winter", "Akkus im Winter"},
	} {
		if pl := placeWithPolicy(t, german, link.TypeVerticalUp, c.html, c.keyword); !pl.Placed || pl.AnchorText != c.want {
			t.Errorf("keyword %q in %s: %+v, want the uplink on %q", c.keyword, c.html, pl, c.want)
		}
	}
}

// A French trial's hub said "réduire ses dépenses courantes" of the
// article "Réduire ses dépenses courantes et comment tenir dans la
// durée" (keywords "réduire ses dépenses" and "dépenses courantes") and
// was linked on the first, cutting the name the text gave whole: the
// title cut before its joined question clause is one of the page's names
// (JoinedQuestionCut), which its keywords are not cut from.
func TestATitleCutBeforeItsJoinedQuestionIsANameItsKeywordIsNotCutFrom(t *testing.T) {
	article := articleIn(bootsCluster(), "reduire", "Réduire ses dépenses courantes et comment tenir dans la durée")
	article.PrimaryKeyword, article.Keywords = "réduire ses dépenses", []string{"dépenses courantes"}
	p := placeHubsLinkTo(t, "french", article,
		"Enfin, réduire ses dépenses courantes de quelques dizaines d'euros par mois suffit souvent à financer une épargne de précaution.")
	if !p.Placed || p.AnchorText != "réduire ses dépenses courantes" {
		t.Errorf("placement %+v, want the link on \"réduire ses dépenses courantes\"", p)
	}
}

// A French trial's page said "l'ascension du puy de Dôme par le chemin
// des Muletiers", the whole title of the article whose keyword is
// "ascension du puy de Dôme", and left its link planned: the keyword was
// held inside the title, which at 10 words no anchor may be. A name of the
// target longer than an anchor may be holds none of its keywords back.
func TestATitleLongerThanAnAnchorDoesNotHoldItsKeywordBack(t *testing.T) {
	for _, c := range []struct{ lang, title, keyword, text, want string }{
		{"french", "L'ascension du puy de Dôme par le chemin des Muletiers", "ascension du puy de Dôme",
			"Pour les plus grands, l'ascension du puy de Dôme par le chemin des Muletiers est un joli défi.", "ascension du puy de Dôme"},
		// A DIY trial's ceiling-fan hub said its article's 12-word title whole.
		{"english", "How to Install a Ceiling Fan Where a Light Fixture Used to Be", "install a ceiling fan",
			"Our step-by-step guide shows how to install a ceiling fan where a light fixture used to be, including the switch leg.", "install a ceiling fan"},
	} {
		if p := placeHubsLinkToItsArticle(t, c.lang, c.title, c.keyword, c.text); !p.Placed || p.AnchorText != c.want {
			t.Errorf("%s: placement %+v, want the link on %q", c.lang, p, c.want)
		}
	}
}
