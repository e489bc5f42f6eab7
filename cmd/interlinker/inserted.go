package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
)

// insertedCommand prints the links.inserted events a downstream publisher
// receives: by default the last of each page of the site, as it stands
// once read, with its verdict and links. Three trials' users wrote a
// JetStream reader of their own to see validation and notes, which the
// HTTP API does not serve whole.
func insertedCommand(ctx context.Context, args []string) error {
	natsURL := "nats://127.0.0.1:4250"
	siteID, pageID, every, asJSON, follow := "", "", false, false, false
	s := &settings{fs: flag.NewFlagSet("inserted", flag.ContinueOnError)}
	s.String(&natsURL, "nats-url", "NATS server whose LINKS stream to read (serve's embedded server listens on 127.0.0.1:4250)")
	s.fs.StringVar(&siteID, "site", siteID, "the site whose pages to print (required)")
	s.fs.StringVar(&pageID, "page", pageID, "only this page")
	s.fs.BoolVar(&every, "all", every, "every event in stream order, not only each page's last")
	s.fs.BoolVar(&asJSON, "json", asJSON, "print each event's data as one JSON object a line, with its site_id and stream seq")
	s.fs.BoolVar(&follow, "follow", follow, "keep printing events as they arrive, in stream order, until interrupted")
	if err := s.finish(args, nil, ""); err != nil {
		return err
	}
	if siteID == "" {
		return errors.New("--site is required")
	}
	p, err := newProducer(natsURL)
	if err != nil {
		return err
	}
	defer p.close()
	show := func(e insertedEvent) error {
		if asJSON {
			return printInsertedJSON(e)
		}
		printInserted(e)
		return nil
	}
	last := map[string]insertedEvent{}
	shown := false // whether --all or --follow printed any event
	err = readInserted(ctx, p.js, siteID, follow, func(e insertedEvent) error {
		if pageID != "" && e.data.PageID != pageID {
			return nil
		}
		if every || follow {
			shown = true
			return show(e)
		}
		last[e.data.PageID] = e
		return nil
	})
	if err != nil {
		return err
	}
	// A page deleted since its last links.inserted is no page of the site
	// now: a help-center trial's listing showed one as current.
	deleted := map[string]int64{}
	if !every && !follow {
		if deleted, err = readDeleted(ctx, p.js, siteID); err != nil {
			return err
		}
	}
	pages := make([]insertedEvent, 0, len(last))
	var gone []string
	for id, e := range last {
		if v, ok := deleted[id]; ok && v >= e.data.Version {
			gone = append(gone, fmt.Sprintf("%s (v%d)", id, v))
			continue
		}
		pages = append(pages, e)
	}
	slices.SortFunc(pages, func(a, b insertedEvent) int { return cmp.Compare(a.data.PageID, b.data.PageID) })
	for _, e := range pages {
		if err := show(e); err != nil {
			return err
		}
	}
	if len(gone) > 0 && !asJSON {
		slices.Sort(gone)
		fmt.Printf("deleted since their last links.inserted: %s\n", strings.Join(gone, ", "))
	}
	// Nothing found fails, as grep does: three trials' scripts read a
	// mistyped site or page id as a site with nothing linked yet.
	switch {
	case follow || shown || len(pages) > 0 || len(gone) > 0:
	case pageID != "":
		return fmt.Errorf("no links.inserted for page %s of site %s", pageID, siteID)
	default:
		return fmt.Errorf("no links.inserted for site %s", siteID)
	}
	return nil
}

// insertedEvent is one links.inserted as the stream holds it.
type insertedEvent struct {
	seq    uint64
	siteID string
	data   events.LinksInsertedData
}

// insertedWait is how long reading waits for the stream's next event
// before taking it as read to its end.
const insertedWait = 2 * time.Second

// readInserted calls fn with every links.inserted of the site in the LINKS
// stream, in stream order, until it has read all those stored when it
// started; with follow, until ctx ends. Other sites' events are passed
// over on their envelope, their data (the linked HTML) left undecoded.
func readInserted(ctx context.Context, js jetstream.JetStream, siteID string, follow bool, fn func(insertedEvent) error) error {
	return readSiteEvents(ctx, js, events.LinksInserted, siteID, follow, func(seq uint64, ev events.Event) error {
		data, err := events.DecodeData[events.LinksInsertedData](ev)
		if err != nil {
			return fmt.Errorf("links.inserted #%d: %w", seq, err)
		}
		return fn(insertedEvent{seq: seq, siteID: ev.SiteID, data: data})
	})
}

// readDeleted is, by page, the latest version the site's content.deleted
// events retire.
func readDeleted(ctx context.Context, js jetstream.JetStream, siteID string) (map[string]int64, error) {
	deleted := map[string]int64{}
	err := readSiteEvents(ctx, js, events.ContentDeleted, siteID, false, func(seq uint64, ev events.Event) error {
		data, err := events.DecodeData[events.ContentDeletedData](ev)
		if err != nil {
			return fmt.Errorf("content.deleted #%d: %w", seq, err)
		}
		deleted[data.PageID] = max(deleted[data.PageID], data.Version)
		return nil
	})
	return deleted, err
}

// readSiteEvents calls fn with every event of the subject and the site in
// its stream, in stream order, until it has read all those stored when it
// started; with follow, until ctx ends.
func readSiteEvents(ctx context.Context, js jetstream.JetStream, subject, siteID string, follow bool, fn func(seq uint64, ev events.Event) error) error {
	stream, ok := events.StreamFor(subject)
	if !ok {
		return fmt.Errorf("no stream holds %s", subject)
	}
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		return fmt.Errorf("read %s: %w", subject, err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return fmt.Errorf("read %s: %w", subject, err)
	}
	pending := info.NumPending
	if pending == 0 && !follow {
		return nil
	}
	for {
		msg, err := cons.Next(jetstream.FetchMaxWait(insertedWait))
		switch {
		case errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, nats.ErrTimeout):
			if ctx.Err() != nil {
				return nil
			}
			if !follow {
				// A stream that stops answering with events still to
				// read would otherwise print part of the site as all of it.
				return fmt.Errorf("read %s: no event for %s with %d still to read", subject, insertedWait, pending)
			}
			continue
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("read %s: %w", subject, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return fmt.Errorf("read %s: %w", subject, err)
		}
		pending = meta.NumPending
		ev, err := events.Decode(msg.Data())
		if err != nil {
			return fmt.Errorf("%s #%d: %w", subject, meta.Sequence.Stream, err)
		}
		if ev.SiteID == siteID {
			if err := fn(meta.Sequence.Stream, ev); err != nil {
				return err
			}
		}
		if pending == 0 && !follow {
			return nil
		}
	}
}

// ownTrailCount labels the breadcrumb links the page's own trail stands
// for (handlers.OwnTrailReason) in a page's counts.
const ownTrailCount link.Status = "breadcrumb in the page's own trail"

// linkedAlreadyCount labels the planned links whose target the page links
// already (markup.LinkedAlready: the writer's own link, or another of
// ours): they wait for nothing (a trial's article linking its hub itself
// was counted as having its uplink planned).
const linkedAlreadyCount link.Status = "target linked already"

// printInserted writes one event as a reader scans it: the page and its
// verdict, its links by status, the rules it fails and the planner's notes.
func printInserted(e insertedEvent) {
	d := e.data
	verdict := "passed"
	if !d.Validation.Passed {
		verdict = "FAILED"
	}
	byStatus := map[string]int{}
	for _, l := range d.Links {
		// A breadcrumb the page's own trail stands for is no work pending,
		// as a planned link is (a trial read 62 of them as such).
		if l.Status == string(link.StatusPlanned) && l.Reason == handlers.OwnTrailReason {
			byStatus[string(ownTrailCount)]++
			continue
		}
		if l.Status == string(link.StatusPlanned) && markup.LinkedAlready(l.Reason) {
			byStatus[string(linkedAlreadyCount)]++
			continue
		}
		byStatus[l.Status]++
	}
	var counts []string
	for _, st := range []link.Status{link.StatusVerified, link.StatusFlagged, link.StatusInserted, link.StatusPlanned, link.StatusReview, link.StatusBroken, link.StatusRemoved, ownTrailCount, linkedAlreadyCount} {
		if n := byStatus[string(st)]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, st))
		}
	}
	// The page's sequence is what a publisher compares (newer wins); the
	// stream's position finds the event in NATS. A trial read the one for
	// the other when only the position was printed.
	line := fmt.Sprintf("%s v%d sequence %d (stream #%d) %s: %d links", d.PageID, d.Version, d.Sequence, e.seq, verdict, len(d.Links))
	if len(counts) > 0 {
		line += " (" + strings.Join(counts, ", ") + ")"
	}
	if d.Reason != "" {
		line += " [" + d.Reason + "]"
	}
	fmt.Println(line)
	for _, r := range d.Validation.Rules {
		if !r.Passed {
			fmt.Printf("  %s %s: %s\n", r.Severity, r.Name, r.Detail)
		}
	}
	for _, l := range d.Links {
		anchor := l.Anchor
		if anchor == "" {
			anchor = "-"
		}
		fmt.Printf("  %-9s %-14s %-15s → %s %q", l.Status, l.Type, l.Zone, l.TargetPageID, anchor)
		if l.Reason != "" {
			fmt.Printf(" (%s)", l.Reason)
		}
		fmt.Println()
	}
	for _, n := range d.Notes {
		fmt.Println("  note:", n)
	}
}

func printInsertedJSON(e insertedEvent) error {
	line, err := json.Marshal(struct {
		Seq    uint64 `json:"seq"`
		SiteID string `json:"site_id"`
		events.LinksInsertedData
	}{e.seq, e.siteID, e.data})
	if err != nil {
		return fmt.Errorf("links.inserted #%d: %w", e.seq, err)
	}
	fmt.Println(string(line))
	return nil
}
