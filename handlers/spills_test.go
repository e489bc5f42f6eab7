package handlers

import (
	"io"
	"os"
	"testing"
)

func TestAnAuditsSpillsReplayWhatWasWrittenAndGoWithClose(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	spills, err := newTempSpills()
	if err != nil {
		t.Fatal(err)
	}
	s, err := spills.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"links ", "of a ", "site"} {
		if _, err := io.WriteString(s, part); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 2 {
		r, err := s.Replay()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "links of a site" {
			t.Errorf("replay %d gave %q", round+1, got)
		}
	}
	if err := spills.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spills.dir); !os.IsNotExist(err) {
		t.Errorf("the spills' directory is still there after Close: %v", err)
	}
}
