package events

import "strings"

// Event types; each is also the NATS subject its events are published on.
const (
	SiteUpdated      = "site.updated"
	ContentGenerated = "content.generated"
	ContentPublished = "content.published"
	ContentDeleted   = "content.deleted"
	AuditRequested   = "audit.requested"
	AuditProgress    = "audit.progress"
	AuditCompleted   = "audit.completed"
	AuditApply       = "audit.apply"
	AuditApplied     = "audit.applied"
	LinksPlanned     = "links.planned"
	LinksInjected    = "links.injected"
	LinksInserted    = "links.inserted"
	LinksReview      = "links.review"
	LinksReplan      = "links.replan"
	LinksFanout      = "links.fanout"
	LinksRestore     = "links.restore"
	VerifyRequested  = "verify.requested"
	VerifyProgress   = "verify.progress"
	VerifyCompleted  = "verify.completed"
)

// DeadLetterPrefix starts the subject a refused event is moved to:
// "deadletter." followed by the subject it arrived on.
const DeadLetterPrefix = "deadletter."

// Stream groups subjects into one JetStream stream. Stream names cannot
// contain dots, so each stream is named explicitly. A stream binds the
// event types it holds by name, not by a wildcard: an event of a type no
// handler takes ("content.updated") is then refused by the broker when it
// is published, not stored where no consumer would ever read it.
type Stream struct {
	Name     string
	Subjects []string
}

// Streams lists every stream interlinker provisions.
var Streams = []Stream{
	{Name: "SITE", Subjects: []string{SiteUpdated}},
	{Name: "CONTENT", Subjects: []string{ContentGenerated, ContentPublished, ContentDeleted}},
	{Name: "LINKS", Subjects: []string{LinksPlanned, LinksInjected, LinksInserted, LinksReview, LinksReplan, LinksFanout, LinksRestore}},
	{Name: "AUDIT", Subjects: []string{AuditRequested, AuditProgress, AuditCompleted, AuditApply, AuditApplied}},
	{Name: "VERIFY", Subjects: []string{VerifyRequested, VerifyProgress, VerifyCompleted}},
	{Name: "DEADLETTER", Subjects: []string{DeadLetterPrefix + ">"}},
}

// StreamFor returns the name of the stream that holds a subject.
func StreamFor(subject string) (string, bool) {
	for _, s := range Streams {
		for _, pattern := range s.Subjects {
			if prefix, wild := strings.CutSuffix(pattern, ">"); wild && len(subject) > len(prefix) && strings.HasPrefix(subject, prefix) ||
				subject == pattern {
				return s.Name, true
			}
		}
	}
	return "", false
}
