package policy

import (
	"encoding/json"
	"testing"
)

// A French trial's pages said "Related Reading" and "Breadcrumb" under
// French headings it had set one by one: a site's language gives the
// headings it does not set itself.
func TestASitesLanguageGivesTheHeadingsItDoesNotSet(t *testing.T) {
	fr, err := Resolve(SAG, json.RawMessage(`{"language": "fr"}`))
	if err != nil {
		t.Fatal(err)
	}
	if fr.RelatedReadingHeading != "À lire aussi" || fr.RelatedArticlesHeading != "Articles connexes" || fr.BreadcrumbAriaLabel != "Fil d'Ariane" {
		t.Errorf("French site's headings %q, %q, %q", fr.RelatedReadingHeading, fr.RelatedArticlesHeading, fr.BreadcrumbAriaLabel)
	}
	es, err := Resolve(SAG, json.RawMessage(`{"language": "es", "Sector_Heading": "Secciones", "related_reading_heading": "-"}`))
	if err != nil {
		t.Fatal(err)
	}
	if es.SectorHeading != "Secciones" || es.RelatedReadingHeading != "-" || es.TaxonomyHeading != "Guías sobre este tema" {
		t.Errorf("Spanish site setting two headings: sector %q, related reading %q, taxonomy %q", es.SectorHeading, es.RelatedReadingHeading, es.TaxonomyHeading)
	}
	en, err := Resolve(SAG, nil)
	if err != nil {
		t.Fatal(err)
	}
	if en.RelatedReadingHeading != "Related Reading" || en.SectorHeading != "Guides in this section" {
		t.Errorf("English site's headings %q, %q", en.RelatedReadingHeading, en.SectorHeading)
	}
	for _, lang := range Languages() {
		if _, ok := headingsOf[lang]; !ok && lang != English {
			t.Errorf("language %s has no headings", lang)
		}
	}
}
