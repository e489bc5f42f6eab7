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
	{"french", []string{"fr"}},
	{"hungarian", []string{"hu"}},
	{"norwegian", []string{"no", "nb"}},
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
// name or by ISO 639-1 code, in any case; the name is what markup and the
// English-only rules compare against.
func languageName(given string) (string, error) {
	low := strings.ToLower(given)
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
	"french":    {"Articles connexes", "À lire aussi", "Guides sur ce thème", "Guides de cette rubrique", "Fil d'Ariane"},
	"hungarian": {"Kapcsolódó cikkek", "Ajánlott olvasmányok", "Útmutatók a témában", "Útmutatók ebben a rovatban", "Morzsamenü"},
	"norwegian": {"Relaterte artikler", "Les også", "Guider om emnet", "Guider i denne delen", "Brødsmulesti"},
	"russian":   {"Статьи по теме", "Читайте также", "Руководства по теме", "Руководства в этом разделе", "Навигационная цепочка"},
	"spanish":   {"Artículos relacionados", "Lecturas relacionadas", "Guías sobre este tema", "Guías de esta sección", "Ruta de navegación"},
	"swedish":   {"Relaterade artiklar", "Läs också", "Guider om ämnet", "Guider i det här avsnittet", "Brödsmulor"},
}

// withLanguageHeadings gives the policy its language's headings for those
// the overrides do not set. Only a language with headings reads which
// keys the overrides hold: Resolve runs for every event, and most sites
// are English.
func (p *Policy) withLanguageHeadings(overrides json.RawMessage) error {
	h, ok := headingsOf[p.Language]
	if !ok {
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
