package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfterReadsSecondsAndHTTPDates(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := map[string]time.Duration{
		"1":    time.Second,
		" 30 ": 30 * time.Second,
		"0":    0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
		"-5":         -1,
		"soon":       -1,
		"":           -1,
		"9999999999": 24 * time.Hour,
	}
	for in, want := range cases {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestTrimMessageKeepsOneShortValidLine(t *testing.T) {
	long := ""
	for range 200 {
		long += "é"
	}
	got := trimMessage("a\n  b\t" + long)
	if len(got) > 310 || got[:4] != "a b " {
		t.Errorf("trimMessage = %q", got)
	}
	for _, r := range got {
		if r == '\uFFFD' {
			t.Fatalf("trimMessage cut a rune: %q", got)
		}
	}
}
