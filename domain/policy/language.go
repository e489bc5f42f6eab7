package policy

import (
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

// English reports whether the site's text is English, the only language
// the grammar rules written for English apply to: the check that an
// occurrence is not the front of a longer noun phrase (anchors.GoesOn),
// and the English shortening of a breadcrumb step's title. A policy made
// without Default or Resolve has no language and is read as English, the
// default.
func (p Policy) English() bool { return p.Language == "" || p.Language == English }
