package store

import (
	"testing"

	"github.com/interlinker/interlinker/store/storetest"
)

// A pool sized by default (Options.FitToServer) is cut to the
// connections the server allows; a pool set by hand is kept as set.
func TestADefaultSizedPoolIsCutToTheConnectionsTheServerAllows(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	for _, tc := range []struct {
		name string
		fit  bool
	}{{"sized by default", true}, {"set by hand", false}} {
		s, err := Open(t.Context(), url, Options{MaxConns: 100_000, FitToServer: tc.fit})
		if err != nil {
			t.Fatal(err)
		}
		limit := s.ServerConnections()
		got := s.MaxConns()
		s.Close()
		if limit <= 0 {
			t.Fatalf("%s: the server's connections were not read", tc.name)
		}
		want := int32(100_000)
		if tc.fit {
			want = int32(limit)
		}
		if got != want {
			t.Errorf("%s: pool of %d for a server allowing %d, want %d", tc.name, got, limit, want)
		}
	}
}
