// Package browsertest drives the web UI in headless Chromium (Debian's
// chromium, through chromedp) against a real service: Postgres and an
// embedded NATS JetStream. Its tests skip when chromium is missing and CI
// is unset; under CI they run. BenchmarkLinkMapClusterView measures the
// link map on a generated 100,000-page site.
package browsertest
