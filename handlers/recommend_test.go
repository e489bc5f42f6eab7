package handlers

import (
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/audit"
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
