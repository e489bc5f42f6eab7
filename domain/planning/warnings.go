package planning

import (
	"fmt"
	"strings"

	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// UnlinkableKeywords says, for each cluster of the structure, when none of
// its keywords (primary and variations) has the words an anchor needs
// (policy anchor_min_words, anchor_max_words): its hub is then linked only
// where the text holds its title or a natural phrase naming it, so
// supporting articles may find no uplink and the home page no link to it.
// It also says when the primary keyword alone is out of range: the anchor
// mix prefers it, and it never qualifies. A one-word brand ("AeroPress")
// is the usual case. The site projector logs these.
func UnlinkableKeywords(st site.Structure, pol policy.Policy) []string {
	var out []string
	for _, c := range st.Clusters {
		names := append([]string{c.PrimaryKeyword}, c.Keywords...)
		usable := false
		for _, k := range names {
			if n := len(strings.Fields(k)); n >= pol.AnchorMinWords && (pol.AnchorMaxWords == 0 || n <= pol.AnchorMaxWords) {
				usable = true
				break
			}
		}
		switch n := len(strings.Fields(c.PrimaryKeyword)); {
		case c.PrimaryKeyword == "":
		case !usable:
			out = append(out, fmt.Sprintf("cluster %s: no keyword of %d–%d words (primary %q), so no keyword anchor can link its hub; "+
				"add a keyword variation such as %q, or set anchor_min_words",
				c.ID, pol.AnchorMinWords, pol.AnchorMaxWords, c.PrimaryKeyword, c.PrimaryKeyword+" guide"))
		case n < pol.AnchorMinWords || pol.AnchorMaxWords > 0 && n > pol.AnchorMaxWords:
			out = append(out, fmt.Sprintf("cluster %s: its primary keyword %q has %d word(s), outside %d–%d, so it is never an anchor; "+
				"only its variations and its hub's title can link the hub", c.ID, c.PrimaryKeyword, n, pol.AnchorMinWords, pol.AnchorMaxWords))
		}
	}
	return out
}
