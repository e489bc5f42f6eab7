package planning

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// Crumb is one step of a breadcrumb trail.
type Crumb struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// PageID is the page the crumb links to, when that page is known.
	PageID string `json:"page_id,omitempty"`
}

// Breadcrumbs builds the trail Home → Sector → [Attribute] → Hub → Page
// from the site's hierarchy (SAG link type 6). The attribute step is the
// term page of one of the cluster's attribute values, and only when the
// site's URLs put the cluster under it (the term page's path is a prefix
// of the hub's, or of the page's when there is no hub): a trail follows
// the hierarchy a reader sees in the address, and a term page elsewhere
// is a facet, not a parent. Steps that do not exist for the page, or that
// would repeat the page itself, are left out. A page has one name in
// every trail (crumbName), shortened by the rules of the site's language
// (policy.Policy.Language; "" is English).
func Breadcrumbs(st site.Structure, language string, page site.Page, hub, term *site.Page) []Crumb {
	trail := []Crumb{{Name: homeName(st), URL: st.Site.RootPath()}}
	if page.Kind == site.KindHome {
		trail[0].PageID, trail[0].URL = page.ID, page.URL
		return trail
	}
	if sec, ok := st.Sector(trailSector(st, page)); ok && markup.PagePath(sec.URL) != markup.PagePath(page.URL) {
		trail = append(trail, Crumb{Name: sec.Name, URL: sec.URL})
	}
	under := page.URL
	if hub != nil {
		under = hub.URL
	}
	if term != nil && term.ID != page.ID && onPath(term.URL, under) {
		trail = append(trail, Crumb{Name: crumbName(st, language, *term), URL: term.URL, PageID: term.ID})
	}
	if hub != nil && hub.ID != page.ID {
		trail = append(trail, Crumb{Name: crumbName(st, language, *hub), URL: hub.URL, PageID: hub.ID})
	}
	name := crumbName(st, language, page)
	if strings.EqualFold(name, trail[len(trail)-1].Name) || hub != nil && hub.ID != page.ID && namesCluster(st, language, *hub, name) {
		// "Payroll taxes: a guide for first-time employers" is "Payroll
		// taxes" short, its hub's name: a help-center trial's trail said
		// "Payroll taxes › Payroll taxes". So is a cut that is one of the
		// hub's keywords: a law firm trial's "Whiplash Claims: Frequently
		// Asked Questions" was "Whiplash Claims" under the hub "Whiplash
		// Injuries", whose keyword is "whiplash claim". The page is told
		// apart by its whole title.
		name = page.Title
	}
	return append(trail, Crumb{Name: name, URL: page.URL, PageID: page.ID})
}

// trailSector is the sector a page's trail climbs through: its cluster's
// or its own (site.Structure.SectorOf), or for a page of neither the
// deepest sector whose address its own is under: a Spanish trial's term
// page at /montana/pirineos/ was trailed from home straight to itself,
// past the sector page at /montana/.
func trailSector(st site.Structure, p site.Page) string {
	if id := st.SectorOf(p); id != "" || p.Kind == site.KindHome || p.Kind == site.KindSector {
		return id
	}
	path := markup.PagePath(p.URL)
	best, depth := "", 0
	for _, sec := range st.Sectors {
		if at := markup.PagePath(sec.URL); len(at) > depth && onPath(at, path) {
			best, depth = sec.ID, len(at)
		}
	}
	return best
}

// crumbName is what a page is called in every trail it is on, its own and
// those of the pages under it: a hub by its cluster's name and a sector
// page by its sector's when the site gives one (the pages under a sector
// name it so, its page or not), any page by its short title (the part
// before a subtitle). Only an English title is cut further, by its
// primary keyword (keywordOfTitle) or main clause (anchors.MainClause):
// both read English word order and words ("How to", "before", "for"),
// and on a Spanish title they leave a lower-case fragment ("congelar el
// pulpo" of "¿Por qué congelar el pulpo antes de cocerlo?"), so another
// language's long title is cut only before a question clause joined to it
// (anchors.JoinedQuestionCut: "Errores comunes del compost casero y cómo
// evitarlos"), else stays whole.
func crumbName(st site.Structure, language string, p site.Page) string {
	return capitalizedAsTitle(shortCrumbName(st, language, p), p.Title)
}

// capitalizedAsTitle is a crumb cut from inside a title with its first
// letter in upper case when the title's is: a help-center trial's
// sentence-case "How do I change the invoice number format?" gave the
// crumb "invoice number format".
func capitalizedAsTitle(name, title string) string {
	first, size := utf8.DecodeRuneInString(name)
	if t, _ := utf8.DecodeRuneInString(strings.TrimLeft(title, "¿¡\"'“‘(")); unicode.IsLower(first) && unicode.IsUpper(t) {
		return string(unicode.ToUpper(first)) + name[size:]
	}
	return name
}

// shortCrumbName is crumbName before its capital.
func shortCrumbName(st site.Structure, language string, p site.Page) string {
	switch p.Kind {
	case site.KindHub:
		if c, ok := st.Cluster(p.ClusterID); ok && c.Name != "" {
			return c.Name
		}
	case site.KindSector:
		if sec, ok := st.Sector(p.SectorID); ok && sec.Name != "" && markup.PagePath(sec.URL) == markup.PagePath(p.URL) {
			return sec.Name
		}
	}
	// A product's size or pack is no part of its name: a trial's crumbs
	// read "Linden Botanical Peel-and-Stick Wallpaper, 20.5", cut at the
	// "in" of its inches. It goes first, as from the title's anchor
	// candidates, so a pack in brackets does not keep the spec before it
	// (a lighting trial's crumb "Lumen & Co. Smart A19 Bulb, Tunable
	// White" of "…, Tunable White (4-Pack)").
	title := anchors.WithoutSpec(p.Title)
	if short := anchors.ShortTitle(title); short != "" {
		return short
	}
	if title != p.Title {
		return title
	}
	if language != "" && language != policy.English {
		if longTitle(p.Title) {
			if head := anchors.JoinedQuestionCut(p.Title, language); head != "" {
				return head
			}
			if head := keywordOpeningTitle(st, language, p); head != "" {
				return head
			}
		}
		return p.Title
	}
	if named := keywordOfTitle(st, p); named != "" {
		return named
	}
	if longTitle(p.Title) {
		if head := anchors.MainClause(p.Title); head != "" {
			return head
		}
	}
	return p.Title
}

// A title keeps its whole length as a crumb up to maxCrumbWords words or
// maxCrumbChars characters: trial 16's "Grind Size Chart for Every Brewing
// Method" stayed whole as the last step of its trail, where "How to Read
// a Coffee Bag Label" reads well whole.
const (
	maxCrumbWords = 6
	maxCrumbChars = 40
)

// longTitle reports whether a title is longer than a crumb keeps whole:
// over maxCrumbWords words and maxCrumbChars characters, counted as
// characters, not bytes (a French trial's "Le velouté de potimarron à la
// châtaigne", 39 characters in 42 bytes, was cut).
func longTitle(title string) bool {
	return len(strings.Fields(title)) > maxCrumbWords && utf8.RuneCountInString(title) > maxCrumbChars
}

// keywordOfTitle names a page with a long title and no subtitle by the
// words of its title its primary keyword (two words or more) matches, as
// the title writes them ("Grind Size Chart for Every Brewing Method" with
// the primary keyword "grind size chart": "Grind Size Chart"), with the
// "How to" before them ("How to Store Coffee Beans So They Stay Fresh":
// "How to Store Coffee Beans"). It is "" when the title does not hold
// the keyword, or holds it as one of a list ("Kayak Length, Width, and
// Cockpit Fit" is about more than the length), or when the keyword is
// the cluster's own name or primary keyword, which names the hub, the
// step before. Other keywords are not tried: they name what else the
// page touches ("cold brew" for "Making Cold Brew in a French Press").
func keywordOfTitle(st site.Structure, p site.Page) string {
	words := strings.Fields(p.Title)
	if !longTitle(p.Title) {
		return ""
	}
	want := strings.Fields(strings.ToLower(p.PrimaryKeyword))
	if len(want) < 2 {
		return ""
	}
	if keywordNamesCluster(st, p) {
		return ""
	}
	bare := make([]string, len(words))
	for i, w := range words {
		bare[i] = strings.ToLower(strings.Trim(w, ",;.!?\"'()"))
	}
	for i := 0; i+len(want) <= len(bare); i++ {
		if !slices.Equal(bare[i:i+len(want)], want) {
			continue
		}
		end := i + len(want)
		if listed(words, bare, i, end) {
			return ""
		}
		switch {
		case bare[0] == "how" && bare[1] == "to":
			// "How to Help an Overweight Dog Lose Weight": the title's
			// "How to" and its verb up to the keyword's last word, not the
			// keyword's words alone (a trial's crumb read "Overweight Dog").
			i = 0
		case i >= 2 && bare[i-2] == "how" && bare[i-1] == "to":
			i -= 2
		}
		return trimName(strings.Join(words[i:end], " "))
	}
	return ""
}

// trimName takes off the punctuation a name cut out of a title keeps at
// its ends: a comma or stop after it, the quotes around it, and a bracket
// the cut left without its pair (a trial's crumb read "(Scaling and Root
// Planing)" of "Deep Cleaning (Scaling and Root Planing) Explained").
func trimName(name string) string {
	for {
		trimmed := strings.TrimRight(strings.TrimLeft(name, "\"'“‘"), ",;:.!?\"'”’")
		switch {
		case strings.HasPrefix(trimmed, "(") && strings.Count(trimmed, "(") > strings.Count(trimmed, ")"):
			trimmed = trimmed[1:]
		case strings.HasSuffix(trimmed, ")") && strings.Count(trimmed, ")") > strings.Count(trimmed, "("):
			trimmed = trimmed[:len(trimmed)-1]
		case strings.HasPrefix(trimmed, "(") && strings.HasSuffix(trimmed, ")") && balancedInside(trimmed[1:len(trimmed)-1]):
			trimmed = trimmed[1 : len(trimmed)-1]
		}
		if trimmed == name {
			return name
		}
		name = trimmed
	}
}

// balancedInside reports whether s closes every bracket it opens, in order.
func balancedInside(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// keywordOpeningTitle names a page of a site in another language than
// English, whose long title has no subtitle, by the words its primary
// keyword (two words or more) matches when the title opens on them, after
// an article of the language, as the title writes them: "Qué llevar en
// la mochila" of "Qué llevar en la mochila para una ruta de montaña" (a
// Spanish trial's crumb kept the whole title). A title's opening names it
// in any word order; a keyword found further in may be a lower-case
// fragment ("congelar el pulpo" of "¿Por qué congelar el pulpo antes de
// cocerlo?"), and a title that opens on a question mark reads as one
// question. "" when the title does not open on the keyword, when the
// keyword is one item of a list (a comma or the language's "and" or "or"
// after it: "Caños de Meca y Zahara de los Atunes en primavera"), or when
// it names the hub, the step before (keywordOfTitle).
func keywordOpeningTitle(st site.Structure, language string, p site.Page) string {
	words := strings.Fields(p.Title)
	want := strings.Fields(strings.ToLower(p.PrimaryKeyword))
	if len(want) < 2 || len(words) == 0 || strings.HasPrefix(words[0], "¿") || strings.HasPrefix(words[0], "¡") {
		return ""
	}
	if keywordNamesCluster(st, p) {
		return ""
	}
	from := 0
	if anchors.IsTitleArticle(words[0], language) {
		from = 1
	}
	end := from + len(want)
	if end >= len(words) {
		return ""
	}
	for i, w := range want {
		if strings.ToLower(strings.Trim(words[from+i], ",;.!?\"'()")) != w {
			return ""
		}
	}
	if strings.HasSuffix(words[end-1], ",") || listJoiners[language][strings.ToLower(words[end])] {
		return ""
	}
	return trimName(strings.Join(words[:end], " "))
}

// namesCluster reports whether name is one of the names of the hub's
// cluster: the cluster's name, primary keyword or keywords, or the hub's
// own, each read by its singular (anchors.SameWords).
func namesCluster(st site.Structure, language string, hub site.Page, name string) bool {
	names := append([]string{hub.PrimaryKeyword}, hub.Keywords...)
	if c, ok := st.Cluster(hub.ClusterID); ok {
		names = append(append(names, c.Name, c.PrimaryKeyword), c.Keywords...)
	}
	bare := withoutGradingOpeners(name, language)
	return slices.ContainsFunc(names, func(n string) bool { return anchors.SameWords(n, name) || anchors.SameWords(n, bare) })
}

// withoutGradingOpeners is name without the article and the grading
// words (anchors.GradesOnly: "best", "top", "ultimate") it opens on, which
// say nothing of which page it is: a gardening trial's "The Best Climbing
// Roses for North-Facing Walls" was cut to "The Best Climbing Roses"
// under the hub "Climbing Roses".
func withoutGradingOpeners(name, language string) string {
	words := strings.Fields(name)
	i := 0
	for i < len(words)-1 && (anchors.IsTitleArticle(words[i], language) || anchors.GradesOnly(words[i])) {
		i++
	}
	return strings.Join(words[i:], " ")
}

// keywordNamesCluster reports whether the page's primary keyword is its
// cluster's name or primary keyword: it names the hub, the trail's step
// before the page.
func keywordNamesCluster(st site.Structure, p site.Page) bool {
	c, ok := st.Cluster(p.ClusterID)
	kw := strings.Join(strings.Fields(strings.ToLower(p.PrimaryKeyword)), " ")
	return ok && (kw == strings.ToLower(c.Name) || kw == strings.ToLower(c.PrimaryKeyword))
}

// listJoiners are, by language (policy.Languages but English, whose
// titles keywordOfTitle reads), the words that join one more item to a
// list.
var listJoiners = map[string]map[string]bool{
	"danish":     {"og": true, "eller": true},
	"dutch":      {"en": true, "of": true},
	"finnish":    {"ja": true, "tai": true},
	"french":     {"et": true, "ou": true},
	"german":     {"und": true, "oder": true},
	"hungarian":  {"és": true, "vagy": true},
	"italian":    {"e": true, "ed": true, "o": true, "oppure": true},
	"norwegian":  {"og": true, "eller": true},
	"portuguese": {"e": true, "ou": true},
	"russian":    {"и": true, "или": true},
	"spanish":    {"y": true, "e": true, "o": true, "u": true},
	"swedish":    {"och": true, "eller": true},
}

// listed reports whether words[from:to] is one item of a list: "and",
// "or" or "&" joins it to a neighbour (not to a clause: "… and Why It
// Matters"), or a comma next to it opens a list
// that one of them closes ("Kayak Length, Width, and Cockpit Fit"; not
// "Waterproof Membranes, Really").
func listed(words, bare []string, from, to int) bool {
	joins := func(w string) bool { return w == "and" || w == "or" || w == "&" }
	// "… and Why It Matters" joins a clause, not an item
	joinsItem := to+1 < len(bare) && !anchors.OpensClause(bare[to+1]) || to+1 == len(bare)
	if to < len(bare) && joins(bare[to]) && joinsItem || from > 0 && joins(bare[from-1]) {
		return true
	}
	comma := strings.HasSuffix(words[to-1], ",") || from > 0 && strings.HasSuffix(words[from-1], ",")
	return comma && slices.ContainsFunc(bare[to:], joins)
}

// onPath reports whether path parent is an ancestor of path child in the
// site's URL hierarchy ("/mountain/" of "/mountain/boots/").
func onPath(parent, child string) bool {
	if parent == "" || parent == "/" {
		return false
	}
	if !strings.HasSuffix(parent, "/") {
		parent += "/"
	}
	return strings.HasPrefix(child, parent) && child != parent
}

func homeName(st site.Structure) string {
	if st.Site.Name != "" {
		return st.Site.Name
	}
	return "Home"
}

// breadcrumbs plans the page's trail and a breadcrumb link to each step
// that is a known page: home, the sector page, the term page and the hub.
func (pl *planner) breadcrumbs() {
	page := pl.in.Page
	var hub *site.Page
	if pl.in.Hub != nil && page.ClusterID != "" {
		hub = pl.in.Hub
	}
	trail := Breadcrumbs(pl.in.Structure, pl.in.Policy.Language, page, hub, pl.attributeTerm())
	if len(trail) < 2 {
		// A trail of one step is the page itself (the home page): three
		// trials read its one-item nav and BreadcrumbList as noise.
		return
	}
	// The home and sector steps are the site's pages at those addresses,
	// in whatever form site.updated gives them ("https://host/blog/baking"
	// for the page at "/blog/baking/"): the step then links the page's URL.
	byPath := map[string]Target{}
	for _, t := range pl.targets {
		if t.Kind == site.KindHome || t.Kind == site.KindSector {
			byPath[markup.PagePath(t.URL)] = t
		}
	}
	for i := range trail {
		if t, ok := byPath[markup.PagePath(trail[i].URL)]; ok && trail[i].PageID == "" {
			trail[i].PageID, trail[i].URL = t.ID, t.URL
		}
	}
	pl.plan.Breadcrumbs = trail
	for i, c := range trail[:len(trail)-1] {
		if c.PageID == "" || c.PageID == page.ID {
			continue
		}
		l := pl.newLink(Target{Page: site.Page{ID: c.PageID, URL: c.URL}}, link.TypeBreadcrumb, link.ZoneBreadcrumb)
		l.Anchor = c.Name
		l.AnchorType = link.AnchorPageTitle
		if i == 0 {
			l.AnchorType = link.AnchorBranded
		}
		l.Candidates = []link.Anchor{{Text: c.Name, Type: l.AnchorType}}
		l.Explanation = "breadcrumb: step of the trail Home → Sector → [Attribute] → Hub → Page"
		pl.add(l)
	}
}

// attributeTerm is the term page of the breadcrumb's attribute step: of
// the term pages carrying one of the cluster's attribute values, the one
// whose path is the nearest ancestor of the hub's (of the page's when it
// has no hub), nil when none is. Which of the cluster's values has a term
// page first does not matter: a cluster with values material=steel and
// terrain=gravel, a term page for each and its hub under the gravel one's
// path takes the gravel step, whatever the steel page's URL.
func (pl *planner) attributeTerm() *site.Page {
	if pl.in.Page.ClusterID == "" || pl.in.Page.Kind == site.KindTerm {
		return nil
	}
	under := pl.in.Page.URL
	if pl.in.Hub != nil {
		under = pl.in.Hub.URL
	}
	mine := map[string]bool{}
	for _, f := range pl.in.Structure.ClusterFacets(pl.cluster) {
		mine[f] = true
	}
	var best *site.Page
	for i := range pl.targets { // in id order: the first of equals wins
		t := &pl.targets[i]
		if t.Kind != site.KindTerm || !onPath(t.URL, under) || (best != nil && len(t.URL) <= len(best.URL)) {
			continue
		}
		for _, f := range pl.in.Structure.Facets(t.Attributes) {
			if mine[f] {
				best = &t.Page
				break
			}
		}
	}
	return best
}
