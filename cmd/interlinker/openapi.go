package main

import (
	"fmt"
	"os"

	"github.com/interlinker/interlinker/handlers"
)

// printOpenAPI writes the API's OpenAPI document, as the service serves it
// at /api/v1/openapi.json, to standard output: no service or database is
// needed to read the API's contract.
func printOpenAPI(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("openapi takes no arguments, got %q", args)
	}
	doc, err := handlers.OpenAPIDocument()
	if err != nil {
		return err
	}
	if _, err := os.Stdout.Write(doc); err != nil {
		return fmt.Errorf("write the OpenAPI document: %w", err)
	}
	return nil
}
