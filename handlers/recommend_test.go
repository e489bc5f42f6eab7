package handlers

import (
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

func TestABrokenLinksReasonSaysWhatIsWrongWithItsTarget(t *testing.T) {
	cases := []struct {
		finding  audit.Finding
		want     []string
		wantNone string
	}{
		{audit.Finding{TargetID: "kegging", URL: "https://hop.example/kegging/", Anchor: "Kegging", Detail: audit.DeletedTargetDetail},
			[]string{"kegging", "a deleted page", `"Kegging"`}, "HTTP"},
		// A path the site never sent, found broken by its HTTP check.
		{audit.Finding{URL: "https://hop.example/gone/", Anchor: "Kegging", Detail: "its target answers HTTP 404"},
			[]string{"https://hop.example/gone/", "answers HTTP 404", `"Kegging"`}, "deleted"},
		// A page the site has, which its web server no longer serves.
		{audit.Finding{TargetID: "fit", URL: "https://hop.example/fit/", Anchor: "fit", Detail: "its target answers HTTP 410"},
			[]string{"fit", "https://hop.example/fit/", "answers HTTP 410"}, "deleted"},
	}
	for _, c := range cases {
		got := brokenReason(c.finding)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("reason %q does not say %q", got, w)
			}
		}
		if strings.Contains(got, c.wantNone) || strings.Contains(got, "links to ,") {
			t.Errorf("reason %q says %q, or names no target", got, c.wantNone)
		}
	}
}

// A German trial's anchor used 4 times of 11 was said to be "over 40%":
// what makes it one to vary there is the exact-anchor cap of 3.
func TestADominantAnchorsReasonNamesWhatItIsOver(t *testing.T) {
	p, err := policy.Default(policy.SAG)
	if err != nil {
		t.Fatal(err)
	}
	overCap := dominantAnchorReason(p, audit.Finding{PageID: "hochbeet", Anchor: "hochbeet anlegen", Count: 4, Limit: 11}, false)
	if strings.Contains(overCap, "40%") || !strings.Contains(overCap, "over the cap of 3 uses") {
		t.Errorf("reason %q, want the cap of 3 and no share", overCap)
	}
	overShare := dominantAnchorReason(p, audit.Finding{PageID: "grinders", Anchor: "burr grinder", Count: 3, Limit: 7}, false)
	if want := `anchor "burr grinder" carries 3 of the 7 links to grinders (over 40%)`; overShare != want {
		t.Errorf("reason %q, want %q", overShare, want)
	}
	// Over both, both (a Spanish trial's 5 of 5 said "over 40%" alone).
	both := dominantAnchorReason(p, audit.Finding{PageID: "camino-frances", Anchor: "camino francés", Count: 5, Limit: 5}, false)
	if want := `anchor "camino francés" carries 5 of the 5 links to camino-frances (over 40% and over the cap of 3 uses of one exact anchor per target)`; both != want {
		t.Errorf("reason %q, want %q", both, want)
	}
	// Counted after the audit's own fixes, it says so: a French trial's
	// site showed 5 of 8 where the reason said 4.
	afterFixes := dominantAnchorReason(p, audit.Finding{PageID: "grinders", Anchor: "burr grinder", Count: 4, Limit: 8}, true)
	if want := `anchor "burr grinder" carries 4 of the 8 links to grinders once the fixes recommended before it are applied (over 40% and over the cap of 3 uses of one exact anchor per target)`; afterFixes != want {
		t.Errorf("reason %q, want %q", afterFixes, want)
	}
}

// A French trial's heading link to its hub was said to be "in paragraph
// 0, past the first 2": a link in no paragraph is said to be outside them.
func TestALateUplinkInNoParagraphIsSaidToBeOutsideThem(t *testing.T) {
	if got, want := whereLate(0, 2), "outside the page's paragraphs (in a heading, a list or a table), not in its first 2"; got != want {
		t.Errorf("whereLate(0, 2) = %q, want %q", got, want)
	}
	if got, want := whereLate(12, 2), "in paragraph 12, past the first 2"; got != want {
		t.Errorf("whereLate(12, 2) = %q, want %q", got, want)
	}
}

// A writer is told to work in the target's keyword, else a name that is no
// title with its subtitle (a Spanish trial was told to work in "Camino
// Francés por etapas: de Saint-Jean a Santiago").
func TestAWriterIsToldToWorkInATitleWithoutItsSubtitle(t *testing.T) {
	all := func(link.Anchor) bool { return true }
	title := []link.Anchor{
		{Text: "Camino Francés por etapas: de Saint-Jean a Santiago", Type: link.AnchorPageTitle},
		{Text: "Camino Francés por etapas", Type: link.AnchorPageTitle},
	}
	if got, ok := writersAnchor(title, all); !ok || got != "Camino Francés por etapas" {
		t.Errorf("writersAnchor = %q, %v; want the title without its subtitle", got, ok)
	}
	keyword := append([]link.Anchor{{Text: "camino francés", Type: link.AnchorPrimaryKeyword}}, title...)
	if got, _ := writersAnchor(keyword, all); got != "camino francés" {
		t.Errorf("writersAnchor = %q, want the keyword", got)
	}
	subtitled := title[:1]
	if got, ok := writersAnchor(subtitled, all); !ok || got != subtitled[0].Text {
		t.Errorf("writersAnchor = %q, %v; want the only candidate", got, ok)
	}
	if _, ok := writersAnchor(title, func(link.Anchor) bool { return false }); ok {
		t.Error("writersAnchor took a candidate ok refused")
	}
}
