package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// emittedOnly are the types interlinker emits and never consumes. Every
// other type's data, and page.json which two of them share, is read by a
// handler and must cap every array and string, so that no event can make
// a handler work without bound.
var emittedOnly = map[string]bool{LinksInserted: true, LinksReview: true, AuditProgress: true, AuditCompleted: true, AuditApplied: true,
	VerifyProgress: true, VerifyCompleted: true}

func incomingSchemas() []string {
	files := []string{"page.json"}
	for typ, file := range dataSchemas {
		if !emittedOnly[typ] {
			files = append(files, file)
		}
	}
	slices.Sort(files)
	return files
}

// uncapped are the places allowed no cap, with the reason.
var uncapped = map[string]string{
	"page.json#/properties/html": "bounded in bytes by the site's max_html_bytes, checked after decoding",
}

func TestEveryIncomingArrayAndStringIsCapped(t *testing.T) {
	for _, file := range incomingSchemas() {
		raw, err := Schemas.ReadFile("schemas/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if d, _ := doc["description"].(string); !strings.Contains(d, "Caps") {
			t.Errorf("%s: its description does not state its caps", file)
		}
		walkSchema(file+"#", doc, func(loc string, node map[string]any) {
			if _, ok := uncapped[loc]; ok {
				return
			}
			if hasType(node, "string") && node["maxLength"] == nil {
				t.Errorf("%s: string without maxLength", loc)
			}
			if hasType(node, "array") && node["maxItems"] == nil {
				t.Errorf("%s: array without maxItems", loc)
			}
			if _, isMap := node["additionalProperties"].(map[string]any); isMap && node["maxProperties"] == nil {
				t.Errorf("%s: map without maxProperties", loc)
			}
		})
	}
}

// walkSchema calls visit on every schema object under node, with its JSON
// pointer.
func walkSchema(loc string, node map[string]any, visit func(string, map[string]any)) {
	visit(loc, node)
	for key, v := range node {
		switch key {
		case "properties":
			props, _ := v.(map[string]any)
			for name, p := range props {
				if ps, ok := p.(map[string]any); ok {
					walkSchema(loc+"/properties/"+name, ps, visit)
				}
			}
		case "items", "additionalProperties", "propertyNames":
			if s, ok := v.(map[string]any); ok {
				walkSchema(loc+"/"+key, s, visit)
			}
		}
	}
}

func hasType(node map[string]any, want string) bool {
	switch typ := node["type"].(type) {
	case string:
		return typ == want
	case []any:
		return slices.Contains(typ, any(want))
	}
	return false
}

// decodeData wraps data in an event of type typ and decodes it.
func decodeData(t *testing.T, typ string, data any) error {
	t.Helper()
	ev, err := New(typ, "site-1", "ev-1", "", data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ev.Encode()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Decode(raw)
	return err
}

func capsSite(clusters int) map[string]any {
	cs := make([]map[string]any, clusters)
	for i := range cs {
		cs[i] = map[string]any{"id": fmt.Sprintf("c%d", i), "sector_id": "s", "name": "n", "primary_keyword": "k",
			"attributes": map[string][]string{"terrain": {"mountain"}}}
	}
	return map[string]any{
		"site":       map[string]any{"id": "site-1", "base_url": "https://shop.example", "name": "Shop", "policy": "sag"},
		"sectors":    []map[string]any{{"id": "s", "name": "S", "url": "/s/"}},
		"attributes": []map[string]any{{"id": "terrain", "name": "Terrain", "values": []string{"mountain"}}},
		"clusters":   cs,
	}
}

func capsPage() map[string]any {
	return map[string]any{"id": "p", "url": "/p/", "title": "P", "kind": "supporting", "version": 1, "html": "<p>x</p>"}
}

// refused checks that err is a schema refusal naming the field and, when
// want is set, saying what is wrong with it.
func refused(t *testing.T, what string, err error, field, want string) {
	t.Helper()
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("%s: error %v, want an invalid event", what, err)
		return
	}
	reason := "at " + field + ": " + want
	if !strings.Contains(err.Error(), reason) {
		t.Errorf("%s: reason %q does not say %q", what, err, reason)
	}
}

func TestOverCapArraysAreRefusedNamingTheField(t *testing.T) {
	if err := decodeData(t, SiteUpdated, capsSite(50000)); err != nil {
		t.Fatalf("a site of 50,000 clusters, the cap, is refused: %v", err)
	}
	refused(t, "50,001 clusters", decodeData(t, SiteUpdated, capsSite(50001)), "/clusters", "maxItems: got 50,001, want 50,000")

	site := capsSite(3)
	values := make([]string, 5001)
	for i := range values {
		values[i] = fmt.Sprintf("v%d", i)
	}
	site["attributes"] = []map[string]any{{"id": "terrain", "name": "Terrain", "values": values}}
	refused(t, "5,001 values of an attribute", decodeData(t, SiteUpdated, site), "/attributes/0/values", "maxItems: got 5,001, want 5,000")

	page := capsPage()
	page["keywords"] = make([]string, 101)
	refused(t, "101 keywords", decodeData(t, ContentGenerated, map[string]any{"page": page}), "/page/keywords", "")

	page = capsPage()
	page["attributes"] = map[string][]string{"terrain": make([]string, 101)}
	refused(t, "101 values of a page attribute", decodeData(t, ContentPublished, map[string]any{"page": page}), "/page/attributes/terrain", "")

	page = capsPage()
	names := map[string][]string{}
	for i := range 51 {
		names[fmt.Sprintf("attr-%d", i)] = []string{"x"}
	}
	page["attributes"] = names
	refused(t, "51 page attribute names", decodeData(t, ContentGenerated, map[string]any{"page": page}), "/page/attributes", "")
}

func TestOverLongIdsAreRefusedNamingTheField(t *testing.T) {
	// Caps count characters, not bytes.
	atCap := strings.Repeat("é", 256)
	page := capsPage()
	page["id"] = atCap
	if err := decodeData(t, ContentGenerated, map[string]any{"page": page}); err != nil {
		t.Fatalf("an id of 256 characters, the cap, is refused: %v", err)
	}
	tooLong := strings.Repeat("x", 257)
	page["id"] = tooLong
	refused(t, "page id of 257 characters", decodeData(t, ContentGenerated, map[string]any{"page": page}), "/page/id", "")

	refused(t, "deleted page id", decodeData(t, ContentDeleted, map[string]any{"page_id": tooLong, "version": 1}), "/page_id", "maxLength: got 257, want 256")
	refused(t, "restored page id", decodeData(t, LinksRestore, map[string]any{"page_id": tooLong, "snapshot_id": 1}), "/page_id", "maxLength: got 257, want 256")
	refused(t, "audited cluster id", decodeData(t, AuditRequested, map[string]any{"cluster_id": tooLong}), "/cluster_id", "maxLength: got 257, want 256")

	site := capsSite(5)
	site["clusters"].([]map[string]any)[3]["id"] = tooLong
	refused(t, "cluster id", decodeData(t, SiteUpdated, site), "/clusters/3/id", "maxLength: got 257, want 256")

	page = capsPage()
	page["url"] = "/" + strings.Repeat("a", 2048)
	refused(t, "page url of 2049 characters", decodeData(t, ContentGenerated, map[string]any{"page": page}), "/page/url", "")
}
