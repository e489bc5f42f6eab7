// Command interlinker is the internal-linking service and its tools.
//
//	interlinker serve     run the service for real producers
//	interlinker migrate   create and migrate the database, then exit
//	interlinker demo      link the bundled example site end to end and print a summary
//	interlinker publish   send CloudEvents from JSON files to NATS
//	interlinker dead-letters  list the events the pipeline refused, with why
//	interlinker inserted  print a site's links.inserted: each page's last, its verdict and links
//	interlinker audit     audit a site: request it, show progress, print the report, write CSV files
//	interlinker verify    check a site's link targets over HTTP (the weekly verify_links)
//	interlinker import    crawl a live site and publish its pages as content.published
//	interlinker token     create, list and revoke the HTTP API's per-site tokens
//	interlinker openapi   print the HTTP API's OpenAPI 3.1 document
//	interlinker health    exit 0 when a running serve is ready (container health checks)
//
// Every flag has an INTERLINKER_* environment variable of the same meaning;
// `interlinker VERB -h` lists them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `interlinker gives content sites their internal links.

Usage:
  interlinker serve   [flags]          run the service on --nats-url, or with --embedded-nats on a private JetStream server
  interlinker migrate [flags]          create and migrate the database, then exit
  interlinker demo    [flags]          link the bundled example site end to end and print a summary
  interlinker publish [flags] PATH...  publish CloudEvents from JSON files or directories to NATS
  interlinker dead-letters [flags]     list the events the pipeline refused, with why; --save writes them to mend and publish again
  interlinker inserted --site ID [flags]
                                       print the site's links.inserted: each page's last (--all every one, --follow as they come),
                                       its verdict, failed rules, links and notes; --json one object a line
  interlinker audit   --site ID [--wait] [flags]
                                       audit a site; with --wait show progress, print the report and write CSV files
  interlinker verify  --site ID | --all-sites [--scope internal|all] [--wait]
                                       check a site's link targets over HTTP; with --wait show progress and print the report
  interlinker import  --site ID (--sitemap URL | --start URL) [flags]
                                       crawl a live site (robots.txt honoured, resumable) and publish its pages
  interlinker token   create|list|revoke  manage the HTTP API's per-site tokens
  interlinker openapi                  print the HTTP API's OpenAPI 3.1 document (docs/openapi.json)
  interlinker health  [flags]          exit 0 when a running serve answers /readyz (a container health check)

Run "interlinker VERB -h" for the flags of a verb; each flag also reads an
INTERLINKER_* environment variable (for example --database-url and
INTERLINKER_DATABASE_URL).
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "interlinker:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return errors.New("no verb given")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	verb, rest := args[0], args[1:]
	switch verb {
	case "serve":
		return serve(ctx, rest)
	case "migrate":
		return migrate(ctx, rest)
	case "demo":
		return demo(ctx, rest)
	case "publish":
		return publish(ctx, rest)
	case "dead-letters":
		return deadLettersCommand(ctx, rest)
	case "inserted":
		return insertedCommand(ctx, rest)
	case "audit":
		return auditCommand(ctx, rest)
	case "verify":
		return verifyCommand(ctx, rest)
	case "import":
		return importCommand(ctx, rest)
	case "token":
		return tokenCommand(ctx, rest)
	case "openapi":
		return printOpenAPI(rest)
	case "health":
		return healthCommand(ctx, rest)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown verb %q", verb)
	}
}
