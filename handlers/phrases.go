package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/llm"
	"github.com/interlinker/interlinker/store"
)

// Natural anchors from the model (the silo seed's D3). When a page is
// planned, each in-body link whose candidates the page's text holds fewer
// than minCandidatesInText of is given the model's natural phrases for its
// target, those the page's text holds, as natural candidates that the rules
// then place like any other. The phrases are asked once per (page version,
// target), kept in llm_answers, and so kept with every plan of that version:
// a re-plan or a settle pass gets the same candidates without a call. As
// with the fallback, no model is called inside a transaction: the stage
// rolls back, asks, keeps the answer and plans again; a settle pass asks
// after its transaction.

// minCandidatesInText is how many of a link's candidates the page's text
// must hold for the link to need no phrases of the model.
const minCandidatesInText = 2

// phrasing is what planning a page knows of the model's phrases in one
// delivery.
type phrasing struct {
	ask         bool          // the stage may ask (a settle pass may not)
	unavailable bool          // the model could not answer: plan without phrases
	calls       int           // phrases calls made this delivery
	pending     *phrasesAsk   // what the stage must ask before planning again
	missing     []*phrasesAsk // what a settle pass lacked, to ask after it
}

// phrasesAsk is a phrases call a plan needs: the request, and the key each
// target's phrases are kept under.
type phrasesAsk struct {
	siteID, pageID string
	req            llm.PhrasesRequest
	keys           map[string][]byte // target URL → key
}

// naturalPhraseKey is the hash a target's phrases for one version of a
// page are kept under.
func naturalPhraseKey(model, siteID, pageID string, version int64, targetURL string) []byte {
	return answerKey(llm.PhrasesPromptVersion, "natural", model, siteID, pageID, strconv.FormatInt(version, 10), targetURL)
}

// addNaturalPhrases gives the links that need them the model's kept
// phrases, and returns the call that would give the rest theirs.
func (p *Pipeline) addNaturalPhrases(siteID, pageID, title, html, language string, version int64, links []link.Link, targets plannedTargets,
	lookup func([]byte) (store.Answer, bool, error)) (*phrasesAsk, error) {
	if p.LLM == nil || html == "" {
		return nil, nil
	}
	text := pageText(html)
	folded := " " + anchors.Normalize(text) + " "
	holds := func(phrase string) bool {
		f := anchors.Normalize(phrase)
		return f != "" && strings.Contains(folded, " "+f+" ")
	}
	model := p.LLM.Model()
	ask := &phrasesAsk{siteID: siteID, pageID: pageID, req: llm.PhrasesRequest{PageTitle: title, Text: text}, keys: map[string][]byte{}}
	for i := range links {
		l := &links[i]
		if l.Zone != link.ZoneInBody || (l.Status != link.StatusPlanned && l.Status != link.StatusReview) || l.TargetURL == "" {
			continue
		}
		held := 0
		for _, c := range l.Candidates {
			if holds(c.Text) {
				held++
			}
		}
		if held >= minCandidatesInText {
			continue
		}
		key := naturalPhraseKey(model, siteID, pageID, version, l.TargetURL)
		kept, found, err := lookup(key)
		if err != nil {
			return nil, err
		}
		if !found {
			if _, asked := ask.keys[l.TargetURL]; !asked && len(ask.req.Targets) < llm.MaxPhrasesTargets {
				ask.keys[l.TargetURL] = key
				ask.req.Targets = append(ask.req.Targets, llm.PhraseTarget{TargetURL: l.TargetURL, Title: targets.titleOf(*l), Keyword: keywordOf(*l)})
			}
			continue
		}
		if kept.Refusal != "" {
			continue
		}
		var phrases []string
		if err := json.Unmarshal([]byte(kept.Answer), &phrases); err != nil {
			return nil, fmt.Errorf("kept natural phrases of page %s: %w", pageID, err)
		}
		added := 0
		for _, ph := range phrases {
			words := len(strings.Fields(ph))
			if words < minSuggestedWords || words > maxSuggestedWords || !holds(ph) || hasCandidate(*l, ph) {
				continue
			}
			// The model's phrase is held to what a natural phrase of the
			// text is: a docs trial's model gave "of your database
			// backups", and "the physical streaming replication" for a
			// sibling where "streaming replication" is the hub's keyword.
			if anchors.FramesPhrase(ph, language) || namesAnotherTarget(ph, *l, links) {
				continue
			}
			l.Candidates = append(l.Candidates, link.Anchor{Text: ph, Type: link.AnchorNatural})
			added++
		}
		if added > 0 {
			l.Explanation += fmt.Sprintf("; %d natural phrase(s) of the model's added as candidates", added)
		}
	}
	if len(ask.req.Targets) == 0 {
		return nil, nil
	}
	return ask, nil
}

// namesAnotherTarget reports whether a phrase holds, as whole words, the
// primary keyword of another of the page's in-body links' targets that is
// no name of l's: those words name that page.
func namesAnotherTarget(phrase string, l link.Link, links []link.Link) bool {
	padded := " " + anchors.Normalize(phrase) + " "
	for _, other := range links {
		if other.TargetPageID == l.TargetPageID || other.Zone != link.ZoneInBody {
			continue
		}
		for _, c := range other.Candidates {
			if c.Type != link.AnchorPrimaryKeyword || hasCandidate(l, c.Text) {
				continue
			}
			if k := anchors.Normalize(c.Text); k != "" && strings.Contains(padded, " "+k+" ") {
				return true
			}
		}
	}
	return false
}

func keywordOf(l link.Link) string {
	for _, c := range l.Candidates {
		if c.Type == link.AnchorPrimaryKeyword {
			return c.Text
		}
	}
	return ""
}

func hasCandidate(l link.Link, text string) bool {
	f := anchors.Normalize(text)
	for _, c := range l.Candidates {
		if anchors.Normalize(c.Text) == f {
			return true
		}
	}
	return false
}

// askNaturalPhrases asks the model for an ask's phrases, outside any
// transaction, and keeps each target's under its key. It reports false
// when the model could not answer.
func (p *Pipeline) askNaturalPhrases(ctx context.Context, ask *phrasesAsk) (bool, error) {
	// The call ends before the planner's attempt does: with the model down
	// a pet-care trial's page version was never planned, each attempt
	// spent retrying its phrases until the handler's deadline failed it.
	// Out of time, the page is planned without them.
	callCtx, cancel, ok := modelCall(ctx)
	if !ok {
		return false, nil
	}
	defer cancel()
	answer, err := p.LLM.Phrases(callCtx, ask.req)
	refusal := ""
	switch {
	case errors.Is(err, llm.ErrBadAnswer):
		refusal = err.Error()
		p.Metrics.LLMRejections.WithLabelValues("bad_answer").Inc()
	case err != nil:
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		p.Logger.WarnContext(ctx, "no natural phrases: the model is unavailable", "site_id", ask.siteID, "page_id", ask.pageID, "err", err)
		return false, nil
	}
	for url, key := range ask.keys {
		kept := store.Answer{Refusal: refusal}
		if refusal == "" {
			raw, err := json.Marshal(nonNilStrings(answer.ByTarget[url]))
			if err != nil {
				return false, fmt.Errorf("keep natural phrases of page %s: %w", ask.pageID, err)
			}
			kept.Answer = string(raw)
		}
		// Tokens are counted once, on the first target's row.
		if err := p.Store.KeepAnswer(ctx, key, store.AnswerPhrases, p.LLM.Model(), llm.PhrasesPromptVersion, kept,
			answer.TokensIn, answer.TokensOut); err != nil {
			return false, err
		}
		answer.TokensIn, answer.TokensOut = 0, 0
	}
	p.Logger.InfoContext(ctx, "natural phrases asked", "site_id", ask.siteID, "page_id", ask.pageID, "targets", len(ask.keys), "refusal", refusal)
	return true, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
