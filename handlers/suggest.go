package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/llm"
	"github.com/interlinker/interlinker/store"
)

// An add recommendation whose anchor no text of its page holds gets an
// anchor the model proposes (the SAG seed's "AI-suggested anchor text"):
// after the audit's transaction, each such page's text and targets go to
// the model in one call, and the first phrase the page's text carries where
// apply would put the link becomes the suggestion, found; failing that, the
// first phrase of anchor length is suggested for a writer to work in. The
// answers are kept (llm_answers), so the next audit of an unchanged page
// pays nothing and suggests the same.

// maxAuditPhraseCalls caps the pages one audit asks the model about; the
// recommendations of the others keep the planner's anchor.
const maxAuditPhraseCalls = 50

// Anchor phrases a model proposes are taken at 2–8 words, as the anchor
// rules take natural phrases.
const (
	minSuggestedWords = 2
	maxSuggestedWords = 8
)

// anchorNeed is an add recommendation without an anchor in its page's
// text, with what asking the model about it needs.
type anchorNeed struct {
	pageID, pageTitle, html string
	target                  llm.PhraseTarget
	targetID                string
	firstParagraphs         int
	opts                    markup.Options
}

// needAnchor notes that the add recommendation of l for page has no anchor
// in the page's text.
func (r *recommender) needAnchor(page site.Page, l link.Link) {
	keyword := ""
	for _, c := range l.Candidates {
		if c.Type == link.AnchorPrimaryKeyword {
			keyword = c.Text
			break
		}
	}
	r.needs = append(r.needs, anchorNeed{pageID: page.ID, pageTitle: page.Title, html: page.HTML,
		target:   llm.PhraseTarget{TargetURL: l.TargetURL, Title: targetTitle(l), Keyword: keyword},
		targetID: l.TargetPageID, firstParagraphs: l.FirstParagraphs, opts: markupOptions(r.sc, page)})
}

// nameTargets gives each need its target's title as the target's page
// gives it, for the model to be told: a link's candidates may leave the
// title out (plannedTargets).
func (r *recommender) nameTargets(ctx context.Context) error {
	if r.p.LLM == nil || len(r.needs) == 0 {
		return nil
	}
	ids := make([]string, len(r.needs))
	for i, n := range r.needs {
		ids[i] = n.targetID
	}
	live, err := r.tx.LiveTargets(ctx, r.siteID, ids)
	if err != nil {
		return fmt.Errorf("read the titles of the targets to suggest anchors for: %w", err)
	}
	for i := range r.needs {
		if t := live[r.needs[i].targetID]; t.Title != "" {
			r.needs[i].target.Title = t.Title
		}
	}
	return nil
}

// suggestAnchors asks the model, outside any transaction, for phrases for
// the recommendations that need an anchor, and gives them its suggestions.
// A model that cannot answer leaves the rest as they are.
func (p *Pipeline) suggestAnchors(ctx context.Context, siteID string, recs []audit.Recommendation, needs []anchorNeed) error {
	if p.LLM == nil || len(needs) == 0 {
		return nil
	}
	byPage := map[string][]anchorNeed{}
	var pages []string
	for _, n := range needs {
		if byPage[n.pageID] == nil {
			pages = append(pages, n.pageID)
		}
		byPage[n.pageID] = append(byPage[n.pageID], n)
	}
	at := map[[2]string]int{} // (page, target) → the add recommendation
	for i, r := range recs {
		if r.Action == audit.ActionAdd && !r.Found {
			at[[2]string{r.PageID, r.TargetID}] = i
		}
	}
	for _, pageID := range pages[:min(len(pages), maxAuditPhraseCalls)] {
		pageNeeds := byPage[pageID]
		phrases, unavailable, err := p.askPhrases(ctx, siteID, pageNeeds)
		if err != nil {
			return err
		}
		if unavailable {
			return nil
		}
		for _, n := range pageNeeds {
			if i, ok := at[[2]string{n.pageID, n.targetID}]; ok {
				suggest(&recs[i], n, phrases[n.target.TargetURL])
			}
		}
	}
	return nil
}

// suggest gives rec the first of the model's phrases that the page's text
// carries where apply would place the link, else the first of anchor
// length, for a writer to work in.
func suggest(rec *audit.Recommendation, n anchorNeed, phrases []string) {
	var fit []string
	for _, ph := range phrases {
		if words := len(strings.Fields(ph)); words >= minSuggestedWords && words <= maxSuggestedWords {
			fit = append(fit, ph)
		}
	}
	for _, ph := range fit {
		req := markup.LinkRequest{ID: "suggested", Href: n.target.TargetURL, Anchors: []string{ph},
			Position: markup.Position{FirstParagraphs: n.firstParagraphs}}
		_, placed, err := markup.Place([]byte(n.html), []markup.LinkRequest{req}, n.opts)
		if err == nil && len(placed) == 1 && placed[0].Placed {
			rec.Anchor, rec.Found, rec.SuggestedBy = placed[0].AnchorText, true, audit.SuggestedByLLM
			rec.Anchors = append([]string{ph}, rec.Anchors...)
			rec.Reason += fmt.Sprintf("; the model suggests %q, found in paragraph %d", placed[0].AnchorText, placed[0].ContentParagraph)
			return
		}
	}
	if len(fit) > 0 {
		rec.Anchor, rec.SuggestedBy = fit[0], audit.SuggestedByLLM
		rec.Reason += fmt.Sprintf("; the model suggests %q, not in the text: work it in", fit[0])
	}
}

// askPhrases reads the model's phrases for a page's targets from the kept
// answers, or asks the model and keeps its answer. unavailable is true
// when the model could not answer.
func (p *Pipeline) askPhrases(ctx context.Context, siteID string, needs []anchorNeed) (map[string][]string, bool, error) {
	req := llm.PhrasesRequest{PageTitle: needs[0].pageTitle, Text: pageText(needs[0].html)}
	seen := map[string]bool{}
	for _, n := range needs {
		if !seen[n.target.TargetURL] && len(req.Targets) < llm.MaxPhrasesTargets {
			seen[n.target.TargetURL] = true
			req.Targets = append(req.Targets, n.target)
		}
	}
	key := phrasesKey(p.LLM.Model(), req)
	kept, found, err := p.Store.KeptAnswer(ctx, key)
	if err != nil {
		return nil, false, err
	}
	if !found {
		answer, err := p.LLM.Phrases(ctx, req)
		switch {
		case errors.Is(err, llm.ErrBadAnswer):
			kept.Refusal = err.Error()
		case err != nil:
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			p.Logger.WarnContext(ctx, "no anchor suggestions: the model is unavailable", "site_id", siteID, "page_id", needs[0].pageID, "err", err)
			return nil, true, nil
		default:
			raw, err := json.Marshal(answer.ByTarget)
			if err != nil {
				return nil, false, fmt.Errorf("keep anchor phrases of page %s: %w", needs[0].pageID, err)
			}
			kept.Answer = string(raw)
		}
		if err := p.Store.KeepAnswer(ctx, key, store.AnswerPhrases, p.LLM.Model(), llm.PhrasesPromptVersion, kept,
			answer.TokensIn, answer.TokensOut); err != nil {
			return nil, false, err
		}
	}
	if kept.Refusal != "" {
		p.Metrics.LLMRejections.WithLabelValues("bad_answer").Inc()
		return nil, false, nil
	}
	var byTarget map[string][]string
	if err := json.Unmarshal([]byte(kept.Answer), &byTarget); err != nil {
		return nil, false, fmt.Errorf("kept anchor phrases of page %s: %w", needs[0].pageID, err)
	}
	return byTarget, false, nil
}

// pageText is the page's paragraphs' visible text, one a line, cut to what
// a phrases request may carry.
func pageText(html string) string {
	text := strings.Join(markup.ParagraphTexts([]byte(html)), "\n")
	if len(text) <= llm.MaxPhrasesTextBytes {
		return text
	}
	cut := llm.MaxPhrasesTextBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut]
}

// phrasesKey is the hash a phrases answer is kept under.
func phrasesKey(model string, req llm.PhrasesRequest) []byte {
	fields := []string{llm.PhrasesPromptVersion, model, req.PageTitle, req.Text}
	for _, t := range req.Targets {
		fields = append(fields, t.TargetURL, t.Title, t.Keyword)
	}
	return answerKey(fields...)
}
