package markup

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The tree builder's rules, as far as the scanner follows them: how start
// and end tags open and close elements (implied ends, scopes, the adoption
// agency for formatting elements, foreign content and its integration
// points, tables), section 13.2.6 of the HTML standard as x/net/html
// implements it.

// tagAttrs holds the few attributes the scanner acts on.
type tagAttrs struct {
	href, rel, marker, role, block, encoding   string
	hasHref, hasMarker, hasBlock, fontBreakout bool
	// concealed: the element is not shown or not usable (hidden,
	// aria-hidden="true", inert); open: a <details> or <dialog> is shown.
	concealed, open bool
	// comments: the element holds the readers' comments (commentsID,
	// commentsClass, commentsItemType).
	comments bool
	// authorBox: the element tells of the page's author (authorBoxNames,
	// itemprop "author"), or is another box that is no part of the content
	// (bylineNames, termListNames): read as an aside. boxPart: its id or
	// a class holds a part that names such a box (boxNamePart).
	authorBox, boxPart bool
	// navigation: the element is a breadcrumb trail or a table of
	// contents (namesNavigation), read as navigation.
	navigation bool
}

// readAttrs reads the attributes the scanner acts on, from the raw bytes
// when it can and through the tokenizer when it must.
func (s *scan) readAttrs(z *html.Tokenizer, raw []byte) tagAttrs {
	if s.attrValues.Cap() == 0 {
		// Room for the hrefs of a link-heavy page (~200 per 100 KB), so
		// that the buffer seldom grows.
		s.attrValues.Grow(len(s.src)/32 + 64)
	}
	if t, ok := rawAttrsInto(raw, &s.attrValues); ok {
		return t
	}
	var t tagAttrs
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if k != nil {
			t.set(string(k), string(v))
		}
	}
	return t
}

// set records one attribute; the tokenizer has already dropped repeats.
func (t *tagAttrs) set(name, val string) {
	switch name {
	case "href":
		t.href, t.hasHref = val, true
	case "rel":
		t.rel = val
	case MarkerAttr:
		t.marker, t.hasMarker = val, true
	case BlockMarkerAttr:
		t.block, t.hasBlock = val, true
	case "role":
		t.role = val
	case "encoding":
		t.encoding = val
	case "color", "face", "size":
		t.fontBreakout = true
	case "hidden", "inert":
		t.concealed = true
	case "style":
		t.concealed = t.concealed || stylesHidden(val)
	case "aria-hidden":
		t.concealed = t.concealed || strings.EqualFold(strings.TrimSpace(val), "true")
	case "open":
		t.open = true
	case "id":
		id := strings.ToLower(strings.TrimSpace(val))
		t.comments = t.comments || commentsID[id] || namesReviews(id)
		t.authorBox = t.authorBox || namesAside(id)
		t.boxPart = t.boxPart || boxNamePart(id)
		t.navigation = t.navigation || namesNavigation(id)
	case "class":
		for _, c := range strings.Fields(val) {
			c = strings.ToLower(c)
			t.comments = t.comments || commentsClass[c] || namesReviews(c)
			t.authorBox = t.authorBox || namesAside(c)
			t.boxPart = t.boxPart || boxNamePart(c)
			t.navigation = t.navigation || namesNavigation(c)
		}
	case "itemtype":
		for _, typ := range strings.Fields(val) {
			typ = strings.ToLower(typ[strings.LastIndexByte(typ, '/')+1:])
			t.comments = t.comments || commentsItemType[typ]
			t.navigation = t.navigation || typ == "breadcrumblist"
		}
	case "itemprop":
		for _, prop := range strings.Fields(val) {
			t.comments = t.comments || strings.EqualFold(prop, "comment")
			t.authorBox = t.authorBox || strings.EqualFold(prop, "author")
		}
	}
}

// authorBoxNames are the ids and classes of the box that tells of a
// post's author, as WordPress themes and plugins (Simple Author Box,
// Starbox, Molongui, PublishPress, the block editor's Post Author block)
// and other CMSs write it. Like microdata's itemprop "author", it is no
// part of the page's content: a trial's food blog had a cross-cluster
// link placed in the bio ("she keeps far too much [homemade jam] in the
// pantry"), and its words counted towards the uplink's paragraphs. It is
// read as an aside (zone "aside"): no link is placed there, its
// paragraphs are not the content's, and its links are not in-body links.
var authorBoxNames = map[string]bool{"author-box": true, "authorbox": true, "author-bio": true, "author-info": true,
	"about-author": true, "about-the-author": true, "author-card": true, "author-profile": true, "post-author": true,
	"post-author-bio": true, "entry-author": true, "saboxplugin-wrap": true, "wp-block-post-author": true,
	"wp-block-post-author-biography": true, "m-a-box": true, "abh_box": true, "pp-author-boxes-wrapper": true}

// authorBoxParts are what the id or class of an author box holds in the
// themes and page builders that name it with a prefix or a part of their
// own: Elementor's "elementor-widget-author-box" and
// "elementor-author-box__bio" (a trial's travel blog had a sibling link
// placed in such a bio, and its avatar, name and button links counted
// against the page's density), Astra's "ast-author-box".
var authorBoxParts = []string{"author-box", "author_box", "authorbox", "author-bio", "author_bio", "about-the-author", "about-author",
	"autore", "auteur", "autor"}

// promoBoxParts are what the id or class of a sign-up or subscription box
// holds: a newsletter or opt-in form and its pitch, as themes and
// Mailchimp's, MC4WP's and ConvertKit's embeds write them. A trial's
// travel blog repeated "This month: Kyoto cherry blossom season…" in a
// newsletter box on every article, and sibling links were placed there.
var promoBoxParts = []string{"newsletter", "subscribe", "signup", "sign-up", "optin", "opt-in",
	"mc4wp", "mc_embed", "convertkit", "ck_form", "announcement",
	"iscrizione", "iscriviti", "suscrip", "suscrib", "inscription", "abonnement", "anmeldung", "nieuwsbrief", "boletin",
	"assine", "inscreva", "cadastre"}

// relatedPostsParts are what the id or class of a related-posts plugin's
// or theme's block holds: YARPP's "yarpp-related", Jetpack's
// "jp-relatedposts", Contextual Related Posts' "crp_related", Related
// Posts for WP's "rp4wp", a theme's "related-posts". The block is the
// plugin's list, not the writer's links: a trial's audit counted YARPP's
// and Jetpack's links as in-body, called 24 pages over-linked, and its
// fixes unwrapped 82 of them and 9 of the writer's own.
var relatedPostsParts = []string{"yarpp", "relatedposts", "related-posts", "related_posts", "crp_related", "rp4wp",
	"correlati", "relacionad", "similaires", "connexes", "aehnliche", "verwandte", "gerelateerd"}

// postListParts are what the id or class of a page builder's or the block
// editor's list of posts holds: Elementor's Posts widget
// ("elementor-widget-posts", "elementor-posts-container"), the block
// editor's Latest Posts ("wp-block-latest-posts"). Its titles and "read
// more" links are the builder's, not the writer's: a French trial's home
// page listed each post twice so, and the audit called two titles
// dominant anchors no fix could vary.
var postListParts = []string{"elementor-posts", "elementor-widget-posts", "wp-block-latest-posts"}

// productListParts are what the id or class of a store theme's or app's
// list of other products holds: Shopify's "product-recommendations" and
// "complementary-products", WooCommerce's "upsells" and "cross-sells", a
// theme's "you-may-also-like" or "recently-viewed". A pet store trial's
// audit read its "You may also like" carousel as the product's text: its
// card titles made four dominant anchors, and fixes unwrapped them.
var productListParts = []string{"product-recommendations", "complementary-products", "related-products", "related_products",
	"upsells", "up-sells", "cross-sells", "crosssells", "you-may-also-like", "recently-viewed"}

// boxParts are the lists of parts of the names of boxes that are no
// content (boxNamePart).
var boxParts = [][]string{authorBoxParts, promoBoxParts, relatedPostsParts, postListParts, productListParts, recipeCardParts, disclosureParts, ctaParts, shareParts}

// shareParts are what the id or class of a bar of share buttons holds:
// Jetpack's "sharedaddy" and "sd-sharing", AddToAny's "addtoany" and
// "a2a_kit", Shariff, Social Warfare's "swp_social", Super Socializer's
// "heateor", MashShare's "mashsb", Novashare, Social Snap's
// "ss-inline-share", a theme's "social-share" or "share-buttons". A bar at
// the end of the post is no content: an electronics trial's Related
// Reading went after Jetpack's "Share this:" bar.
var shareParts = []string{"sharedaddy", "sd-sharing", "addtoany", "a2a_kit", "shariff", "swp_social", "heateor", "mashsb",
	"novashare", "ss-inline-share", "social-share", "socialshare", "social-sharing", "share-buttons", "sharethis"}

// ctaParts are what the id or class of a call to action, a testimonial, a
// coupon, a trust badge or a button holds: selling, not prose. A trial's
// home-services site had links placed in Elementor's CTA widgets
// ("elementor-cta__description"), a testimonial slider, a coupon box and
// its trust badges, and its "Book online" buttons counted against the
// pages' density.
var ctaParts = []string{"elementor-cta", "call-to-action", "calltoaction", "-cta", "cta-", "testimonial", "coupon",
	"trust-badge", "badge", "button", "btn"}

// recipeCardParts are what the id or class of a recipe plugin's card
// holds: WP Recipe Maker's "wprm-recipe-container", Tasty Recipes',
// Mediavine Create's "mv-create-card", a theme's "recipe-card". The card
// is structured data (ingredients, steps, notes, a print button), not the
// post's prose: a recipe trial had sibling links placed in its notes.
// So is a classic editor's image caption ("wp-caption", whose text is a
// <p>), as a <figcaption> is.
var recipeCardParts = []string{"wprm-recipe", "tasty-recipe", "mv-create-card", "recipe-card", "easyrecipe", "wp-caption"}

// disclosureParts are what the id or class of an affiliate disclosure or
// disclaimer holds: boilerplate that is no paragraph of the article (a
// trial's product pages opened on one, its "Learn more" link the first
// in-body link; a Spanish trial's "aviso-afiliados" failed four pages'
// uplinks so).
var disclosureParts = []string{"disclosure", "disclaimer", "affiliat", "afiliad", "affilié", "affiliaz"}

// tocParts are what the id or class of a table of contents holds: Easy
// Table of Contents' "ez-toc-container", Table of Contents Plus'
// "toc_container", Rank Math's "rank-math-toc", LuckyWP's "lwptoc",
// Yoast's "wp-block-yoast-seo-table-of-contents". Read as navigation: a
// trial's Easy TOC title, a <p> after the first paragraph, was counted as
// paragraph 2, and an uplink in the second real paragraph as outside the
// first two.
var tocParts = []string{"ez-toc", "toc_container", "toc-container", "table-of-contents", "rank-math-toc", "lwptoc",
	"indice", "sommaire", "inhaltsverzeichnis", "tabla-de-contenido", "inhoudsopgave"}

// breadcrumbParts are what the id or class of a breadcrumb trail holds, in
// the languages themes name it in: "breadcrumb", Italian "briciole",
// French "fil-ariane", Spanish "migas", German "brotkrumen", Dutch
// "kruimelpad" (an Italian trial's <nav class="briciole"> was read as
// content, and a second trail was written above it).
var breadcrumbParts = []string{"breadcrumb", "briciole", "ariane", "migas", "brotkrumen", "kruimel"}

// namesBreadcrumb reports an id or class (lower case) of a breadcrumb
// trail (breadcrumbParts).
func namesBreadcrumb(name string) bool { return holdsPart(name, breadcrumbParts) }

// namesAside reports an id or class (lower case) of a box that is no part
// of the page's content: an author box, a byline, a list of the post's
// terms, or WooCommerce's <section class="related products">.
func namesAside(name string) bool {
	return authorBoxNames[name] || bylineNames[name] || termListNames[name] || name == "related"
}

// boxNamePart reports an id or class (lower case) holding a part of the
// name of a box that is no content (authorBoxParts, promoBoxParts,
// relatedPostsParts, postListParts, recipeCardParts, disclosureParts,
// ctaParts: boxParts).
// The classes WordPress writes for a post's terms and type
// ("category-newsletter", "tag-subscribe") name no box, and a subscriber's
// content ("subscriber-only") is content.
func boxNamePart(name string) bool {
	for _, prefix := range []string{"category-", "tag-", "tax-", "term-", "type-", "format-", "single-", "postid-", "status-"} {
		if strings.HasPrefix(name, prefix) {
			return false
		}
	}
	if strings.Contains(name, "subscriber") {
		return false
	}
	return slices.ContainsFunc(boxParts, func(parts []string) bool { return holdsPart(name, parts) })
}

// holdsPart reports whether an id or class (lower case) holds one of the
// parts of a box's names.
func holdsPart(name string, parts []string) bool {
	return slices.ContainsFunc(parts, func(part string) bool { return strings.Contains(name, part) })
}

// holdsTheDocument reports the elements that hold a page's content, whose
// classes name the post (its type, terms and format) or the page's
// features ("has-breadcrumbs"), never a box in it.
func holdsTheDocument(a atom.Atom) bool {
	return a == atom.Html || a == atom.Body || a == atom.Main || a == atom.Article
}

// namesTOC reports a theme's own name for a table of contents: "toc", or
// "toc" as a part before or after a dash or underscore ("article-toc",
// "toc-title", "post_toc"), not inside a word ("stock", "protocol"). A
// finance trial's <div class="toc"> pushed the real paragraph 2 to 3, and
// three articles lost their uplink.
func namesTOC(name string) bool {
	return name == "toc" || strings.HasPrefix(name, "toc-") || strings.HasPrefix(name, "toc_") ||
		strings.HasSuffix(name, "-toc") || strings.HasSuffix(name, "_toc") || strings.Contains(name, "-toc-") || strings.Contains(name, "_toc_")
}

// namesNavigation reports an id or class (lower case) of a table of
// contents (tocParts) or of a theme's breadcrumb trail written outside a
// <nav>: Yoast SEO's classic
// <p id="breadcrumbs"> inside the article, Rank Math's
// "rank-math-breadcrumb", WooCommerce's "woocommerce-breadcrumb". Read as
// navigation, as a <nav> is: a trial's audit took Yoast's trail for the
// body, counted its hub link as an uplink, and its fix then removed the
// writer's real one.
func namesNavigation(name string) bool {
	return namesBreadcrumb(name) || namesTOC(name) || holdsPart(name, tocParts)
}

// bylineNames are the ids and classes of a post's byline or dateline
// ("By the workshop team · May 2026"), as themes write it. It is read as
// the author box is: a trial's articles opening on a byline paragraph had
// it counted as paragraph 1 of the uplink's two, and 10 of 22 lost their
// uplink.
var bylineNames = map[string]bool{"byline": true, "by-line": true, "post-byline": true, "article-byline": true,
	"entry-byline": true, "dateline": true, "entry-meta": true, "post-meta": true, "article-meta": true,
	"posted-on": true, "wp-block-post-date": true}

// termListNames are the ids and classes of a post's list of tags or
// categories, as WordPress themes ("tags-links", the block editor's Post
// Terms) and Drupal ("field--name-field-tags") write it. It is read as the
// author box is: a trial's Drupal pages ended on a tag link "tomatoes",
// whose word then held back every anchor holding it, "grow tomatoes" the
// uplink's among them.
var termListNames = map[string]bool{"tags": true, "post-tags": true, "entry-tags": true, "article-tags": true,
	"tag-links": true, "tags-links": true, "tagcloud": true, "tag-cloud": true, "cat-links": true,
	"entry-categories": true, "post-categories": true, "wp-block-post-terms": true, "taxonomy-post_tag": true,
	"field--name-field-tags": true, "field-name-field-tags": true, "field--name-tags": true,
	"field--name-field-category": true, "field--name-field-categories": true,
	// WooCommerce's product meta ("SKU: …", "Category: Tools"): a
	// gardening trial's product page counted its category link as the
	// description's, and its budget as taken by it.
	"product_meta": true, "posted_in": true, "tagged_as": true, "sku_wrapper": true}

// commentsID and commentsClass name the elements that hold a page's
// comment section, as WordPress themes (id "comments", class
// "comments-area" around an ol "comment-list", the reply form "respond"),
// Drupal ("comments", "comment-wrapper") and Disqus ("disqus_thread")
// write them, and as schema.org microdata marks them whatever a theme
// calls its elements (itemtype Comment or UserComments, itemprop
// "comment"). The readers' words are not the page's content: no link is
// placed there, their paragraphs and words are not the content's, and
// their links are not in-body links (zone "comments").
var (
	commentsID    = map[string]bool{"comments": true, "respond": true, "disqus_thread": true}
	commentsClass = map[string]bool{"comments-area": true, "comment-list": true, "commentlist": true,
		"comment-respond": true, "comments": true, "comment-wrapper": true,
		// The block editor's (Twenty Twenty-Four): an electronics trial's
		// comment counted as the post's paragraph and its words, and the
		// Related Reading went after it.
		"wp-block-comments": true, "wp-block-post-comments": true, "wp-block-comment-template": true}
	commentsItemType = map[string]bool{"comment": true, "usercomments": true}
	// reviewWidgetParts are what the id or class of a store's customer
	// reviews holds: Judge.me's "jdgm-…", Shopify Product Reviews'
	// "spr-…", Yotpo, Stamped, Okendo, Loox, WooCommerce's reviews tab.
	// Customers' words are comments: a pet store trial's fix placed a
	// link inside a review.
	reviewWidgetParts = []string{"jdgm", "spr-review", "spr-container", "yotpo", "stamped-review", "stamped-main-widget",
		"okendo", "loox", "woocommerce-reviews", "product-reviews"}
)

// namesReviews reports an id or class (lower case) of a store's customer
// reviews (reviewWidgetParts).
func namesReviews(name string) bool { return holdsPart(name, reviewWidgetParts) }

// mayHoldComments reports start tags whose attributes may mark a comment
// section: only those are read for it.
func mayHoldComments(tag []byte) bool { return holdsAnyFold(tag, commentTriggers) }

// commentTriggers are what a start tag holds when mayHoldComments must
// read it ("review" standing for the review widgets that hold it).
var commentTriggers = triggers([]string{"comment", "respond", "disqus", "review"}, reviewWidgetParts)

// mayMarkAside reports start tags whose attributes may name a box that is
// no part of the content or a navigation box (namesAside, boxNamePart,
// namesNavigation, itemprop "author"): only those are read for it.
func mayMarkAside(tag []byte) bool { return holdsAnyFold(tag, asideTriggers) }

// holdsAnyFold reports whether b holds one of the (lower case) needles,
// case aside.
func holdsAnyFold(b []byte, needles []string) bool {
	return slices.ContainsFunc(needles, func(n string) bool { return containsFold(b, n) })
}

// triggers are the words of lists, each once, none that another holds:
// the fewest a start tag is searched for before its attributes are read.
func triggers(lists ...[]string) []string {
	all := slices.Concat(lists...)
	var out []string
	for _, t := range all {
		held := slices.ContainsFunc(all, func(other string) bool { return other != t && strings.Contains(t, other) })
		if !held && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// asideTriggers are what a start tag holds when mayMarkAside must read
// it: the parts of the box names, the words of the exact names
// (authorBoxNames, bylineNames, termListNames) and "breadcrumb", each
// once, none that another holds.
var asideTriggers = triggers(append([][]string{{"author", "sabox", "abh_box", "m-a-box", "byline", "by-line", "dateline", "-meta",
	"_meta", "posted-on", "posted_in", "sku_wrapper", "post-date", "tag", "cat", "terms", "toc", "related"}, tocParts, breadcrumbParts}, boxParts...)...)

// conceals reports whether an element hides what it holds from readers:
// a hidden, aria-hidden or inert element, or a <details> or <dialog> not
// open. A link there is one nobody sees or can use.
func conceals(a atom.Atom, at tagAttrs) bool {
	return at.concealed || (a == atom.Details || a == atom.Dialog) && !at.open
}

// mayConceal reports start tags whose attributes conceals must read.
func mayConceal(a atom.Atom, tag []byte) bool {
	return a == atom.Details || a == atom.Dialog || containsFold(tag, "hidden") || containsFold(tag, "inert") ||
		containsFold(tag, "none")
}

// stylesHidden reports an inline style that hides its element: "display:
// none" or "visibility: hidden" (a trial's hub had a link placed in a
// <p style="display:none">).
func stylesHidden(style string) bool {
	for _, decl := range strings.Split(style, ";") {
		prop, val, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		prop = strings.ToLower(strings.TrimSpace(prop))
		val = strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), "!important")))
		if prop == "display" && val == "none" || prop == "visibility" && val == "hidden" {
			return true
		}
	}
	return false
}

// inForeignContent reports whether the tree builder handles a start tag by
// its foreign-content rules rather than the HTML ones.
func (s *scan) inForeignContent(a atom.Atom, startTag bool) bool {
	n := len(s.stack)
	if n == 0 {
		return false
	}
	top := &s.stack[n-1]
	if top.ns == nsHTML {
		return false
	}
	if startTag {
		if top.ip&ipMathText != 0 && a != atom.Mglyph && a != atom.Malignmark {
			return false
		}
		if top.ip&ipAnnotationXML != 0 && a == atom.Svg {
			return false
		}
		if top.ip&ipHTML != 0 {
			return false
		}
	}
	return true
}

func (s *scan) startTag(z *html.Tokenizer, a atom.Atom, c elemClass, name []byte, hasAttr, selfClosing bool, start, end int) {
	if c&classJoins == 0 {
		s.wordBreak()
	}
	s.cursor, s.tokenStart = start, start
	var at tagAttrs
	if hasAttr && (a == atom.A || a == atom.Font || string(name) == "annotation-xml" ||
		a == atom.Base && s.mode&wantLinks != 0 ||
		containsFold(s.src[start:end], "role") || mayConceal(a, s.src[start:end]) || mayHoldComments(s.src[start:end]) ||
		mayMarkAside(s.src[start:end]) ||
		s.mode&wantBlocks != 0 && containsFold(s.src[start:end], BlockMarkerAttr)) {
		at = s.readAttrs(z, s.src[start:end])
	}
	if a == atom.Base && at.hasHref && !s.hasBase && s.foreign == 0 {
		// The first <base href> is what relative links resolve against.
		s.baseHref, s.hasBase = at.href, true
	}
	if s.block.depth > 0 && string(name) == s.block.name && !selfClosing {
		s.block.depth++
	} else if at.hasBlock && s.block.depth == 0 && !selfClosing && c&classVoid == 0 {
		s.block.name, s.block.depth = string(name), 1
		s.blocks = append(s.blocks, blockSpan{start: start, end: -1, kind: at.block})
	}
	if s.inForeignContent(a, true) {
		if !isBreakout(a) && !(a == atom.Font && at.fontBreakout) {
			s.foreignElement(z, name, at, selfClosing)
			return
		}
		s.breakOut()
	}
	if s.foreign > 0 {
		s.uncertain = true // HTML inside SVG or MathML
	}
	if n := len(s.stack); n > 0 && s.stack[n-1].class&classTableContext != 0 && !isTablePart(a) {
		s.uncertain = true // foster-parented out of the table
	}
	if a == atom.Svg || a == atom.Math {
		if !selfClosing {
			ns := nsSVG
			if a == atom.Math {
				ns = nsMath
			}
			s.pushEntry(stackEntry{a: a, name: string(name), class: classExcluded | classForeign, zone: s.zone(),
				para: -1, link: -1, ns: ns})
		}
		return
	}
	if c&classStartRules != 0 && s.excluded == 0 && s.foreign == 0 && !selfClosing {
		s.landmarks.start(a, end, s.zone() == zoneContent)
	}
	if c&classStartRules != 0 {
		switch a {
		case atom.Html, atom.Body:
			return // merged into the existing element, never opened again
		case atom.Caption, atom.Col, atom.Colgroup, atom.Frame, atom.Tbody, atom.Td, atom.Tfoot,
			atom.Th, atom.Thead, atom.Tr:
			if !s.inTable() {
				return // ignored outside a table
			}
		case atom.Head:
			if len(s.paras) > 0 || len(s.stack) > 0 {
				return // a second head is ignored
			}
		case atom.Frameset:
			// A frameset can replace the body and drop everything after it;
			// nothing that follows is eligible.
			s.frameset = true
		}
	}
	if n := len(s.stack); n > 0 && s.stack[n-1].a == atom.Head && !belongsInHead(a) {
		// Body content ends a head left open, as the tree builder does.
		s.popTo(n - 1)
	}
	if c&classVoid != 0 {
		if c&classClosesP != 0 {
			s.closeP()
		}
		return
	}
	if a == atom.Table && !s.noQuirks && s.pInButtonScope() {
		// In quirks mode the table opens inside the paragraph, and
		// whatever is foster-parented out of it lands there too; rather
		// than follow that, nothing in this table is eligible, and the
		// paragraph counts as closed, which is safe either way.
		c |= classExcluded
	}
	if c&classClosesP != 0 {
		s.closeP()
	}
	if conceals(a, at) {
		c |= classExcluded | classHidden
		if c&classFormatting != 0 {
			// The tree builder may open it again in the next block, where
			// the scanner would not know it hides; the parser checks.
			s.uncertain = true
		}
	}
	if c&classStartRules != 0 {
		switch a {
		case atom.Li:
			s.closeListItem(atom.Li, atom.Li)
		case atom.Dd, atom.Dt:
			s.closeListItem(atom.Dd, atom.Dt)
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if n := len(s.stack); n > 0 && isHeading(s.stack[n-1].a) {
				s.popTo(n - 1)
			}
		case atom.A:
			// A new <a> closes any open one (the tree builder's adoption agency).
			if s.forget(atom.A) {
				s.uncertain = true
				s.adoptionAgency(atom.A)
			}
			s.active = append(s.active, activeFormatting{a: atom.A, markers: s.markers})
		case atom.Code, atom.S, atom.Strike:
			// Formatting the tree builder opens again in later blocks, and
			// no link goes inside: it excludes for as long as it is active.
			s.active = append(s.active, activeFormatting{a: a, markers: s.markers})
		}
	}

	zn := s.zone()
	if c&classZone != 0 && !(a == atom.Article && (zn == zoneAside || zn == zoneNavigation)) {
		// An <article> in a sidebar, a menu or a box of posts is a teaser
		// of another page, no content of this one (a French trial's
		// Elementor Posts widget wraps each post so).
		zn = zoneOf(a)
	}
	if at.role != "" {
		if rz, ok := zoneOfRole(strings.ToLower(strings.TrimSpace(at.role))); ok {
			zn = rz
		}
	}
	if (at.authorBox || at.boxPart && !holdsTheDocument(a)) && zn == zoneContent {
		zn = zoneAside
	}
	if at.navigation && !holdsTheDocument(a) && zn == zoneContent {
		zn = zoneNavigation
	}
	if at.comments || s.zone() == zoneComments {
		// A comment's own header and footer (its author, its date) are
		// the comment section's still.
		zn = zoneComments
	}
	if zn == zoneFooter && s.zone() != zoneFooter && s.excluded == 0 && s.foreign == 0 && !s.inArticle() {
		s.landmarks.footer(start, s.contentParas)
	}
	if zn == zoneContent && s.zone() == zoneContent && isContentBlock(a) && s.excluded == 0 && s.foreign == 0 {
		s.landmarks.contentAfterTail(s.contentParas)
	}
	if zn != zoneContent && s.zone() == zoneContent && s.contentParas > 0 && s.excluded == 0 && s.foreign == 0 {
		// The document's root, which the stack leaves out, holds them all.
		if n := len(s.stack); n == 0 || slices.Contains(s.paraAncestors, s.stack[n-1].at) {
			s.landmarks.tail(start, s.contentParas)
		}
	}
	para, link := -1, -1
	if a == atom.P {
		para = len(s.paras)
		p := paragraph{index: len(s.paras) + 1, start: start, end: -1, tagEnd: end, firstRun: -1, lastRun: -1}
		if zn == zoneContent {
			s.contentParas++
			p.content = s.contentParas
			s.paraAncestors = s.paraAncestors[:0]
			for _, e := range s.stack {
				s.paraAncestors = append(s.paraAncestors, e.at)
			}
		}
		s.paras = append(s.paras, p)
	}
	if a == atom.A {
		link = len(s.anchors)
		s.anchors = append(s.anchors, anchor{start: start, tagEnd: end, end: end, closeStart: -1, closeEnd: -1,
			para: s.innermostPara(), href: at.href, hasHref: at.hasHref, rel: at.rel, marker: at.marker,
			hasMarker: at.hasMarker, zone: zn, openRun: int32(len(s.runs)), closeRun: -1})
		if l := &s.anchors[link]; l.para >= 0 {
			s.paras[l.para].linkCount++
		}
		s.openLink = link
		s.lastA = link
	}
	e := stackEntry{a: a, class: c, zone: zn, para: para, link: link, at: start}
	if a == 0 {
		e.name = string(name)
	}
	s.pushEntry(e)
}

// foreignElement handles a start tag inside SVG or MathML.
func (s *scan) foreignElement(z *html.Tokenizer, name []byte, at tagAttrs, selfClosing bool) {
	top := s.stack[len(s.stack)-1]
	// The tree builder keeps the tokenizer out of raw-text mode for foreign
	// elements (an SVG <title> or <style>), self-closing or not.
	z.NextIsNotRawText()
	if selfClosing {
		return
	}
	e := stackEntry{a: atom.Lookup(name), name: string(name), class: classExcluded | classScope, zone: top.zone, para: -1, link: -1, ns: top.ns}
	switch {
	case top.ns == nsSVG && (e.name == "foreignobject" || e.name == "desc" || e.name == "title"):
		e.ip = ipHTML
	case top.ns == nsMath && (e.name == "mi" || e.name == "mo" || e.name == "mn" || e.name == "ms" || e.name == "mtext"):
		e.ip = ipMathText
	case top.ns == nsMath && e.name == "annotation-xml":
		e.ip = ipAnnotationXML
		if strings.EqualFold(at.encoding, "text/html") || strings.EqualFold(at.encoding, "application/xhtml+xml") {
			e.ip |= ipHTML
		}
	}
	if e.ip == 0 {
		e.class &^= classScope
	} else {
		e.class |= classSpecial
	}
	if isTableContext(e.a) {
		e.class |= classTableContext
	}
	s.pushEntry(e)
}

func isBreakout(a atom.Atom) bool {
	switch a {
	case atom.B, atom.Big, atom.Blockquote, atom.Body, atom.Br, atom.Center, atom.Code, atom.Dd, atom.Div,
		atom.Dl, atom.Dt, atom.Em, atom.Embed, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Head, atom.Hr, atom.I, atom.Img, atom.Li, atom.Listing, atom.Menu, atom.Meta, atom.Nobr,
		atom.Ol, atom.P, atom.Pre, atom.Ruby, atom.S, atom.Small, atom.Span, atom.Strong, atom.Strike,
		atom.Sub, atom.Sup, atom.Table, atom.Tt, atom.U, atom.Ul, atom.Var:
		return true
	}
	return false
}

// isContentBlock reports content a page's text goes on with that is no
// paragraph: a table, a list, a figure, a quotation, code or a heading.
func isContentBlock(a atom.Atom) bool {
	switch a {
	case atom.Table, atom.Ol, atom.Ul, atom.Dl, atom.Figure, atom.Pre, atom.Blockquote:
		return true
	}
	return isHeading(a)
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

func (s *scan) zone() zone {
	if n := len(s.stack); n > 0 {
		return s.stack[n-1].zone
	}
	return zoneContent
}

func (s *scan) pushEntry(e stackEntry) {
	s.stack = append(s.stack, e)
	s.count(e, 1)
}

// count keeps the stack's running totals as entry e comes (+1) or goes (-1).
func (s *scan) count(e stackEntry, d int) {
	if e.class&classExcluded != 0 {
		s.excluded += d
	}
	if e.class&classHidden != 0 && e.ns == nsHTML {
		s.hidden += d
	}
	if e.class&classMarker != 0 {
		s.markers += d
	}
	if e.ns != nsHTML {
		s.foreign += d
	}
}

// popTo pops the stack down to and including index i.
func (s *scan) popTo(i int) {
	for j := len(s.stack) - 1; j >= i; j-- {
		e := s.stack[j]
		if j > i && isFormatting(e.a) && e.ns == nsHTML {
			s.uncertain = true // it will be reconstructed in the next block
		}
		s.count(e, -1)
		if e.class&classMarker != 0 {
			// Closing a table cell (or other marker) drops the formatting
			// elements opened inside it.
			k := len(s.active)
			for k > 0 && s.active[k-1].markers > s.markers {
				k--
			}
			s.active = s.active[:k]
		}
		if e.para >= 0 {
			s.closeParagraph(e.para)
		}
		if e.link >= 0 {
			s.closeLink(e.link, -1)
		}
	}
	s.stack = s.stack[:i]
}

func (s *scan) closeParagraph(p int) {
	s.wordBreak()
	if s.paras[p].end < 0 {
		s.paras[p].end = s.cursor
		s.paras[p].contentEnd = s.tokenStart
	}
}

func (s *scan) closeLink(i, end int) {
	l := &s.anchors[i]
	if l.closed {
		return
	}
	l.closed = true
	l.end = s.cursor
	if end >= 0 {
		l.end = end
	}
	l.closeRun = int32(len(s.runs))
	if s.openLink == i {
		s.openLink = -1
		for j := len(s.stack) - 1; j >= 0; j-- {
			if k := s.stack[j].link; k >= 0 && k != i && !s.anchors[k].closed {
				s.openLink = k
				break
			}
		}
	}
}

// forget removes the newest active formatting element of kind a.
func (s *scan) forget(a atom.Atom) bool {
	for k := len(s.active) - 1; k >= 0; k-- {
		if s.active[k].a == a {
			if s.active[k].markers != s.markers {
				// The tree builder ignores an end tag across a table cell.
				return false
			}
			s.active = append(s.active[:k], s.active[k+1:]...)
			return true
		}
	}
	return false
}

// breakOut ends foreign content the way an HTML element appearing in it
// does: everything above the nearest HTML element or integration point goes.
func (s *scan) breakOut() {
	s.uncertain = true
	for i := len(s.stack) - 1; i >= 0; i-- {
		if e := s.stack[i]; e.ns == nsHTML || e.ip&(ipHTML|ipMathText) != 0 {
			s.popTo(i + 1)
			return
		}
	}
	s.popTo(0)
}

func (s *scan) pInButtonScope() bool {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == atom.P && e.ns == nsHTML {
			return true
		}
		if e.class&classScope != 0 {
			return false
		}
	}
	return false
}

// closeP closes a <p> that is open in button scope.
func (s *scan) closeP() {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == atom.P {
			s.popTo(i)
			return
		}
		if e.class&classScope != 0 {
			return
		}
	}
}

// closeListItem closes an open list item as a new one starts.
func (s *scan) closeListItem(a1, a2 atom.Atom) {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == a1 || e.a == a2 {
			s.popTo(i)
			return
		}
		if e.class&classSpecial != 0 && e.a != atom.Address && e.a != atom.Div && e.a != atom.P {
			return
		}
	}
}

func (s *scan) endTag(a atom.Atom, c elemClass, name []byte, start, end int) {
	if c&classJoins == 0 {
		s.wordBreak()
	}
	s.cursor, s.tokenStart = start, start
	if a == atom.P {
		s.cursor = end
	}
	if (a == atom.Header || a == atom.Nav) && s.excluded == 0 && s.foreign == 0 && !s.inArticle() {
		s.landmarks.chrome(end, s.contentParas)
	}
	if c&classEndRules != 0 && s.excluded == 0 && s.foreign == 0 {
		s.landmarks.end(a, start)
	}
	if s.inForeignContent(a, false) {
		// x/net/html's rule: close the nearest foreign element of that name,
		// else hand the tag to the HTML rules.
		for i := len(s.stack) - 1; i >= 0; i-- {
			if s.stack[i].ns != nsHTML && strings.EqualFold(s.stack[i].name, string(name)) {
				s.popTo(i)
				return
			}
			if i > 0 && s.stack[i-1].ns == nsHTML {
				break
			}
		}
		s.uncertain = true
	}
	if c&classEndRules != 0 {
		switch a {
		case atom.P:
			if !s.pInButtonScope() && s.inForeignContent(atom.P, true) {
				// The tree builder opens an empty <p> for a stray </p>, and
				// opening it ends foreign content.
				s.breakOut()
			}
		case atom.Br:
			// "</br>" is read as "<br>", which ends foreign content.
			if s.inForeignContent(atom.Br, true) {
				s.breakOut()
			}
			return
		case atom.A:
			if s.lastA >= 0 {
				s.anchors[s.lastA].closeStart, s.anchors[s.lastA].closeEnd = start, end
				s.lastA = -1
			}
			if s.openLink >= 0 {
				s.closeLink(s.openLink, end)
			}
			s.forget(atom.A)
		case atom.Code, atom.S, atom.Strike:
			s.forget(a)
		case atom.Body, atom.Html:
			return
		}
	}
	if c&classFormatting != 0 {
		s.adoptionAgency(a)
		return
	}
	if a == atom.Form {
		// </form> takes the form element out of the stack and leaves
		// whatever is open inside it open.
		for i := len(s.stack) - 1; i >= 0; i-- {
			e := s.stack[i]
			if e.a == atom.Form && e.ns == nsHTML {
				for n := len(s.stack); n > i+1 && impliedEnd(s.stack[n-1].a); n = len(s.stack) {
					s.popTo(n - 1)
				}
				if i != len(s.stack)-1 {
					s.uncertain = true
				}
				s.remove(i)
				return
			}
			if e.class&classScope != 0 {
				return
			}
		}
		return
	}
	heading, tableEnd := isHeading(a), closesTable(a)
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.ns == nsHTML && (e.a == a && (a != 0 || e.name == string(name)) || heading && isHeading(e.a)) {
			s.popTo(i)
			return
		}
		if e.class&classScope != 0 && !(tableEnd && isCellLike(e.a) && e.ns == nsHTML) {
			return
		}
		if a == atom.Li && (e.a == atom.Ul || e.a == atom.Ol) && e.ns == nsHTML {
			return // </li> looks no further than its list ("list item scope")
		}
		if e.class&classSpecial != 0 && c&classSpecial == 0 {
			return
		}
	}
}

func (s *scan) endOfDocument(end int) {
	s.cursor, s.tokenStart = end, end
	s.popTo(0)
	s.wordBreak()
	s.landmarks.contentParas = s.contentParas
	s.numberContent()
}

// inArticle reports whether an <article> is open.
func (s *scan) inArticle() bool {
	for i := range s.stack {
		if s.stack[i].a == atom.Article && s.stack[i].ns == nsHTML {
			return true
		}
	}
	return false
}

func belongsInHead(a atom.Atom) bool {
	switch a {
	case atom.Title, atom.Meta, atom.Link, atom.Style, atom.Script, atom.Base, atom.Basefont,
		atom.Bgsound, atom.Noscript, atom.Template, atom.Noframes, atom.Head:
		return true
	}
	return false
}

// inTable reports whether the innermost table context is a table, so that
// table-part start tags are not ignored.
func (s *scan) inTable() bool {
	for i := len(s.stack) - 1; i >= 0; i-- {
		switch s.stack[i].a {
		case atom.Table:
			return s.stack[i].ns == nsHTML
		case atom.Template:
			return false
		}
	}
	return false
}

// closesTable reports end tags that close an open cell on their way, their
// scope being the table's.
func closesTable(a atom.Atom) bool {
	switch a {
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr:
		return true
	}
	return false
}

func isCellLike(a atom.Atom) bool { return a == atom.Td || a == atom.Th || a == atom.Caption }

func isFormatting(a atom.Atom) bool {
	switch a {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr, atom.S,
		atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

// adoptionAgency follows the tree builder's handling of a formatting end tag
// as far as the stack goes: with no special element above the formatting
// element everything down to it closes; with one (the "furthest block"),
// only the formatting element leaves the stack and the blocks stay open.
func (s *scan) adoptionAgency(a atom.Atom) {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == a && e.ns == nsHTML {
			if i != len(s.stack)-1 {
				s.uncertain = true // misnested: the tree builder may clone and move nodes
			}
			for j := i + 1; j < len(s.stack); j++ {
				if s.stack[j].class&classSpecial != 0 || s.stack[j].ip != 0 {
					s.remove(i)
					return
				}
			}
			s.popTo(i)
			return
		}
		if e.class&classScope != 0 {
			return
		}
	}
}

// remove takes one entry out of the middle of the stack.
func (s *scan) remove(i int) {
	e := s.stack[i]
	s.count(e, -1)
	if e.link >= 0 {
		s.closeLink(e.link, -1)
	}
	if e.para >= 0 {
		s.closeParagraph(e.para)
	}
	s.stack = append(s.stack[:i], s.stack[i+1:]...)
}

// impliedEnd reports elements the tree builder closes implicitly before an
// end tag ("generate implied end tags").
func impliedEnd(a atom.Atom) bool {
	switch a {
	case atom.Dd, atom.Dt, atom.Li, atom.Optgroup, atom.Option, atom.P, atom.Rb, atom.Rp, atom.Rt, atom.Rtc:
		return true
	}
	return false
}

func isTableContext(a atom.Atom) bool {
	switch a {
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr:
		return true
	}
	return false
}

func isTablePart(a atom.Atom) bool {
	switch a {
	case atom.Caption, atom.Colgroup, atom.Col, atom.Tbody, atom.Tfoot, atom.Thead, atom.Tr, atom.Td,
		atom.Th, atom.Script, atom.Style, atom.Template, atom.Input, atom.Form:
		return true
	}
	return false
}
