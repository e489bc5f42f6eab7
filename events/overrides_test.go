package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/policy"
)

// overridesSchema is the schema of site.updated's data.site.overrides.
func overridesSchema(t *testing.T) map[string]any {
	t.Helper()
	raw, err := Schemas.ReadFile("schemas/site.updated.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties struct {
			Site struct {
				Properties struct {
					Overrides map[string]any `json:"overrides"`
				} `json:"properties"`
			} `json:"site"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Properties.Site.Properties.Overrides
}

// The schema and domain/policy name the same override keys with the same
// JSON types: a key the policy does not know passes a producer's contract
// check and is then dead-lettered by the service ("unknown field"), and a
// policy value missing from the schema cannot be overridden at all.
func TestTheOverridesSchemaNamesEveryPolicyValueWithItsType(t *testing.T) {
	ov := overridesSchema(t)
	if ov["additionalProperties"] != false {
		t.Errorf("overrides take keys the schema does not name: additionalProperties %v", ov["additionalProperties"])
	}
	props, _ := ov["properties"].(map[string]any)
	wantType := map[reflect.Kind]string{reflect.Int: "integer", reflect.Float64: "number", reflect.Bool: "boolean", reflect.String: "string"}
	typ := reflect.TypeFor[policy.Policy]()
	seen := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" || key == "" {
			continue
		}
		seen[key] = true
		p, ok := props[key].(map[string]any)
		if !ok {
			t.Errorf("policy value %s is not in the overrides schema", key)
			continue
		}
		switch {
		case f.Type == reflect.TypeFor[policy.DensityBands]():
			if p["$ref"] != "#/$defs/densityBands" {
				t.Errorf("%s: %v, want the density bands", key, p)
			}
		case wantType[f.Type.Kind()] == "":
			t.Errorf("%s: policy type %s has no JSON type here", key, f.Type)
		case p["type"] != wantType[f.Type.Kind()]:
			t.Errorf("%s: schema type %v, policy type %s (want %q)", key, p["type"], f.Type, wantType[f.Type.Kind()])
		}
	}
	for key := range props {
		if !seen[key] {
			t.Errorf("the overrides schema names %s, which is no policy value", key)
		}
	}
}

// A producer's contract check (events.Decode) takes every policy value as
// an override and refuses a key or a type the policy does not take,
// naming it, before the event is sent.
func TestSiteUpdatedOverridesTakeOnlyPolicyValuesOfTheirType(t *testing.T) {
	withOverrides := func(overrides any) map[string]any {
		d := capsSite(1)
		d["site"].(map[string]any)["overrides"] = overrides
		return d
	}
	for _, name := range []string{policy.SAG, policy.Silo} {
		all, err := policy.Default(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeData(t, SiteUpdated, withOverrides(all)); err != nil {
			t.Errorf("every %s default as an override: %v", name, err)
		}
	}
	if err := decodeData(t, SiteUpdated, withOverrides(map[string]any{"language": "es", "breadcrumb_aria_label": "Ruta de navegación",
		"density_hub": map[string]any{"short": map[string]int{"min": 1}}})); err != nil {
		t.Errorf("a Spanish site's overrides: %v", err)
	}
	for _, c := range []struct {
		what      string
		overrides map[string]any
		at, want  string
	}{
		{"an unknown key", map[string]any{"breadcrumb_label": "Ruta"}, "/site/overrides", "additional properties 'breadcrumb_label' not allowed"},
		{"a number as text", map[string]any{"max_links_per_paragraph": "two"}, "/site/overrides/max_links_per_paragraph", "got string, want integer"},
		{"a fraction for a count", map[string]any{"budget_max": 4.5}, "/site/overrides/budget_max", "got number, want integer"},
		{"an unknown density band", map[string]any{"density_hub": map[string]any{"huge": map[string]int{"min": 1}}}, "/site/overrides/density_hub", "additional properties 'huge' not allowed"},
		{"an over-long label", map[string]any{"breadcrumb_aria_label": strings.Repeat("é", 201)}, "/site/overrides/breadcrumb_aria_label", "maxLength: got 201, want 200"},
	} {
		refused(t, c.what, decodeData(t, SiteUpdated, withOverrides(c.overrides)), c.at, c.want)
	}
}
