package markup

import (
	"slices"
	"strings"
	"testing"
)

// Each source holds the anchor "trail map" only where no link may go.
func TestPlaceNeverInExcludedContexts(t *testing.T) {
	cases := map[string]string{
		"existing link":   `<p><a href="/o/">trail map</a></p>`,
		"heading":         `<h2>trail map</h2><h3><p>trail map</p></h3>`,
		"list item":       `<ul><li>trail map</li><li><p>trail map</p></li></ul>`,
		"script":          `<p><script>var s = "trail map";</script></p>`,
		"style":           `<p><style>/* trail map */</style></p>`,
		"template":        `<template><p>trail map</p></template>`,
		"textarea":        `<p><textarea>trail map</textarea></p>`,
		"title":           `<title>trail map</title><p>x</p>`,
		"code":            `<p><code>trail map</code></p>`,
		"pre":             `<pre>trail map</pre>`,
		"button":          `<p><button>trail map</button></p>`,
		"select":          `<p><select><option>trail map</option></select></p>`,
		"svg":             `<p><svg><text>trail map</text></svg></p>`,
		"math":            `<p><math><mi>trail map</mi></math></p>`,
		"noscript":        `<p><noscript>trail map</noscript></p>`,
		"iframe":          `<p><iframe>trail map</iframe></p>`,
		"comment":         `<p><!-- trail map --></p>`,
		"attribute":       `<p title="trail map"><img alt="trail map"></p>`,
		"split by b":      `<p>trail <b>map</b></p>`,
		"split by em":     `<p><em>trail</em> map</p>`,
		"outside p":       `<div>trail map</div>trail map`,
		"blockquote text": `<blockquote>trail map</blockquote>`,
		"part of word":    `<p>trail mapping and subtrail map</p>`,
		"word continues":  `<p>trail <b>ma</b>p and trail map<b>s</b></p>`,
		"unclosed a":      `<p><a href="/o/">x</p><p>trail map</p>`,
		"unclosed code":   `<p><code>x</p><p>trail map</p>`,
		"a across cell":   `<a href="/o/"><table><tr><td></a></td></tr></table><p>trail map</p>`,
		"p in a":          `<a href="/o/"><p>trail map</p></a>`,
		"kbd":             `<p><kbd>trail map</kbd></p>`,
		"cdata in svg":    `<p><svg><![CDATA[trail map]]></svg></p>`,
		"label":           `<p><label>trail map</label></p>`,
		// Labels of a table, a figure or a disclosure, even around a <p>
		// (a health-site trial had links in all four).
		"header cell":    `<table><tr><th><p>trail map</p></th></tr><tr><td>x</td></tr></table>`,
		"table caption":  `<table><caption><p>trail map</p></caption><tr><td>x</td></tr></table>`,
		"figure caption": `<figure><img src=x.png><figcaption><p>trail map</p></figcaption></figure>`,
		"quotation":      `<blockquote><p>trail map</p></blockquote>`,
		"open summary":   `<details open><summary><p>trail map</p></summary><p>x</p></details>`,
		// Text a reader does not see, cannot use, or sees struck out.
		"hidden p":          `<p hidden>trail map</p>`,
		"hidden div":        `<div hidden=""><p>trail map</p></div>`,
		"aria-hidden":       `<p aria-hidden="TRUE">trail map</p>`,
		"inert":             `<section inert><p>trail map</p></section>`,
		"closed details":    `<details><summary>More</summary><p>trail map</p></details>`,
		"closed dialog":     `<dialog><p>trail map</p></dialog>`,
		"del":               `<p><del>trail map</del></p>`,
		"s":                 `<p><s>trail map</s></p>`,
		"strike":            `<p><strike>trail map</strike></p>`,
		"s reopened":        `<p><s>old</p><p>trail map</p>`,
		"hidden formatting": `<p><b hidden>x</p><p>trail map</p>`,
		"display none":      `<p style="color:red; DISPLAY: none !important">trail map</p>`,
		"visibility hidden": `<div style="visibility:hidden"><p>trail map</p></div>`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			out, pls, err := Place([]byte(src), []LinkRequest{{ID: "1", Href: "/map/", Anchors: []string{"trail map"}}},
				Options{Language: "none"})
			if err != nil {
				t.Fatal(err)
			}
			if pls[0].Placed || string(out) != src {
				t.Fatalf("placed in %q: %q", src, out)
			}
		})
	}
}

// The same anchors in allowed contexts are placed.
func TestPlaceInAllowedContexts(t *testing.T) {
	cases := map[string]string{
		"plain":                 `<p>a trail map here</p>`,
		"styled, shown":         `<p style="display:block; color: none">a trail map here</p>`,
		"in strong":             `<p><strong>trail map</strong></p>`,
		"in span in em":         `<p><em><span class=x>the trail map</span></em></p>`,
		"p in article":          `<article><section><p>trail map</p></section></article>`,
		"p in table cell":       `<table><tr><td><p>trail map</p></td></tr></table>`,
		"unclosed p":            `<p>first<p>trail map`,
		"after closed a":        `<p><a href="/o/">x</a> trail map</p>`,
		"after cell a":          `<table><tr><td><a href="/o/">x</td></tr></table><p>trail map</p>`,
		"uppercase tags":        `<P CLASS=x>The TRAIL MAP</P>`,
		"line break words":      "<p>trail\n\t map</p>",
		"entity space":          `<p>trail&nbsp;map</p>`,
		"numeric entities":      `<p>&#116;rail&#x20;ma&#x70;</p>`,
		"after svg":             `<p><svg><title>x</title></svg> trail map</p>`,
		"no head close":         `<html><head><title>t</title><body><p>trail map</p>`,
		"open details":          `<details open><summary>More</summary><p>trail map</p></details>`,
		"aria-hidden false":     `<p aria-hidden="false">trail map</p>`,
		"after del":             `<p><del>x</del> trail map</p>`,
		"visually-hidden class": `<p class="visually-hidden-not">trail map</p>`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			out, pls, err := Place([]byte(src), []LinkRequest{{ID: "1", Href: "/map/", Anchors: []string{"trail map"}}},
				Options{Language: "none", MinWordsBetweenLinks: -1})
			if err != nil {
				t.Fatal(err)
			}
			if !pls[0].Placed {
				t.Fatalf("not placed in %q: %s", src, pls[0].Reason)
			}
			if msg := checkPlacement([]byte(src), out, pls); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

func TestPlaceVariations(t *testing.T) {
	cases := []struct {
		lang, src, anchor, want string
	}{
		{"english", "<p>The best running shoe for trails.</p>", "running shoes", "running shoe"},
		{"english", "<p>We tested hiking boots.</p>", "hiking boot", "hiking boots"},
		{"english", "<p>She runs trails daily.</p>", "run trail", "runs trails"},
		{"english", "<p>For everyday sandwich loaves, a mixer helps.</p>", "sandwich loaf", "sandwich loaves"},
		{"english", "<p>Loaves of sourdough keep.</p>", "loaf of sourdough", "Loaves of sourdough"},
		{"english", "<p>Check the pipe fittings first.</p>", "pipe fitting", "pipe fittings"},
		{"english", "<p>Fill the raised bed with compost.</p>", "raised beds", "raised bed"},
		{"english", "<p>Compare the family tents side by side.</p>", "family tent", "family tents"},
		{"english", "<p>Two bread knives and a board.</p>", "bread knife", "bread knives"},
		{"english", "<p>Keep shopping lists short.</p>", "shop list", "shopping lists"},
		// A keyword's space is the text's hyphen in a compound.
		{"english", "<p>Season a cast-iron skillet after each wash.</p>", "cast iron skillet", "cast-iron skillet"},
		// A phrase led by a verb: the activity matches the action.
		{"english", "<p>Most people can get out of debt in three years.</p>", "getting out of debt", "get out of debt"},
		{"english", "<p>How to choose a burr grinder for pour-over.</p>", "choosing a burr grinder", "choose a burr grinder"},
		{"english", "<p>Start by brewing espresso at home.</p>", "brew espresso at home", "brewing espresso at home"},
		// A name's modifier in the possessive (a travel trial's hub wrote
		// "our guide to Kyoto’s autumn leaves" and had no link).
		{"english", "<p>Our guide to Kyoto’s autumn leaves lists the gardens.</p>", "Kyoto autumn leaves", "Kyoto’s autumn leaves"},
		{"english", "<p>Lisbon's trams climb the hills.</p>", "Lisbon trams", "Lisbon's trams"},
		{"english", "<p>Pack a hikers' first aid kit.</p>", "hikers first aid kit", "hikers' first aid kit"},
		{"spanish", "<p>Las mejores zapatillas de correr.</p>", "zapatilla de correr", "zapatillas de correr"},
		// Spanish spells a final "z" "c" before the plural's "-es".
		{"spanish", "<p>Los gazpachos andaluces llevan pepino.</p>", "gazpacho andaluz", "gazpachos andaluces"},
		{"spanish", "<p>Un lápiz de colores basta.</p>", "lápices de colores", "lápiz de colores"},
		{"spanish", "<p>Dos canciones infantiles al día.</p>", "canción infantil", "canciones infantiles"},
		{"spanish", "<p>Las perras adultas comen menos.</p>", "perro adulto", "perras adultas"},
		// Snowball stems these singulars further than their plurals, and
		// takes no "s" off after an accented vowel (a pets trial's
		// "collares" and "champús" were never found).
		{"spanish", "<p>Los collares antitirones ayudan.</p>", "collar antitirones", "collares antitirones"},
		{"spanish", "<p>Las enfermedades renales del gato son comunes.</p>", "enfermedad renal", "enfermedades renales"},
		{"spanish", "<p>Dos hámsteres enanos en casa.</p>", "hámster enano", "hámsteres enanos"},
		{"spanish", "<p>Los champús para perros varían.</p>", "champú para perros", "champús para perros"},
		{"spanish", "<p>Un champú para perros basta.</p>", "champús para perros", "champú para perros"},
		{"spanish", "<p>Los arneses para perros.</p>", "arnés para perros", "arneses para perros"},
		{"russian", "<p>Лучшие беговые кроссовки для бега.</p>", "беговая кроссовка", "беговые кроссовки"},
		// Russian writes е for ё at will (trial t9: "чёрную смородину" was
		// never found for "черная смородина").
		{"russian", "<p>Про клубнику и про чёрную смородину.</p>", "черная смородина", "чёрную смородину"},
		{"russian", "<p>Про черную смородину.</p>", "Чёрная смородина", "черную смородину"},
		{"french", "<p>Des chaussures de randonnée légères.</p>", "chaussure de randonnée", "chaussures de randonnée"},
		// Italian: Snowball takes "-ano" off the masculine singular alone,
		// and keeps a plural's "h" (an Italian trial's "piatto siciliano"
		// was never found for "piatti siciliani").
		{"italian", "<p>Ogni piatto siciliano da strada ha la sua storia.</p>", "piatti siciliani", "piatto siciliano"},
		{"italian", "<p>I laghi alpini in estate.</p>", "lago alpino", "laghi alpini"},
		{"italian", "<p>Le spiagge del Salento.</p>", "spiaggia del Salento", "spiagge del Salento"},
		// A preposition's contractions with an article are the
		// preposition, elided ones too, and a definite article may stand
		// between a verb or a preposition and its noun: an Italian
		// trial's article said "coltivare i pomodori" alone of its hub's
		// "coltivare pomodori", and its uplink had no anchor.
		{"italian", "<p>Le piante dei pomodori crescono.</p>", "piante di pomodoro", "piante dei pomodori"},
		{"italian", "<p>Tengo i pomodori nel vaso grande.</p>", "pomodori in vaso", "pomodori nel vaso"},
		{"italian", "<p>Chi decide di coltivare i pomodori deve aspettare.</p>", "coltivare pomodori", "coltivare i pomodori"},
		{"italian", "<p>Conviene coltivare l'insalata in autunno.</p>", "coltivare insalata", "coltivare l'insalata"},
		{"spanish", "<p>Para cultivar los tomates hace falta sol.</p>", "cultivar tomates", "cultivar los tomates"},
		{"french", "<p>Pour cultiver les tomates en pot, il faut du soleil.</p>", "cultiver tomates", "cultiver les tomates"},
		{"portuguese", "<p>Para cultivar os tomates é preciso sol.</p>", "cultivar tomates", "cultivar os tomates"},
		// Portuguese: a preposition's contractions are one word (a
		// Portuguese trial).
		{"portuguese", "<p>Afie a faca do chef antes de cortar.</p>", "faca de chef", "faca do chef"},
		{"portuguese", "<p>A cura das panelas de ferro leva uma hora.</p>", "cura da panela de ferro", "cura das panelas de ferro"},
		{"portuguese", "<p>Três pães caseiros por semana.</p>", "pão caseiro", "pães caseiros"},
	}
	for _, c := range cases {
		t.Run(c.lang+" "+c.anchor, func(t *testing.T) {
			_, pl := placeOne(t, c.src, LinkRequest{ID: "1", Href: "/x/", Anchors: []string{c.anchor}}, Options{Language: c.lang})
			if !pl.Placed || !pl.Variation || pl.Anchor != c.want {
				t.Fatalf("placement %+v", pl)
			}
		})
	}
	// An activity is not what is done: "baking" does not match "baked" or
	// "bake", though the stems agree, unless it leads a verb phrase.
	for _, c := range []struct{ lang, src, anchor string }{
		{"english", "<p>A loaf of sourdough baked on an open tray sets too soon.</p>", "sourdough baking"},
		{"english", "<p>Blind bake at 180 degrees for twenty minutes.</p>", "blind baking"},
		{"english", "<p>The sourdough baking went well.</p>", "sourdough baked"},
		// Only a phrase of several words is led by its verb, and what was
		// done is no activity.
		{"english", "<p>Bake it slowly at a low heat.</p>", "baking"},
		{"english", "<p>Baked bread cools on a rack.</p>", "baking bread"},
		{"english", "<p>Baking bread takes a day.</p>", "baked bread"},
		// A verb phrase's head matches its base form, not its third person
		// (a health trial's link sat on "lowers blood pressure").
		{"english", "<p>Losing a little weight lowers blood pressure for most.</p>", "lowering blood pressure"},
		{"english", "<p>She chooses a burr grinder every time.</p>", "choosing a burr grinder"},
		// A derived word shares the stem but is another word.
		{"english", "<p>Add a cast iron skilletful of onions.</p>", "cast iron skillet"},
		{"english", "<p>Hold the knife carefully when you slice.</p>", "knife care"},
		{"english", "<p>Stir in a wooden spoonful of honey.</p>", "wooden spoon"},
		{"english", "<p>Our national parks guide is free.</p>", "nation park"},
		// Only English marks a possessive so.
		{"spanish", "<p>Kyoto's autumn leaves.</p>", "Kyoto autumn leaves"},
		// A Spanish derivation is another word: the trainers are not the
		// training (a trial's uplink sat on "adiestradores caninos").
		{"spanish", "<p>Los adiestradores caninos coinciden en esto.</p>", "adiestramiento canino"},
		{"spanish", "<p>Los alimentos del perro cambian con la edad.</p>", "alimentación del perro"},
		{"spanish", "<p>Los higienistas del gato lo recomiendan.</p>", "higiene del gato"},
		{"spanish", "<p>Educamos a un perro con paciencia.</p>", "educar a un perro"},
		// An Italian derivation too: the hikers are not the hike, nor is
		// skiing the ski (an Italian trial's links sat on both).
		{"italian", "<p>Valgono le stesse regole degli escursionisti sull'Etna.</p>", "escursione sull'Etna"},
		{"italian", "<p>Chi viene a sciare nelle Dolomiti in marzo.</p>", "sci nelle Dolomiti"},
		// Another preposition is another name, contracted or not, and an
		// article is skipped only between two of the name's words.
		{"italian", "<p>Tengo i pomodori nel vaso grande.</p>", "pomodori da vaso"},
		{"italian", "<p>Le piante dai semi antichi.</p>", "piante di semi antichi"},
		{"italian", "<p>Bisogna coltivare i giusti pomodori.</p>", "coltivare pomodori"},
		{"english", "<p>We grow the tomatoes in pots.</p>", "grow tomatoes"},
		// Portuguese: yeast is not fermentation.
		{"portuguese", "<p>Use fermento natural na massa.</p>", "fermentação natural"},
		{"portuguese", "<p>Guarde o pão na geladeira.</p>", "pão da geladeira"},
	} {
		_, pl := placeOne(t, c.src, LinkRequest{ID: "1", Href: "/x/", Anchors: []string{c.anchor}}, Options{Language: c.lang})
		if pl.Placed {
			t.Errorf("%s: %q was placed on %q in %s", c.lang, c.anchor, pl.Anchor, c.src)
		}
	}
	// A literal match of a later candidate beats a variation of an earlier one.
	_, pl := placeOne(t, "<p>trail shoe and trail runners</p>", LinkRequest{ID: "1", Href: "/x/",
		Anchors: []string{"trail shoes", "trail runners"}}, Options{})
	if !pl.Placed || pl.Variation || pl.CandidateIndex != 1 {
		t.Fatalf("placement %+v", pl)
	}
	// Language "none" turns variations off.
	_, pl = placeOne(t, "<p>The best running shoe.</p>", LinkRequest{ID: "1", Href: "/x/", Anchors: []string{"running shoes"}},
		Options{Language: "none"})
	if pl.Placed {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceUnicodeScripts(t *testing.T) {
	cases := []struct{ name, src, anchor, want string }{
		{"cyrillic", "<p>Купите Треккинговые ботинки сегодня.</p>", "треккинговые ботинки", "Треккинговые ботинки"},
		{"greek final sigma", "<p>ΟΔΗΓΟΣ ΠΕΖΟΠΟΡΙΑΣ εδώ.</p>", "οδηγος πεζοποριας", "ΟΔΗΓΟΣ ΠΕΖΟΠΟΡΙΑΣ"},
		{"arabic", "<p>أفضل أحذية المشي هنا.</p>", "أحذية المشي", "أحذية المشي"},
		{"hebrew", "<p>נעלי הליכה טובות.</p>", "נעלי הליכה", "נעלי הליכה"},
		{"chinese", "<p>我们推荐登山鞋给大家。</p>", "登山鞋", "登山鞋"},
		{"japanese", "<p>最高のトレイルランニングシューズです。</p>", "ランニングシューズ", "ランニングシューズ"},
		{"thai", "<p>รองเท้าวิ่งเทรลที่ดีที่สุด</p>", "รองเท้าวิ่ง", "รองเท้าวิ่ง"},
		{"accented", "<p>Le Café Crème est prêt.</p>", "café crème", "Café Crème"},
		{"entity accent", "<p>Le Caf&eacute; Cr&egrave;me.</p>", "café crème", "Caf&eacute; Cr&egrave;me"},
		{"typographic apostrophe", "<p>Shop men’s boots now.</p>", "men's boots", "men’s boots"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, pl := placeOne(t, c.src, LinkRequest{ID: "1", Href: "/x/", Anchors: []string{c.anchor}}, Options{Language: "none"})
			if !pl.Placed || pl.Anchor != c.want {
				t.Fatalf("placement %+v", pl)
			}
		})
	}
	// Whole words in spaced scripts: no match inside a longer Cyrillic word.
	_, pl := placeOne(t, "<p>Суперботинки.</p>", LinkRequest{ID: "1", Href: "/x/", Anchors: []string{"ботинки"}}, Options{Language: "none"})
	if pl.Placed {
		t.Fatalf("placement %+v", pl)
	}
	// Combining marks belong to their word: "cafe" does not match "café" written with U+0301.
	_, pl = placeOne(t, "<p>cafe\u0301 noir</p>", LinkRequest{ID: "1", Href: "/x/", Anchors: []string{"cafe"}}, Options{Language: "none"})
	if pl.Placed {
		t.Fatalf("placement %+v", pl)
	}
}

// The planner reads the page's text from ParagraphTexts, so it holds only
// the paragraphs a link may go in: a trial's hub had links planned for
// names it held in a <template>, a hidden paragraph and its footer,
// which took its density budget though the placer could use none.
func TestParagraphTextsAreTheParagraphsALinkMayGoIn(t *testing.T) {
	src := []byte(`<article><h1>T</h1><p>visible one</p><template><p>in template</p></template><p hidden>hidden</p>` +
		`<div aria-hidden="true"><p>aria</p></div><details><summary>s</summary><p>closed details</p></details>` +
		`<footer><p>article footer</p></footer></article><footer><p>site footer</p></footer><aside><p>aside</p></aside><p>last one</p>`)
	var got []string
	for _, text := range ParagraphTexts(src) {
		got = append(got, strings.Trim(text, "| "))
	}
	if want := []string{"visible one", "last one"}; !slices.Equal(got, want) {
		t.Errorf("paragraph texts %q, want %q", got, want)
	}
}
