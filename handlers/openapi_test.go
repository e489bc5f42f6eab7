package handlers

import (
	"bytes"
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
