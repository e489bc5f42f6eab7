package events

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schemas holds the JSON Schema of the envelope and of each type's data.
//
//go:embed schemas/*.json
var Schemas embed.FS

const schemaBase = "https://schemas.interlinker.example/"

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

// dataSchemas maps each event type to the schema its data must satisfy.
var dataSchemas = map[string]string{
	SiteUpdated:      "site.updated.json",
	ContentGenerated: "content.generated.json",
	ContentPublished: "content.published.json",
	ContentDeleted:   "content.deleted.json",
	AuditRequested:   "audit.requested.json",
	AuditProgress:    "audit.progress.json",
	AuditCompleted:   "audit.completed.json",
	AuditApply:       "audit.apply.json",
	AuditApplied:     "audit.applied.json",
	LinksPlanned:     "links.planned.json",
	LinksInjected:    "links.injected.json",
	LinksInserted:    "links.inserted.json",
	LinksReview:      "links.review.json",
	LinksReplan:      "links.replan.json",
	LinksFanout:      "links.fanout.json",
	LinksRestore:     "links.restore.json",
	VerifyRequested:  "verify.requested.json",
	VerifyProgress:   "verify.progress.json",
	VerifyCompleted:  "verify.completed.json",
}

// KnownType reports whether interlinker has a schema for the event type.
func KnownType(typ string) bool {
	_, ok := dataSchemas[typ]
	return ok
}

func compileSchemas() (map[string]*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		c := jsonschema.NewCompiler()
		// The schemas' formats (date-time) are rules of the contract, not
		// annotations: a published_at the pipeline cannot read is refused
		// with the schema's reason, by publish and by the service alike.
		c.AssertFormat()
		entries, err := Schemas.ReadDir("schemas")
		if err != nil {
			compileErr = err
			return
		}
		for _, e := range entries {
			raw, err := Schemas.ReadFile("schemas/" + e.Name())
			if err != nil {
				compileErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				compileErr = fmt.Errorf("schema %s: %w", e.Name(), err)
				return
			}
			if err := c.AddResource(schemaBase+e.Name(), doc); err != nil {
				compileErr = fmt.Errorf("schema %s: %w", e.Name(), err)
				return
			}
		}
		compiled = make(map[string]*jsonschema.Schema, len(dataSchemas))
		for typ, file := range dataSchemas {
			s, err := c.Compile(schemaBase + file)
			if err != nil {
				compileErr = fmt.Errorf("compile schema %s: %w", file, err)
				return
			}
			compiled[typ] = s
		}
	})
	return compiled, compileErr
}

func validateData(typ string, data []byte) error {
	schemas, err := compileSchemas()
	if err != nil {
		return fmt.Errorf("load event schemas: %w", err)
	}
	schema, ok := schemas[typ]
	if !ok {
		return invalid("unknown event type %q", typ)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return invalid("%s data: %v", typ, err)
	}
	if err := schema.Validate(inst); err != nil {
		return invalid("%s data fails its schema: %s", typ, schemaReason(err))
	}
	// JSON text carries a NUL only as the escape \u0000 (a raw control
	// byte is malformed), so data without one needs no walk.
	if !bytes.Contains(data, []byte(`\u0000`)) {
		return nil
	}
	if at, found := nulAt(inst, ""); found {
		return invalid("%s data at %s: holds U+0000 (NUL), which no text may carry: HTML treats it as a parse error and Postgres text cannot store it", typ, at)
	}
	return nil
}

// nulAt finds the first string or key holding U+0000 in a decoded JSON
// value, and returns its JSON pointer. A NUL would otherwise pass the
// schema and fail every write of the event, so it would be retried until
// its deliveries ran out instead of refused at once with its reason.
func nulAt(v any, at string) (string, bool) {
	switch v := v.(type) {
	case string:
		return at, strings.ContainsRune(v, 0)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ptr := at + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if strings.ContainsRune(k, 0) {
				return ptr, true
			}
			if where, found := nulAt(v[k], ptr); found {
				return where, true
			}
		}
	case []any:
		for i, e := range v {
			if where, found := nulAt(e, fmt.Sprintf("%s/%d", at, i)); found {
				return where, true
			}
		}
	}
	return "", false
}

// schemaReason flattens a validation error into one line naming each failing
// location, so a dead-lettered event says exactly what is wrong with it.
func schemaReason(err error) string {
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var reasons []string
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			loc := u.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			reasons = append(reasons, fmt.Sprintf("at %s: %s", loc, u.Error.String()))
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	// The detailed output keeps each leaf's own message; the basic one
	// says only "validation failed" for a field reached through a $ref.
	walk(verr.DetailedOutput())
	sort.Strings(reasons)
	if len(reasons) == 0 {
		return verr.Error()
	}
	return strings.Join(reasons, "; ")
}
