package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/interlinker/interlinker/bus"
)

// deadLettersCommand lists the events the pipeline refused, newest last,
// with the reason each was refused: without it an operator needed a NATS
// client to read a header (trial U). --save writes each one's payload to a
// file, to mend and send again with publish, which sends it under the
// producer's original id.
func deadLettersCommand(ctx context.Context, args []string) error {
	natsURL := "nats://127.0.0.1:4250"
	subject, limit, asJSON, saveDir := "", 20, false, ""
	s := &settings{fs: flag.NewFlagSet("dead-letters", flag.ContinueOnError)}
	s.String(&natsURL, "nats-url", "NATS server whose DEADLETTER stream to read (serve's embedded server listens on 127.0.0.1:4250)")
	s.fs.StringVar(&subject, "subject", subject, "only the events that arrived on this subject (content.generated, site.updated, ...)")
	s.fs.IntVar(&limit, "limit", limit, "the newest this many (0: every one)")
	s.fs.BoolVar(&asJSON, "json", asJSON, "print one JSON object a line, payload included")
	s.fs.StringVar(&saveDir, "save", saveDir, "write each payload to DIR/deadletter-SEQ.json, to mend and send again with interlinker publish")
	if err := s.finish(args, nil, ""); err != nil {
		return err
	}
	if limit < 0 {
		return fmt.Errorf("--limit %d: want 0 (every one) or more", limit)
	}
	p, err := newProducer(natsURL)
	if err != nil {
		return err
	}
	defer p.close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	dead, err := bus.ReadDeadLetters(ctx, p.js, subject, limit)
	if err != nil {
		return err
	}
	if saveDir != "" {
		if err := os.MkdirAll(saveDir, 0o755); err != nil {
			return fmt.Errorf("save dead letters: %w", err)
		}
	}
	for _, d := range dead {
		saved := ""
		if saveDir != "" {
			saved = filepath.Join(saveDir, "deadletter-"+strconv.FormatUint(d.Seq, 10)+".json")
			if err := os.WriteFile(saved, d.Payload, 0o644); err != nil {
				return fmt.Errorf("save dead letter #%d: %w", d.Seq, err)
			}
		}
		if asJSON {
			if err := printDeadLetterJSON(d, saved); err != nil {
				return err
			}
			continue
		}
		printDeadLetter(d, saved)
	}
	if !asJSON && len(dead) == 0 {
		fmt.Println("no dead letters")
	}
	return nil
}

// deadLetterEvent is what a dead letter's payload says of itself, as far
// as it can be read: a refused event may be no valid event at all.
type deadLetterEvent struct {
	ID     string `json:"id"`
	SiteID string `json:"siteid"`
	Data   struct {
		PageID string `json:"page_id"`
		Page   struct {
			ID string `json:"id"`
		} `json:"page"`
	} `json:"data"`
}

func readDeadLetterEvent(payload []byte) deadLetterEvent {
	var ev deadLetterEvent
	_ = json.Unmarshal(payload, &ev) // what does not decode stays empty
	if ev.Data.PageID == "" {
		ev.Data.PageID = ev.Data.Page.ID
	}
	return ev
}

func printDeadLetter(d bus.DeadLetter, saved string) {
	ev := readDeadLetterEvent(d.Payload)
	fields := []string{"#" + strconv.FormatUint(d.Seq, 10), d.Time.UTC().Format(time.RFC3339), d.Subject}
	for _, f := range [][2]string{{"handler", d.Handler}, {"deliveries", d.Deliveries}, {"site", ev.SiteID}, {"event", ev.ID}, {"page", ev.Data.PageID}} {
		if f[1] != "" {
			fields = append(fields, f[0]+"="+f[1])
		}
	}
	fmt.Println(strings.Join(fields, " "))
	fmt.Println("  reason:", d.Reason)
	if saved != "" {
		fmt.Println("  saved:", saved)
	}
}

func printDeadLetterJSON(d bus.DeadLetter, saved string) error {
	ev := readDeadLetterEvent(d.Payload)
	line, err := json.Marshal(struct {
		Seq           uint64          `json:"seq"`
		Time          time.Time       `json:"time"`
		Subject       string          `json:"subject"`
		Reason        string          `json:"reason"`
		Handler       string          `json:"handler,omitempty"`
		Deliveries    string          `json:"deliveries,omitempty"`
		OriginalMsgID string          `json:"original_msg_id,omitempty"`
		SiteID        string          `json:"site_id,omitempty"`
		EventID       string          `json:"event_id,omitempty"`
		PageID        string          `json:"page_id,omitempty"`
		Saved         string          `json:"saved,omitempty"`
		Payload       json.RawMessage `json:"payload,omitempty"`
		PayloadText   string          `json:"payload_text,omitempty"`
	}{d.Seq, d.Time.UTC(), d.Subject, d.Reason, d.Handler, d.Deliveries, d.OriginalMsgID, ev.SiteID, ev.ID, ev.Data.PageID, saved,
		jsonPayload(d.Payload), textPayload(d.Payload)})
	if err != nil {
		return fmt.Errorf("dead letter #%d: %w", d.Seq, err)
	}
	fmt.Println(string(line))
	return nil
}

// jsonPayload is the payload as JSON when it is JSON; textPayload is it
// as text when it is not.
func jsonPayload(b []byte) json.RawMessage {
	if json.Valid(b) {
		return b
	}
	return nil
}

func textPayload(b []byte) string {
	if json.Valid(b) {
		return ""
	}
	return string(b)
}
