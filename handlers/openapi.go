package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
)

// OpenAPIPath is where the API serves its OpenAPI 3.1 document.
const OpenAPIPath = APIPrefix + "/openapi.json"

// OpenAPIDocument is the API's OpenAPI 3.1 document as the service serves
// it, indented: docs/openapi.json keeps a copy for readers who have no
// running service, and a test holds the copy to what is served.
func OpenAPIDocument() ([]byte, error) {
	mux := http.NewServeMux()
	(&API{}).Register(mux)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, OpenAPIPath, nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("serve %s: status %d", OpenAPIPath, rec.Code)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, rec.Body.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("indent the OpenAPI document: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
