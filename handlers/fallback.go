package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/llm"
	"github.com/interlinker/interlinker/store"
)

// LLM is the model as the pipeline uses it (llm.Client): it rewrites one
// paragraph to carry one link (the fallback), and proposes anchor phrases
// for a page's targets (audit suggestions).
type LLM interface {
	Model() string
	Rewrite(ctx context.Context, req llm.RewriteRequest) (llm.Rewrite, error)
	Phrases(ctx context.Context, req llm.PhrasesRequest) (llm.Phrases, error)
}

// The LLM fallback places, after the rules, the in-body links whose
// anchors no text of the page carries: a model rewrites one paragraph to
// carry the link, markup.ReplaceParagraph checks the rewrite and rebuilds
// it, and the rest of the page stays byte for byte as it was.
//
// A model is never called inside a transaction. Linking a page is
// deterministic given its plan and the answers kept in llm_answers, so
// the inject stage links the page in its transaction with the answers it
// has; when one is missing it rolls back, asks the model outside any
// transaction, keeps the answer, and links the page again. A redelivered
// event, a re-plan and a settle pass read the same kept answers and build
// the same HTML without paying twice.

// Reasons an in-body link the rules could not place stays planned.
const (
	reasonLLMOff         = "LLM fallback not configured"
	reasonLLMNoParagraph = "LLM fallback: no paragraph it may rewrite (one without links, and without elements such as <code> a rewrite cannot keep)"
	reasonLLMCallCap     = "LLM fallback: the page's calls are used up (llm_max_calls_per_page)"
	reasonLLMNotAsked    = "LLM fallback: waiting for the model's answer"
	reasonLLMListed      = "LLM fallback not asked: the page's %s lists this target"
)

// listingSection names the generated section a related-section link is
// in, for reasonLLMListed: a hub lists its articles in Related Articles,
// an article its further reading in Related Reading.
func listingSection(t link.Type) string {
	switch t {
	case link.TypeRelated:
		return "Related Reading"
	case link.TypeVerticalDown:
		return "Related Articles"
	default:
		return "generated list"
	}
}

// defaultLLMCallsPerPage caps the model calls one delivery of a page makes.
const defaultLLMCallsPerPage = 4

// rewrites is what linking a page knows of the fallback's answers.
type rewrites struct {
	model string // "" when the LLM is off
	// lookup reads a kept answer.
	lookup func(key []byte) (store.Answer, bool, error)
	// ask is true in the inject stage, which may ask the model for an
	// answer it lacks (placeByFallback then returns it); a settle pass
	// uses kept answers only.
	ask bool
	// unavailable is why the model could not answer this delivery: links
	// that need it stay planned, and the page is planned again later.
	unavailable string
	callsLeft   int
	// missing are the answers a pass that may not ask lacked: a settle
	// pass asks for them after its transaction (askMissing).
	missing []*fallbackAsk
}

// fallbackAsk is an answer the fallback needs and has not kept: what to
// ask, and what the answer will be checked against.
type fallbackAsk struct {
	pageID string
	key    []byte
	req    llm.RewriteRequest
	src    []byte
	para   markup.Paragraph
	linkID string
	opts   markup.Options
}

// rewriteKey is the hash a rewrite is kept under.
func rewriteKey(model string, req llm.RewriteRequest) []byte {
	return answerKey(llm.PromptVersion, model, req.ParagraphHTML, req.Anchor, req.TargetURL, req.PageTitle, req.TargetTitle)
}

// answerKey is the hash a model's answer is kept under: everything the
// answer depends on, each field length-prefixed so no two lists of fields
// hash alike.
func answerKey(fields ...string) []byte {
	h := sha256.New()
	for _, s := range fields {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return h.Sum(nil)
}

// placeByFallback places the in-body links the rules left planned for the
// fallback, in plan order, each in a paragraph of its own. It returns the
// first answer it needs and lacks when rw may ask; html is then not final.
//
// A target a section the page generates lists (Related Reading, a hub's
// Related Articles) is not written into the body: the planner lists a
// sibling there because the text has no room for it, and a rewrite would
// link it twice on one page.
func placeByFallback(html []byte, st planStage, links []link.Link, usage map[string]map[string]int, capOf planning.AnchorCap, rw *rewrites) ([]byte, *fallbackAsk, error) {
	opts := markupOptions(st.site, st.page.Page)
	listed := map[string]string{}
	for _, l := range links {
		if l.Zone == link.ZoneRelatedSection {
			listed[l.TargetPageID] = listingSection(l.Type)
		}
	}
	for i := range links {
		l := &links[i]
		if l.Zone != link.ZoneInBody || l.Status != link.StatusPlanned || !awaitingFallback(*l) {
			continue
		}
		if section, ok := listed[l.TargetPageID]; ok {
			l.Reason += "; " + fmt.Sprintf(reasonLLMListed, section)
			continue
		}
		anchor, ok := fallbackAnchor(*l, usage, capOf)
		if !ok {
			continue
		}
		if rw == nil || rw.model == "" {
			l.Reason += "; " + reasonLLMOff
			continue
		}
		// The uplink comes first in the content (first_link_rule): other
		// links go in paragraphs after it, and wait for it while it is
		// not in the page.
		after := 0
		if !l.Mandatory && st.hub != nil && st.hub.ID != st.page.ID {
			if after = endOfUplink(html, links, opts.SiteHost); after < 0 {
				l.Reason += "; LLM fallback: waits for the page's uplink"
				continue
			}
		}
		para, ok := markup.FallbackParagraph(html, anchor, l.FirstParagraphs, after)
		if !ok {
			l.Reason += "; " + reasonLLMNoParagraph
			continue
		}
		req := llm.RewriteRequest{ParagraphHTML: string(html[para.Start:para.End]), Anchor: anchor, TargetURL: l.TargetURL,
			PageTitle: st.page.Title, TargetTitle: st.targetTitle(*l)}
		key := rewriteKey(rw.model, req)
		kept, found, err := rw.lookup(key)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case !found && rw.unavailable != "":
			l.Reason += "; LLM fallback unavailable: " + rw.unavailable
			continue
		case !found && rw.ask && rw.callsLeft <= 0:
			l.Reason += "; " + reasonLLMCallCap
			continue
		case !found && rw.ask:
			return html, &fallbackAsk{pageID: st.page.ID, key: key, req: req, src: html, para: para, linkID: l.ID, opts: opts}, nil
		case !found:
			l.Reason += "; " + reasonLLMNotAsked
			rw.missing = append(rw.missing, &fallbackAsk{pageID: st.page.ID, key: key, req: req, src: html, para: para, linkID: l.ID, opts: opts})
			continue
		case kept.Refusal != "":
			l.Reason += "; LLM rewrite refused: " + kept.Refusal
			continue
		}
		out, text, err := markup.ReplaceParagraph(html, para, kept.Answer, anchor, l.ID, l.TargetURL, opts)
		if err != nil {
			l.Reason += "; LLM rewrite refused: " + err.Error()
			continue
		}
		html = out
		l.Status, l.Reason, l.Anchor, l.Placement = link.StatusInserted, "", text, link.PlacementLLMFallback
		l.Paragraph = contentParagraphOf(out, l.ID, opts.SiteHost)
		for _, c := range l.Candidates {
			if c.Text == anchor {
				l.AnchorType = c.Type
			}
		}
	}
	return html, nil, nil
}

// endOfUplink is the byte offset just past the page's uplink, the link
// the others must follow: ours once placed, or the author's own link to
// the hub in the paragraphs the uplink goes in, which stands in for it. 0
// when the page has no uplink to follow (a product of a cluster has
// none), -1 while it has one not yet in the page. A docs trial's links
// waited for ever on an author's uplink and on a product's.
func endOfUplink(html []byte, links []link.Link, host string) int {
	var up *link.Link
	for i := range links {
		if links[i].Mandatory && links[i].Type == link.TypeVerticalUp && links[i].Zone == link.ZoneInBody {
			up = &links[i]
		}
	}
	if up == nil {
		return 0
	}
	found, err := markup.Links(html, "", host)
	if err != nil {
		return -1
	}
	for _, f := range found {
		switch {
		case up.Status == link.StatusInserted && f.MarkerID == up.ID:
			return f.End
		case f.MarkerID == "" && f.InBlock == "" && f.ContentParagraph > 0 && f.ContentParagraph <= up.FirstParagraphs &&
			markup.PagePath(f.URL) == markup.PagePath(up.TargetURL):
			return f.End
		}
	}
	return -1
}

// askMissing asks the model, after a settle pass, for the answers it
// lacked, up to the per-page cap of calls for each page; the pass left
// their pages marked, so the site settles again with them. It returns
// errModelUnavailable when the model could not answer.
//
// The cap was once the whole site's: a pass asked 4 calls, and every pass
// after it planned the whole site again for the next 4 (the example site
// with the fallback on settled five and six times in two runs, 3.0 to 3.7
// s a pass under the race detector, against three since; a site missing a
// hundred answers would have settled 25 times).
func (p *Pipeline) askMissing(ctx context.Context, siteID string, missing passAsks) error {
	perPage := p.llmCallsPerPage()
	for _, ask := range upToPerPage(missing.phrases, perPage, func(a *phrasesAsk) string { return a.pageID }) {
		answered, err := p.askNaturalPhrases(ctx, ask)
		if err != nil {
			return err
		}
		if !answered {
			return fmt.Errorf("%w: natural phrases of page %s", errModelUnavailable, ask.pageID)
		}
	}
	for _, ask := range upToPerPage(missing.rewrites, perPage, func(a *fallbackAsk) string { return a.pageID }) {
		unavailable, err := p.askModel(ctx, siteID, ask.pageID, ask)
		if err != nil {
			return err
		}
		if unavailable != "" {
			return fmt.Errorf("%w: %s", errModelUnavailable, unavailable)
		}
	}
	return nil
}

// upToPerPage is asks, in their order, with at most n of any one page.
func upToPerPage[A any](asks []A, n int, pageOf func(A) string) []A {
	taken := map[string]int{}
	var out []A
	for _, a := range asks {
		if page := pageOf(a); taken[page] < n {
			taken[page]++
			out = append(out, a)
		}
	}
	return out
}

// errModelUnavailable is a settle pass that could not get the model's
// answers it lacked.
var errModelUnavailable = errors.New("the model is unavailable")

// awaitingFallback reports a link the rules left for the fallback (and not
// one the anchor cap stopped).
func awaitingFallback(l link.Link) bool {
	return strings.HasSuffix(l.Reason, awaitsFallback)
}

// fallbackAnchor is the anchor the model is asked to use: the link's first
// candidate under the anchor cap.
func fallbackAnchor(l link.Link, usage map[string]map[string]int, capOf planning.AnchorCap) (string, bool) {
	if under, _ := underCap(l, usage, capOf, nil); len(under) > 0 {
		return under[0], true
	}
	return "", false
}

// targetTitle is the target's title as its page gives it, which the
// README says the model is told: a trial's model was told "monthly
// budget" of the hub "Budgeting: Build a Monthly Budget That Lasts", the
// link's first candidate, when the exact-anchor cap or the anchor length
// had left out its title's. A target the stage did not read (the page
// is gone, say) is given its link's title candidate.
func (st planStage) targetTitle(l link.Link) string {
	if t, ok := st.targets[l.TargetPageID]; ok && t.Title != "" {
		return t.Title
	}
	return targetTitle(l)
}

// targetTitle is the title a link tells of its target: its page-title
// candidate, else its first.
func targetTitle(l link.Link) string {
	for _, c := range l.Candidates {
		if c.Type == link.AnchorPageTitle {
			return c.Text
		}
	}
	if len(l.Candidates) > 0 {
		return l.Candidates[0].Text
	}
	return ""
}

// contentParagraphOf is the content paragraph the link with id sits in,
// as the rules count them.
func contentParagraphOf(html []byte, id, host string) int {
	found, err := markup.Links(html, "", host)
	if err != nil {
		return 0
	}
	for _, l := range found {
		if l.MarkerID == id {
			return l.ContentParagraph
		}
	}
	return 0
}

// askModel asks the model for an answer the fallback lacks and keeps it,
// checked, outside any transaction. It returns why the model could not
// answer, "" when it did (even with an answer that is refused).
//
// Asks for the same answer at once (the inject stage waiting out a 429
// while a settle pass finds the answer missing) make one call: the others
// wait for it and share its outcome.
func (p *Pipeline) askModel(ctx context.Context, siteID, pageID string, ask *fallbackAsk) (string, error) {
	v, err, _ := p.asking.Do(string(ask.key), func() (any, error) {
		return p.askModelOnce(ctx, siteID, pageID, ask)
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

func (p *Pipeline) askModelOnce(ctx context.Context, siteID, pageID string, ask *fallbackAsk) (string, error) {
	// A pass whose snapshot predates an answer kept since finds it here.
	if _, found, err := p.Store.KeptAnswer(ctx, ask.key); err != nil || found {
		return "", err
	}
	start := time.Now()
	// The call ends before the handler's attempt does, so a slow model
	// leaves the links planned (and the page planned again later) instead
	// of failing the event until it is dead-lettered.
	callCtx, cancel, ok := modelCall(ctx)
	if !ok {
		return "no time left in the handler's attempt for a model call (raise --handler-timeout)", nil
	}
	defer cancel()
	answer, err := p.LLM.Rewrite(callCtx, ask.req)
	var kept store.Answer
	switch {
	case errors.Is(err, llm.ErrBadAnswer):
		kept.Refusal = err.Error()
		p.Metrics.LLMRejections.WithLabelValues("bad_answer").Inc()
	case err != nil:
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		p.Logger.WarnContext(ctx, "LLM fallback unavailable", "site_id", siteID, "page_id", pageID, "link_id", ask.linkID, "err", err)
		return err.Error(), nil
	default:
		kept.Answer = answer.ParagraphHTML
		if _, _, err := markup.ReplaceParagraph(ask.src, ask.para, answer.ParagraphHTML, ask.req.Anchor, ask.linkID, ask.req.TargetURL, ask.opts); err != nil {
			kept.Refusal = err.Error()
			p.Metrics.LLMRejections.WithLabelValues(refusalReason(err)).Inc()
		}
	}
	p.Logger.InfoContext(ctx, "LLM fallback answered", "site_id", siteID, "page_id", pageID, "link_id", ask.linkID,
		"accepted", kept.Refusal == "", "refusal", kept.Refusal, "seconds", time.Since(start).Seconds())
	return "", p.Store.KeepAnswer(ctx, ask.key, store.AnswerRewrite, p.LLM.Model(), llm.PromptVersion, kept, answer.TokensIn, answer.TokensOut)
}

// modelCall is the context of a model call made in a handler's attempt
// (ctx): it ends llmCallMargin before the attempt does, so the handler
// goes on without the answer instead of failing its event, and in an
// attempt lengthened after others ran out of time (attemptLimits),
// llmCallMargin before the first attempt's limit would have come; ok is
// false when less than minLLMCall would be left for the call.
func modelCall(ctx context.Context) (context.Context, context.CancelFunc, bool) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}, true
	}
	if first, ok := ctx.Value(modelDeadlineKey{}).(time.Time); ok && first.Before(deadline) {
		deadline = first
	}
	left := time.Until(deadline) - llmCallMargin
	if left < minLLMCall {
		return ctx, func() {}, false
	}
	callCtx, cancel := context.WithTimeout(ctx, left)
	return callCtx, cancel, true
}

// A model call leaves llmCallMargin of the handler's attempt for the
// transaction that follows it, and is not started with less than
// minLLMCall left.
const (
	llmCallMargin = time.Second
	minLLMCall    = time.Second
)

// refusalReason is the metric label of a refused rewrite.
func refusalReason(err error) string {
	var r *markup.RewriteRefusal
	if errors.As(err, &r) {
		return r.Reason
	}
	return "other"
}

// errNeedsAnswer rolls back a stage that needs an answer of the model.
var errNeedsAnswer = errors.New("the LLM fallback needs an answer it has not kept")

// retryFallbackLater asks for the page to be planned again once the model
// may answer again: its links stay planned meanwhile, not lost.
func (p *Pipeline) retryFallbackLater(ctx context.Context, tx *store.Tx, ev events.Event, pageID, why string) error {
	data := events.ReplanData{PageID: pageID, CauseEventID: ev.ID, CausePageID: pageID, Reason: "LLM fallback retried: " + why}
	out, err := followOn(ev, events.LinksReplan, events.DerivedID(ev, events.LinksReplan+":llm-retry"), data)
	if err != nil {
		return err
	}
	headers := withTrace(ctx, &out, map[string]string{"correlation_id": ev.Correlation()})
	return tx.EnqueueAfter(ctx, out, pageID, headers, p.llmRetryAfter())
}

// defaultLLMRetryAfter is how long a page whose fallback could not reach
// the model waits before it is planned again.
const defaultLLMRetryAfter = time.Minute

func (p *Pipeline) llmRetryAfter() time.Duration {
	if p.LLMRetryAfter > 0 {
		return p.LLMRetryAfter
	}
	return defaultLLMRetryAfter
}

func (p *Pipeline) llmCallsPerPage() int {
	if p.LLMCallsPerPage > 0 {
		return p.LLMCallsPerPage
	}
	return defaultLLMCallsPerPage
}

// modelName is the model the fallback asks, "" when it is off.
func (p *Pipeline) modelName() string {
	if p.LLM == nil {
		return ""
	}
	return p.LLM.Model()
}
