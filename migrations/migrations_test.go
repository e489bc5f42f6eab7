package migrations

import (
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// firstRuled is the first migration written under the package's rule;
// earlier ones ran before it.
const firstRuled = 9

var (
	createIndex = regexp.MustCompile(`(?i)CREATE\s+(UNIQUE\s+)?INDEX\s+(CONCURRENTLY\s+)?(IF\s+NOT\s+EXISTS\s+)?\w+\s+ON\s+(\w+)`)
	createTable = regexp.MustCompile(`(?i)CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)`)
)

func TestHeavyMigrationsDoNotBlockWriters(t *testing.T) {
	files, err := fs.Glob(FS, "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations: %v", err)
	}
	for _, name := range files {
		version, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil {
			t.Fatalf("%s: no version number: %v", name, err)
		}
		if version < firstRuled {
			continue
		}
		raw, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatal(err)
		}
		up, _, _ := strings.Cut(string(raw), "-- +goose Down")
		created := map[string]bool{}
		for _, m := range createTable.FindAllStringSubmatch(up, -1) {
			created[strings.ToLower(m[2])] = true
		}
		heavy := false
		for _, m := range createIndex.FindAllStringSubmatch(up, -1) {
			if created[strings.ToLower(m[4])] {
				continue
			}
			heavy = true
			if m[2] == "" {
				t.Errorf("%s: index on existing table %s is not built CONCURRENTLY", name, m[4])
			}
		}
		if regexp.MustCompile(`(?i)\bUPDATE\s+\w+\s+SET\b`).MatchString(up) {
			heavy = true
		}
		if heavy && !strings.Contains(up, "-- +goose NO TRANSACTION") {
			t.Errorf("%s rewrites rows or indexes an existing table inside a transaction", name)
		}
	}
}
