package events

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
// contain dots, so each stream is named explicitly and binds a wildcard.
type Stream struct {
	Name     string
	Subjects []string
}

// Streams lists every stream interlinker provisions.
var Streams = []Stream{
	{Name: "SITE", Subjects: []string{"site.>"}},
	{Name: "CONTENT", Subjects: []string{"content.>"}},
	{Name: "LINKS", Subjects: []string{"links.>"}},
	{Name: "AUDIT", Subjects: []string{"audit.>"}},
	{Name: "VERIFY", Subjects: []string{"verify.>"}},
	{Name: "DEADLETTER", Subjects: []string{DeadLetterPrefix + ">"}},
}

// StreamFor returns the name of the stream that holds a subject.
func StreamFor(subject string) (string, bool) {
	for _, s := range Streams {
		for _, pattern := range s.Subjects {
			prefix := pattern[:len(pattern)-1] // "content.>" → "content."
			if len(subject) > len(prefix) && subject[:len(prefix)] == prefix {
				return s.Name, true
			}
		}
	}
	return "", false
}
