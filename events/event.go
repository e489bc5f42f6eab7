// Package events defines interlinker's event contract: CloudEvents 1.0 in
// structured JSON mode, one event per NATS message, the subject equal to the
// type. It decodes and validates incoming events and encodes outgoing ones.
package events

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// SpecVersion is the only CloudEvents version accepted.
const SpecVersion = "1.0"

// Source is the CloudEvents source of every event interlinker emits.
const Source = "interlinker"

// ErrInvalid marks an event that can never be processed as sent: retrying it
// is pointless, so it goes to the dead-letter subject with the reason.
var ErrInvalid = errors.New("invalid event")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Event is a CloudEvent in structured mode. Data stays raw until the handler
// for its type decodes it into that type's payload.
type Event struct {
	SpecVersion     string     `json:"specversion"`
	ID              string     `json:"id"`
	Source          string     `json:"source"`
	Type            string     `json:"type"`
	SiteID          string     `json:"siteid"`
	Time            *time.Time `json:"time,omitempty"`
	DataContentType string     `json:"datacontenttype,omitempty"`
	CorrelationID   string     `json:"correlationid,omitempty"`
	// TraceParent and TraceState are the CloudEvents distributed-tracing
	// extension: the W3C trace context of the span that produced the
	// event. Follow-on events carry the trace onward.
	TraceParent string          `json:"traceparent,omitempty"`
	TraceState  string          `json:"tracestate,omitempty"`
	Data        json.RawMessage `json:"data"`
}

// maxIDLength keeps ids usable as NATS message ids and database keys.
const maxIDLength = 256

// The W3C trace context's limits: a version-00 traceparent is 55
// characters, and a tracestate holds at most 32 members of 256.
const (
	maxTraceParentLength = 128
	maxTraceStateLength  = 8192
)

// Decode parses and validates one event: the envelope's required attributes,
// a known type, and the data against that type's JSON Schema.
func Decode(raw []byte) (Event, error) {
	if !utf8.Valid(raw) {
		return Event{}, invalid("event is not valid UTF-8")
	}
	var ev Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		var badTime *time.ParseError
		if errors.As(err, &badTime) {
			// Well-formed JSON whose time attribute is no RFC 3339 time.
			return Event{}, invalid("attribute time %q is not an RFC 3339 date-time", badTime.Value)
		}
		return Event{}, invalid("malformed JSON: %v", err)
	}
	switch {
	case ev.SpecVersion != SpecVersion:
		return Event{}, invalid("specversion is %q, want %q", ev.SpecVersion, SpecVersion)
	case ev.ID == "":
		return Event{}, invalid("missing required attribute id")
	case len(ev.ID) > maxIDLength:
		return Event{}, invalid("id is %d bytes, over %d", len(ev.ID), maxIDLength)
	case ev.Source == "":
		return Event{}, invalid("missing required attribute source")
	case ev.Type == "":
		return Event{}, invalid("missing required attribute type")
	case ev.SiteID == "":
		return Event{}, invalid("missing required attribute siteid")
	case len(ev.SiteID) > maxIDLength:
		return Event{}, invalid("siteid is %d bytes, over %d", len(ev.SiteID), maxIDLength)
	case len(bytes.TrimSpace(ev.Data)) == 0 || bytes.Equal(bytes.TrimSpace(ev.Data), []byte("null")):
		return Event{}, invalid("missing required attribute data")
	}
	if len(ev.TraceParent) > maxTraceParentLength || len(ev.TraceState) > maxTraceStateLength {
		return Event{}, invalid("traceparent or tracestate longer than W3C trace context allows")
	}
	if ev.DataContentType != "" && ev.DataContentType != "application/json" {
		return Event{}, invalid("datacontenttype is %q, want application/json", ev.DataContentType)
	}
	if err := validateData(ev.Type, ev.Data); err != nil {
		return Event{}, err
	}
	return ev, nil
}

// DecodeData decodes the event's data into the payload type of its subject.
func DecodeData[T any](ev Event) (T, error) {
	var payload T
	if err := json.Unmarshal(ev.Data, &payload); err != nil {
		return payload, invalid("%s data: %v", ev.Type, err)
	}
	return payload, nil
}

// New builds an event emitted by interlinker.
func New(typ, siteID, id, correlationID string, data any) (Event, error) {
	raw, err := marshal(data)
	if err != nil {
		return Event{}, fmt.Errorf("encode %s data: %w", typ, err)
	}
	now := time.Now().UTC()
	return Event{
		SpecVersion:     SpecVersion,
		ID:              id,
		Source:          Source,
		Type:            typ,
		SiteID:          siteID,
		Time:            &now,
		DataContentType: "application/json",
		CorrelationID:   correlationID,
		Data:            raw,
	}, nil
}

// Encode renders the event in structured JSON mode.
func (ev Event) Encode() ([]byte, error) {
	raw, err := marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", ev.ID, err)
	}
	return raw, nil
}

// marshal encodes v as JSON without escaping <, > and &: events carry
// whole pages of HTML, which json.Marshal's escaping would grow by a
// sixth or more, and a consumer's JSON decoder reads both forms alike.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Correlation is the id that ties every event of one causal chain together:
// the producer's correlation id if it sent one, else the first event's id.
func (ev Event) Correlation() string {
	if ev.CorrelationID != "" {
		return ev.CorrelationID
	}
	return ev.ID
}

// Identity is what makes an event one event: its source and id, as
// CloudEvents defines identity, within its tenant (siteid). Two sites, or
// two sources of one site, may use the same id for different events.
type Identity struct {
	SiteID string
	Source string
	ID     string
}

// Identity returns the event's identity.
func (ev Event) Identity() Identity {
	return Identity{SiteID: ev.SiteID, Source: ev.Source, ID: ev.ID}
}

// MsgID is the Nats-Msg-Id the event is published with, unique per
// (siteid, source, id): JetStream deduplicates by that header per stream,
// so a bare id would let one tenant's event hide another's. The form is
// siteid/source/id with "%" and "/" in each part escaped as %25 and %2F,
// so no two identities share a message id.
func (id Identity) MsgID() string {
	return escapeMsgIDPart(id.SiteID) + "/" + escapeMsgIDPart(id.Source) + "/" + escapeMsgIDPart(id.ID)
}

// MsgID is the event's Nats-Msg-Id (Identity.MsgID).
func (ev Event) MsgID() string { return ev.Identity().MsgID() }

var msgIDEscaper = strings.NewReplacer("%", "%25", "/", "%2F")

func escapeMsgIDPart(s string) string { return msgIDEscaper.Replace(s) }

// DerivedID names the event a stage emits for an input event. It derives
// from the input's whole identity and type, so inputs that share an id
// (from two sites, two sources, or a content.generated and a
// content.published "X") never share a follow-on event, and a retry of the
// stage derives the same id, which JetStream's duplicate window and the
// consumers' inboxes both recognise.
func DerivedID(input Event, stage string) string {
	h := sha256.New()
	for _, part := range []string{input.SiteID, input.Source, input.Type, input.ID, stage} {
		// Each part is length-prefixed, so no two tuples hash the same bytes.
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return stage + "-" + hex.EncodeToString(h.Sum(nil)[:16])
}
