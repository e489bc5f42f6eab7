package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store"
)

const tokenUsage = `usage: interlinker token create --site ID [--name NAME]   print a new token for a site (its last line)
       interlinker token list [--site ID]                  list tokens, revoked ones too
       interlinker token revoke ID                         revoke a token`

// tokenCommand manages the HTTP API's per-site tokens.
func tokenCommand(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, tokenUsage)
		return errors.New("token: no action given (create, list or revoke)")
	}
	action, rest := args[0], args[1:]
	if action == "-h" || action == "-help" || action == "--help" || action == "help" {
		fmt.Fprintln(os.Stderr, tokenUsage)
		return flag.ErrHelp
	}
	databaseURL := service.DefaultConfig().DatabaseURL
	var siteID, name string
	s := &settings{fs: flag.NewFlagSet("token "+action, flag.ContinueOnError), takesArgs: true}
	s.String(&databaseURL, "database-url", "the service's PostgreSQL database")
	switch action {
	case "create":
		s.fs.StringVar(&siteID, "site", "", "site the token may read and change (required)")
		s.fs.StringVar(&name, "name", "", "a name to tell the token by, e.g. who holds it")
	case "list":
		s.fs.StringVar(&siteID, "site", "", "list this site's tokens only")
	case "revoke":
	default:
		fmt.Fprintln(os.Stderr, tokenUsage)
		return fmt.Errorf("token: unknown action %q", action)
	}
	s.fs.Usage = func() {
		fmt.Fprintln(s.fs.Output(), tokenUsage)
		s.fs.PrintDefaults()
	}
	if err := s.finish(rest, nil, ""); err != nil {
		return err
	}
	switch {
	case action == "create" && siteID == "":
		return errors.New("token create: --site is required")
	case action == "revoke" && len(s.args) != 1:
		return errors.New("token revoke: give the id of one token (see token list)")
	case action != "revoke" && len(s.args) != 0:
		return fmt.Errorf("token %s: unexpected argument %q", action, s.args[0])
	}
	// Listing or revoking in a database that is not there is a mistyped
	// --database-url; a token made before the service first ran makes it.
	st, err := store.Open(ctx, databaseURL, store.Options{MaxConns: 2, MustExist: action != "create"})
	if err != nil {
		return err
	}
	defer st.Close()

	switch action {
	case "create":
		known, err := st.SiteExists(ctx, siteID)
		if err != nil {
			return err
		}
		if !known {
			// A token may come before its site's first site.updated, so this
			// is no error; a mistyped id would otherwise fail only later,
			// as 404s to whoever holds the token.
			fmt.Fprintf(os.Stderr, "warning: no site %q is known yet; the token answers for it once its site.updated arrives\n", siteID)
		}
		t, secret, err := st.CreateToken(ctx, siteID, name)
		if err != nil {
			return err
		}
		fmt.Printf("token %s for site %s created; it is shown once, keep it now:\n%s\n", t.ID, t.SiteID, secret)
	case "list":
		tokens, err := st.Tokens(ctx, siteID)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "id\tsite\tname\tcreated\trevoked")
		for _, t := range tokens {
			revoked := ""
			if t.RevokedAt != nil {
				revoked = t.RevokedAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.SiteID, t.Name, t.CreatedAt.UTC().Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	case "revoke":
		id := s.args[0]
		ok, err := st.RevokeToken(ctx, id)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("token revoke: no live token %s", id)
		}
		fmt.Printf("token %s revoked\n", id)
	}
	return nil
}
