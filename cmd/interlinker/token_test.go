package main

import (
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/store"
	"github.com/interlinker/interlinker/store/storetest"
)

func TestTokenVerbCreatesListsAndRevokesASitesTokens(t *testing.T) {
	db := storetest.NewDatabase(t)
	// A database that is not there is a mistyped --database-url: listing
	// or revoking neither makes it nor answers from an empty one (an API
	// client trial's revoke made and migrated a database "interlinker").
	for range 2 {
		if _, err := runCapturing(t, "token", "list", "--database-url", db); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("token list in a database that is not there: %v, want it refused", err)
		}
	}
	printed, err := runCapturing(t, "token", "create", "--site", "crema-and-grind", "--name", "ci bot", "--database-url", db)
	if err != nil {
		t.Fatalf("token create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(printed), "\n")
	secret := lines[len(lines)-1]
	if !strings.HasPrefix(secret, store.TokenPrefix) || len(secret) < 40 {
		t.Fatalf("the last line is no token: %q", printed)
	}
	st, err := store.Open(t.Context(), db, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, found, err := st.TokenBySecret(t.Context(), secret)
	if err != nil || !found || tok.SiteID != "crema-and-grind" || tok.Name != "ci bot" {
		t.Fatalf("the printed token is not stored as made: %+v %v %v", tok, found, err)
	}
	// Only its hash is kept.
	all, err := st.Tokens(t.Context(), "")
	if err != nil || len(all) != 1 {
		t.Fatalf("tokens: %v %v", all, err)
	}

	printed, err = runCapturing(t, "token", "list", "--site", "crema-and-grind", "--database-url", db)
	if err != nil || !strings.Contains(printed, tok.ID) || strings.Contains(printed, secret) {
		t.Errorf("token list: %v\n%s", err, printed)
	}
	// Flags may follow the id (trial O's operator revoking a token).
	if _, err := runCapturing(t, "token", "revoke", tok.ID, "--database-url", db); err != nil {
		t.Fatalf("token revoke with the flag after the id: %v", err)
	}
	if _, found, _ := st.TokenBySecret(t.Context(), secret); found {
		t.Error("a revoked token still opens the API")
	}
	if _, err := runCapturing(t, "token", "revoke", "--database-url", db, tok.ID); err == nil || !strings.Contains(err.Error(), "no live token") {
		t.Errorf("revoking twice: %v", err)
	}
	if err := run([]string{"token", "create", "--database-url", db}); err == nil || !strings.Contains(err.Error(), "--site is required") {
		t.Errorf("create without a site: %v", err)
	}
	if err := run([]string{"token", "mint"}); err == nil {
		t.Error("an unknown action was accepted")
	}
	if _, err := runCapturing(t, "token", "revoke", tok.ID, "--database-url", db, "tok_other"); err == nil || !strings.Contains(err.Error(), "one token") {
		t.Errorf("two ids around a flag: %v, want a refusal asking for one", err)
	}
}

func TestTokenHelpPrintsTheUsageAndIsNoError(t *testing.T) {
	for _, h := range []string{"-h", "--help", "help"} {
		if err := run([]string{"token", h}); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("token %s: %v, want the usage and exit status 0 (flag.ErrHelp)", h, err)
		}
	}
}

// A token for a site no site.updated has created yet is made, as one may
// be handed out before the site's first event, with a warning that names
// the site, so a mistyped id shows at once rather than as later 404s.
func TestTokenCreateWarnsOfASiteNotKnownYet(t *testing.T) {
	db := storetest.NewDatabase(t)
	warned, err := capturing(t, &os.Stderr, func() error {
		_, err := runCapturing(t, "token", "create", "--site", "no-such-site", "--database-url", db)
		return err
	})
	if err != nil {
		t.Fatalf("token create: %v", err)
	}
	if !strings.Contains(warned, `no site "no-such-site" is known yet`) {
		t.Errorf("no warning about the unknown site; stderr: %q", warned)
	}
}
