package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

func publish(ctx context.Context, args []string) error {
	natsURL := "nats://127.0.0.1:4250"
	validate := true
	s := &settings{fs: flag.NewFlagSet("publish", flag.ContinueOnError), takesArgs: true}
	s.String(&natsURL, "nats-url", "NATS server to publish to (serve's embedded server listens on 127.0.0.1:4250)")
	s.fs.BoolVar(&validate, "validate", true, "check each event against the contract before sending it")
	s.fs.Usage = func() {
		fmt.Fprintln(s.fs.Output(), "usage: interlinker publish [flags] PATH...\n\nPATH is a JSON file holding one CloudEvent or an array of them, or a directory of such files (sent in name order).")
		s.fs.PrintDefaults()
	}
	if err := s.finish(args, nil, ""); err != nil {
		return err
	}
	if len(s.args) == 0 {
		s.fs.Usage()
		return errors.New("no file or directory given")
	}
	files, err := eventFiles(s.args)
	if err != nil {
		return err
	}
	// Every file is read and checked before the first event goes out: a
	// trial's batch with one bad file went out in part, the files before
	// it sent and those after it not.
	type outgoing struct {
		file string
		ev   events.Event
		raw  json.RawMessage
	}
	var send []outgoing
	var bad []error
	for _, f := range files {
		evs, err := readEvents(f)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		for _, raw := range evs {
			ev, err := events.Decode(raw)
			if err != nil {
				anyway, whyNot := envelope(raw)
				switch {
				case whyNot != nil:
					bad = append(bad, fmt.Errorf("%s: %w; %w", f, err, whyNot))
					continue
				case validate:
					bad = append(bad, fmt.Errorf("%s: %w (use --validate=false to send it anyway)", f, err))
					continue
				}
				ev = anyway
			}
			send = append(send, outgoing{f, ev, raw})
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("nothing was sent: %d of the events or files given cannot be: %w", len(bad), errors.Join(bad...))
	}
	p, err := newProducer(natsURL)
	if err != nil {
		return err
	}
	defer p.close()
	for _, o := range send {
		ack, err := p.publishRaw(ctx, o.ev.Type, msgID(o.ev), o.raw)
		if err != nil {
			return fmt.Errorf("%s: %w", o.file, err)
		}
		dup := ""
		if ack.Duplicate {
			dup = " (duplicate id: already stored)"
		}
		fmt.Printf("%s %s %s → %s #%d%s\n", filepath.Base(o.file), o.ev.Type, o.ev.ID, ack.Stream, ack.Sequence, dup)
	}
	return nil
}

func eventFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(matches)
		files = append(files, matches...)
	}
	return files, nil
}

// readEvents reads one event or an array of events from a file.
func readEvents(path string) ([]json.RawMessage, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !json.Valid(raw) {
		// Placed in the file as it stands, before any space is trimmed or
		// an array taken apart (trial W: a file opening on blank lines was
		// placed two lines early, and an array's error had no place).
		return nil, fmt.Errorf("%s: malformed JSON%s cannot be sent, not even with --validate=false: fix the file", path, syntaxAt(raw))
	}
	trimmed := bytes.TrimSpace(raw)
	if bytes.HasPrefix(trimmed, []byte("[")) {
		var list []json.RawMessage
		if err := json.Unmarshal(trimmed, &list); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return list, nil
	}
	return []json.RawMessage{trimmed}, nil
}

// envelope reads what sending an event that fails the contract needs: the
// type, which is its subject, and the identity its Nats-Msg-Id is made of.
// It says so when not even --validate=false can send the event, so that
// publish offers that flag only where it helps. Its JSON was checked with
// the file's (readEvents).
func envelope(raw []byte) (events.Event, error) {
	var ev events.Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		return events.Event{}, fmt.Errorf("its envelope cannot be read, so not even --validate=false can send it: %w", err)
	}
	if err := checkSubject(ev.Type); err != nil {
		return events.Event{}, fmt.Errorf("not even --validate=false can send it: %w", err)
	}
	if _, ok := events.StreamFor(ev.Type); !ok {
		// The streams bind the types the handlers take: the broker would
		// refuse it ("no response from stream").
		return events.Event{}, fmt.Errorf("not even --validate=false can send it: no stream takes event type %q, which no handler reads", ev.Type)
	}
	return ev, nil
}

// syntaxAt says where JSON that does not parse goes wrong, as " (line
// L, column C: what)"; the decoder gives only a byte offset, and a
// producer's file is read by line (trials U and W).
func syntaxAt(raw []byte) string {
	var v any
	err := json.Unmarshal(raw, &v)
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		if err != nil {
			return " (" + err.Error() + ")"
		}
		return ""
	}
	before := raw[:min(int(syntax.Offset), len(raw))]
	line := bytes.Count(before, []byte("\n")) + 1
	column := len(before) - bytes.LastIndexByte(before, '\n') - 1 // Offset counts the byte in error
	return fmt.Sprintf(" (line %d, column %d: %v)", line, column, err)
}

// checkSubject refuses an event type NATS cannot publish on: the subject
// of an event is its type.
func checkSubject(subject string) error {
	if subject == "" || strings.ContainsAny(subject, " \t*>") {
		return fmt.Errorf("event type %q is not a subject", subject)
	}
	return nil
}

// producer publishes events the way the contract asks a producer to.
type producer struct {
	nc *nats.Conn
	js jetstream.JetStream
}

func newProducer(url string) (*producer, error) {
	nc, err := nats.Connect(url, nats.Name("interlinker-producer"), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connect to nats at %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &producer{nc: nc, js: js}, nil
}

func (p *producer) close() { p.nc.Close() }

// msgID is the Nats-Msg-Id the contract asks for, unique per (siteid,
// source, id); none for an event without an id.
func msgID(ev events.Event) string {
	if ev.ID == "" {
		return ""
	}
	return ev.MsgID()
}

// publishRaw sends one event with id as Nats-Msg-Id and waits for the
// stream's acknowledgement.
func (p *producer) publishRaw(ctx context.Context, subject, id string, raw []byte) (*jetstream.PubAck, error) {
	if err := checkSubject(subject); err != nil {
		return nil, err
	}
	msg := &nats.Msg{Subject: subject, Data: raw, Header: nats.Header{}}
	if id != "" {
		msg.Header.Set(nats.MsgIdHdr, id)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ack, err := p.js.PublishMsg(ctx, msg)
	if err != nil {
		return nil, fmt.Errorf("publish %s %s: %w", subject, id, err)
	}
	return ack, nil
}

func (p *producer) publish(ctx context.Context, ev events.Event) error {
	raw, err := ev.Encode()
	if err != nil {
		return err
	}
	_, err = p.publishRaw(ctx, ev.Type, msgID(ev), raw)
	return err
}
