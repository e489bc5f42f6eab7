package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// English is the default language of a site's text (Policy.Language).
const English = "english"

// language is one language a site's text may be written in: the name of
// its stemmer in domain/markup (Options.Language) and its ISO 639-1 codes.
type language struct {
	name  string
	codes []string
}

// languages are those markup has a stemmer for. A language without one is
// refused rather than read as another: English stems and grammar rules
// would find false variations and refuse sound links in its text.
var languages = []language{
	{English, []string{"en"}},
	{"danish", []string{"da"}},
	{"dutch", []string{"nl"}},
	{"finnish", []string{"fi"}},
	{"french", []string{"fr"}},
	{"german", []string{"de"}},
	{"hungarian", []string{"hu"}},
	{"italian", []string{"it"}},
	{"norwegian", []string{"no", "nb"}},
	{"portuguese", []string{"pt"}},
	{"russian", []string{"ru"}},
	{"spanish", []string{"es"}},
	{"swedish", []string{"sv"}},
}

// Languages are the names Policy.Language takes, in order.
func Languages() []string {
	out := make([]string, len(languages))
	for i, l := range languages {
		out[i] = l.name
	}
	return out
}

// languageName is the name of the language a site's override gives by
// name or by ISO 639-1 code, in any case, the code with a region or
// script after it as a BCP 47 tag has ("pt-BR", "de_AT": a site's
// `<html lang>` is often one); the name is what markup and the
// English-only rules compare against.
func languageName(given string) (string, error) {
	low := strings.ToLower(given)
	if code, _, tagged := strings.Cut(strings.ReplaceAll(low, "_", "-"), "-"); tagged && len(code) == 2 {
		low = code
	}
	for _, l := range languages {
		if low == l.name {
			return l.name, nil
		}
		for _, c := range l.codes {
			if low == c {
				return l.name, nil
			}
		}
	}
	known := make([]string, len(languages))
	for i, l := range languages {
		known[i] = l.name + " (" + strings.Join(l.codes, ", ") + ")"
	}
	return "", fmt.Errorf("language = %q: no stemmer for it; want one of %s", given, strings.Join(known, ", "))
}

// headings are the words a language's site is given for the blocks and
// the breadcrumb it has not named itself (Resolve): a French trial's pages
// said "Related Reading" and "Breadcrumb" under French headings it had
// to set one by one.
type headings struct {
	relatedArticles, relatedReading, taxonomy, sector, breadcrumb string
}

// headingsOf are, by language (policy.Languages but English, whose are the
// defaults), its headings.
var headingsOf = map[string]headings{
	"danish":     {"Relaterede artikler", "Læs også", "Guider om emnet", "Guider i denne sektion", "Brødkrummesti"},
	"dutch":      {"Gerelateerde artikelen", "Lees ook", "Gidsen over dit onderwerp", "Gidsen in deze rubriek", "Kruimelpad"},
	"finnish":    {"Aiheeseen liittyvät artikkelit", "Lue myös", "Oppaat aiheesta", "Oppaat tässä osiossa", "Murupolku"},
	"french":     {"Articles connexes", "À lire aussi", "Guides sur ce thème", "Guides de cette rubrique", "Fil d'Ariane"},
	"german":     {"Verwandte Artikel", "Weiterlesen", "Ratgeber zum Thema", "Ratgeber in dieser Rubrik", "Brotkrümelnavigation"},
	"hungarian":  {"Kapcsolódó cikkek", "Ajánlott olvasmányok", "Útmutatók a témában", "Útmutatók ebben a rovatban", "Morzsamenü"},
	"italian":    {"Articoli correlati", "Leggi anche", "Guide sull'argomento", "Guide in questa sezione", "Percorso di navigazione"},
	"norwegian":  {"Relaterte artikler", "Les også", "Guider om emnet", "Guider i denne delen", "Brødsmulesti"},
	"portuguese": {"Artigos relacionados", "Leia também", "Guias sobre o tema", "Guias nesta seção", "Trilha de navegação"},
	"russian":    {"Статьи по теме", "Читайте также", "Руководства по теме", "Руководства в этом разделе", "Навигационная цепочка"},
	"spanish":    {"Artículos relacionados", "Lecturas relacionadas", "Guías sobre este tema", "Guías de esta sección", "Ruta de navegación"},
	"swedish":    {"Relaterade artiklar", "Läs också", "Guider om ämnet", "Guider i det här avsnittet", "Brödsmulor"},
}

// compounding are the languages (policy.Languages) that write a compound
// noun as one word: "Gartenschlauch" names what "garden hose" does in
// two, so their sites take one-word anchors by default
// (anchor_min_words 1). Under the default of 2 a German site's one-word
// keywords and titles were never an anchor.
var compounding = map[string]bool{
	"danish": true, "dutch": true, "finnish": true, "german": true, "hungarian": true, "norwegian": true, "swedish": true,
}

// withLanguageDefaults gives the policy its language's headings, and a
// compounding language's anchor_min_words, for those the overrides do
// not set. Only a language with defaults reads which keys the overrides
// hold: Resolve runs for every event, and most sites are English.
func (p *Policy) withLanguageDefaults(overrides json.RawMessage) error {
	h, hasHeadings := headingsOf[p.Language]
	if !hasHeadings && !compounding[p.Language] {
		return nil
	}
	var keys map[string]json.RawMessage
	if len(bytes.TrimSpace(overrides)) > 0 {
		if err := json.Unmarshal(overrides, &keys); err != nil {
			return err
		}
	}
	given := make(map[string]bool, len(keys))
	for k := range keys {
		given[strings.ToLower(k)] = true // the struct's fields match keys in any case
	}
	if compounding[p.Language] && !given["anchor_min_words"] {
		p.AnchorMinWords = 1
	}
	if !hasHeadings {
		return nil
	}
	for _, f := range []struct {
		key   string
		field *string
		text  string
	}{
		{"related_articles_heading", &p.RelatedArticlesHeading, h.relatedArticles},
		{"related_reading_heading", &p.RelatedReadingHeading, h.relatedReading},
		{"taxonomy_heading", &p.TaxonomyHeading, h.taxonomy},
		{"sector_heading", &p.SectorHeading, h.sector},
		{"breadcrumb_aria_label", &p.BreadcrumbAriaLabel, h.breadcrumb},
	} {
		if !given[f.key] {
			*f.field = f.text
		}
	}
	return nil
}

// English reports whether the site's text is English, the only language
// the grammar rules written for English apply to: the check that an
// occurrence is not the front of a longer noun phrase (anchors.GoesOn),
// and the English shortening of a breadcrumb step's title. A policy made
// without Default or Resolve has no language and is read as English, the
// default.
func (p Policy) English() bool { return p.Language == "" || p.Language == English }
