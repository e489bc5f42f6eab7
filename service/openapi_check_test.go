package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/interlinker/interlinker/handlers"
)

// openAPIContract holds every answer the tests get from the API to the
// OpenAPI document the service serves: the route must be in it, the status
// among the route's documented responses, and a JSON body valid against
// that response's schema.
type openAPIContract struct {
	compiler *jsonschema.Compiler
	routes   []contractRoute
	mu       sync.Mutex
	schemas  map[string]*jsonschema.Schema
	checked  map[string]bool // method + " " + template + " " + status
}

type contractRoute struct {
	method, template string
	pattern          *regexp.Regexp
	responses        map[string]map[string]any // status → content type → media object
}

const contractDocURL = "https://interlinker.invalid/openapi.json"

func newOpenAPIContract(t testing.TB, raw []byte) *openAPIContract {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(contractDocURL, inst); err != nil {
		t.Fatalf("openapi.json as a schema resource: %v", err)
	}
	k := &openAPIContract{compiler: c, schemas: map[string]*jsonschema.Schema{}, checked: map[string]bool{}}
	for template, ops := range doc.Paths {
		expr := "^" + handlers.APIPrefix + regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(regexp.QuoteMeta(template), `[^/]+`) + "$"
		for method, op := range ops {
			r := contractRoute{method: strings.ToUpper(method), template: template, pattern: regexp.MustCompile(expr),
				responses: map[string]map[string]any{}}
			for status, resp := range op.Responses {
				r.responses[status] = map[string]any{}
				for ct, media := range resp.Content {
					r.responses[status][ct] = media
				}
			}
			k.routes = append(k.routes, r)
		}
	}
	return k
}

// pointer escapes a JSON pointer token.
func pointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// check reports how an answer breaks the contract, or nil.
func (k *openAPIContract) check(method, path string, status int, contentType string, body []byte) error {
	path, _, _ = strings.Cut(path, "?")
	if path == handlers.OpenAPIPath {
		return nil // the document itself
	}
	var route *contractRoute
	for i := range k.routes {
		r := &k.routes[i]
		if r.method == method && r.pattern.MatchString(path) {
			// The most literal template wins: .../links/ over .../{page_id}/...
			if route == nil || strings.Count(r.template, "{") < strings.Count(route.template, "{") {
				route = r
			}
		}
	}
	if route == nil {
		return fmt.Errorf("%s %s is not in the OpenAPI document", method, path)
	}
	code := fmt.Sprint(status)
	media, ok := route.responses[code]
	if !ok {
		media, ok = route.responses["default"]
		code = "default"
	}
	if !ok {
		return fmt.Errorf("%s %s answered %d, which the document does not list for it", method, route.template, status)
	}
	k.mu.Lock()
	k.checked[method+" "+route.template+" "+fmt.Sprint(status)] = true
	k.mu.Unlock()
	ct, _, _ := strings.Cut(contentType, ";")
	ct = strings.TrimSpace(ct)
	if len(media) == 0 {
		return nil // an answer without a body, as documented
	}
	if _, ok := media[ct]; !ok {
		return fmt.Errorf("%s %s %d: content type %q, the document has %v", method, route.template, status, ct, mapsKeys(media))
	}
	if ct != "application/json" && ct != "application/problem+json" {
		return nil
	}
	loc := contractDocURL + "#/paths/" + pointer(route.template) + "/" + strings.ToLower(method) + "/responses/" + code +
		"/content/" + pointer(ct) + "/schema"
	k.mu.Lock()
	sch, ok := k.schemas[loc]
	if !ok {
		var err error
		if sch, err = k.compiler.Compile(loc); err != nil {
			k.mu.Unlock()
			return fmt.Errorf("compile the schema of %s %s %d: %w", method, route.template, status, err)
		}
		k.schemas[loc] = sch
	}
	k.mu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s %s %d: the body is no JSON: %w", method, route.template, status, err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("%s %s %d: the body breaks its schema: %v\n%.400s", method, route.template, status, err, body)
	}
	return nil
}

func mapsKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// covered lists the method, route and status of every answer checked.
func (k *openAPIContract) covered() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]string, 0, len(k.checked))
	for c := range k.checked {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
