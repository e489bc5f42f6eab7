package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
	"github.com/interlinker/interlinker/handlers"
)

// readmeFlows returns README's shell blocks marked <!-- api-flow: NAME -->.
func readmeFlows(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flows := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)<!-- api-flow: ([a-z-]+) -->\n```sh\n(.*?)```").FindAllSubmatch(raw, -1) {
		flows[string(m[1])] = string(m[2])
	}
	return flows
}

// runFlow runs README's setup block and then one flow with bash, as a
// reader pasting them into a shell would, and returns what they printed.
func runFlow(t *testing.T, flows map[string]string, name string, env ...string) string {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("README's curl flows need %s: %v", tool, err)
		}
	}
	script := "set -euo pipefail\n" + flows["setup"] + flows[name]
	cmd := exec.CommandContext(t.Context(), "bash", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("README's %s flow: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestTheREADMEsCurlFlowsWorkAsWritten runs the HTTP API section's curl
// blocks as they stand, against a service with both example sites, with
// tokens made by the token verb: a page's links are listed, the review
// queue's best suggestion is accepted and placed, and an audit is run,
// polled, read and applied.
func TestTheREADMEsCurlFlowsWorkAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the service")
	}
	flows := readmeFlows(t)
	for _, name := range []string{"setup", "links", "audit"} {
		if flows[name] == "" {
			t.Fatalf("README has no api-flow block %q", name)
		}
	}
	svc, dbURL := startTestService(t)
	p, err := newProducer(svc.NATSURL())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	ctx := t.Context()
	generated, err := examples.Load("outdoor-gear")
	if err != nil {
		t.Fatal(err)
	}
	existing, err := examples.Load("home-coffee")
	if err != nil {
		t.Fatal(err)
	}
	if err := demoSite(ctx, svc, p, generated); err != nil {
		t.Fatal(err)
	}
	for _, pg := range generated.Pages {
		ev, err := demoEvent(events.ContentGenerated, generated.Structure.Site.ID, "flow-"+pg.ID, events.ContentData{Page: pg})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := publishExisting(ctx, svc, p, existing); err != nil {
		t.Fatal(err)
	}
	if err := waitCalm(ctx, svc); err != nil {
		t.Fatal(err)
	}
	token := func(siteID string) string {
		printed, err := runCapturing(t, "token", "create", "--site", siteID, "--name", "readme", "--database-url", dbURL)
		if err != nil {
			t.Fatalf("token create: %v", err)
		}
		lines := strings.Split(strings.TrimSpace(printed), "\n")
		return lines[len(lines)-1]
	}
	api := "API=http://" + svc.HTTPAddr() + handlers.APIPrefix + "/linker"
	st := svc.Store()

	// The links flow on the generated site.
	siteID, page := generated.Structure.Site.ID, "backpacking-tents"
	out := runFlow(t, flows, "links", api, "SITE="+siteID, "PAGE="+page, "TOKEN="+token(siteID))
	t.Logf("the links flow printed:\n%s", out)
	planned, err := st.LinksFrom(ctx, siteID, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range planned {
		if row := fmt.Sprintf("%s\t%s\t", l.Type, l.Status); !strings.Contains(out, row) {
			t.Errorf("the links flow printed no row %q for %s → %s:\n%s", row, page, l.TargetPageID, out)
		}
	}
	m := regexp.MustCompile(`(?m)^accepted (\S+)$`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, `"kind":"plan","status":"done"`) {
		t.Fatalf("the links flow accepted nothing, or its job did not finish:\n%s", out)
	}
	accepted, found, err := st.Link(ctx, siteID, m[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := waitUntil(ctx, time.Minute, func() bool {
		links, err := st.LinksFrom(ctx, siteID, accepted.SourcePageID)
		if err != nil {
			return false
		}
		for _, l := range links {
			if l.TargetPageID == accepted.TargetPageID && l.Type == accepted.Type {
				accepted = l
				return l.Status != link.StatusReview
			}
		}
		return false
	}); err != nil || !found {
		t.Errorf("the accepted suggestion %s is still %s (found %v): %v", m[1], accepted.Status, found, err)
	}

	// The audit flow on the existing site.
	siteID = existing.Structure.Site.ID
	out = runFlow(t, flows, "audit", api, "SITE="+siteID, "TOKEN="+token(siteID))
	t.Logf("the audit flow printed:\n%s", out)
	if !strings.Contains(out, `"kind":"audit","status":"complete"`) {
		t.Errorf("the audit flow's audit did not complete:\n%s", out)
	}
	applied := regexp.MustCompile(`"kind":"apply","status":"done","applied":(\d+)`).FindStringSubmatch(out)
	if applied == nil || applied[1] == "0" {
		t.Errorf("the audit flow applied nothing:\n%s", out)
	}
	rec, found, err := st.LatestSiteAudit(ctx, siteID)
	if err != nil || !found || rec.Status != "complete" {
		t.Fatalf("latest audit of %s: %+v %v %v", siteID, rec, found, err)
	}
	var report events.AuditCompletedData
	if err := json.Unmarshal(rec.Report, &report); err != nil {
		t.Fatal(err)
	}
	if health := strconv.FormatFloat(report.OverallHealthScore, 'f', -1, 64); !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(health) + `$`).MatchString(out) {
		t.Errorf("the audit flow printed no line with the health score %s:\n%s", health, out)
	}
}
