package planning

import (
	"fmt"
	"strings"

	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// NewInput gathers what planning a page needs from the page itself and the
// targets the index found: its cluster's hub, its paragraphs' text, its
// word count and the internal links its own HTML already has in the
// content (they use up part of its density range).
func NewInput(st site.Structure, pol policy.Policy, page site.Page, targets []Target) (Input, error) {
	src := []byte(page.HTML)
	found, err := markup.Links(src, strings.TrimRight(st.Site.BaseURL, "/")+page.URL, st.Site.Host())
	if err != nil {
		return Input{}, fmt.Errorf("read links of page %s: %w", page.ID, err)
	}
	existing := 0
	var authored map[string]bool
	for _, l := range found {
		if l.Internal && l.Position == "content" && !l.Inserted && l.InBlock == "" && !markup.IsFileURL(l.URL) {
			existing++
			if l.URL != "" {
				if authored == nil {
					authored = map[string]bool{}
				}
				authored[markup.PagePath(l.URL)] = true
			}
		}
	}
	return Input{
		Structure: st, Policy: pol, Page: page, Hub: clusterHub(page, targets), Targets: targets,
		Texts: markup.ParagraphTexts(src), WordCount: markup.WordCount(src), ExistingLinks: existing,
		AuthorLinks: authored,
	}, nil
}

// clusterHub is the hub a page links up to: itself when it is the hub.
func clusterHub(page site.Page, targets []Target) *site.Page {
	if page.ClusterID == "" {
		return nil
	}
	if page.Kind == site.KindHub {
		return &page
	}
	for _, t := range targets {
		if t.Kind == site.KindHub && t.ClusterID == page.ClusterID {
			hub := t.Page
			return &hub
		}
	}
	return nil
}
