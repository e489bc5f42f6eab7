// Package migrations holds the database schema as goose SQL migrations,
// embedded so the binary migrates its own database at start.
package migrations

import "embed"

// FS holds every migration file; goose reads them in version order.
//
//go:embed *.sql
var FS embed.FS
