package site

import "strings"

// titleSeparators part a CMS's document title from the site name it adds
// ("Brewing Equipment – Hop & Mash", "Hop & Mash | Brewing Equipment"):
// WordPress writes an en dash, others a hyphen, a bar, a middle dot, a
// bullet, a guillemet or a colon, each between spaces.
var titleSeparators = []string{" – ", " — ", " - ", " | ", " · ", " • ", " » ", " :: ", " : "}

// TitleWithoutSiteName is a page's title without the site's name that a
// CMS writes before or after it in the document's <title>, the form a
// page imported from its live HTML has: the site's name is no name of
// the page, and an anchor or a crumb made from it would read "Brewing
// Equipment – Hop & Mash". The name compares in any case and spacing; a
// title that is the site's name alone, or that does not start or end
// with it past a separator, is kept as it is.
func TitleWithoutSiteName(title, siteName string) string {
	name := strings.Join(strings.Fields(siteName), " ")
	if name == "" {
		return title
	}
	for _, sep := range titleSeparators {
		if i := strings.LastIndex(title, sep); i > 0 && sameName(title[i+len(sep):], name) {
			if rest := strings.TrimSpace(title[:i]); rest != "" {
				return rest
			}
		}
		if i := strings.Index(title, sep); i > 0 && sameName(title[:i], name) {
			if rest := strings.TrimSpace(title[i+len(sep):]); rest != "" {
				return rest
			}
		}
	}
	return title
}

func sameName(s, name string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(s), " "), name)
}
