// Package migrations holds the database schema as goose SQL migrations,
// embedded so the binary migrates its own database at start.
//
// A migration that rewrites rows or builds an index on a table that may
// already be large (every migration from 00009 on) runs outside a
// transaction (-- +goose NO TRANSACTION) and builds its indexes
// CONCURRENTLY, so the service's writers are never blocked behind it; its
// statements are written to be safe to run again after a failure half-way
// (IF NOT EXISTS, WHERE ... IS NULL). An index on a table the same
// migration creates needs neither. TestHeavyMigrationsDoNotBlockWriters
// holds every migration to this.
package migrations

import "embed"

// FS holds every migration file; goose reads them in version order.
//
//go:embed *.sql
var FS embed.FS
