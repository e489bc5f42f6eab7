package handlers

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestTheRepositorysOpenAPIDocumentIsTheOneServed keeps docs/openapi.json
// true: it is regenerated with `go run ./cmd/interlinker openapi >
// docs/openapi.json` whenever a route or its types change.
func TestTheRepositorysOpenAPIDocumentIsTheOneServed(t *testing.T) {
	served, err := OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	kept, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(served, kept) {
		t.Fatal("docs/openapi.json is not the document the API serves: run go run ./cmd/interlinker openapi > docs/openapi.json")
	}
	if !bytes.Contains(served, []byte(`"openapi": "3.1`)) {
		t.Errorf("the document is not OpenAPI 3.1")
	}
}

// TestTheOpenAPIDocumentListsNoStatusTheAPINeverSends: a request that
// fails validation is answered 400, every operation lists 400, and none
// lists huma's 422, which the API never sends.
func TestTheOpenAPIDocumentListsNoStatusTheAPINeverSends(t *testing.T) {
	served, err := OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(served, &doc); err != nil {
		t.Fatal(err)
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if _, listed := op.Responses["422"]; listed {
				t.Errorf("%s %s lists 422", method, path)
			}
			if _, listed := op.Responses["400"]; !listed {
				t.Errorf("%s %s does not list 400", method, path)
			}
		}
	}
}
