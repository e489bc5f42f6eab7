package audit

import (
	"math/rand/v2"
	"testing"
)

func TestLiveSetNumbersTheLivePagesInPageOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64, 65, 1000} {
		var s liveSet
		s.grow(n)
		live := make([]bool, n)
		for i := range live {
			live[i] = rng.IntN(3) > 0
			s.add(live[i])
		}
		count := s.count()
		want := int32(0)
		for i, l := range live {
			if s.has(int32(i)) != l {
				t.Fatalf("n=%d: page %d live %v, want %v", n, i, s.has(int32(i)), l)
			}
			pos := s.pos(int32(i))
			switch {
			case !l && pos != -1:
				t.Fatalf("n=%d: page %d is not live and has position %d", n, i, pos)
			case l && pos != want:
				t.Fatalf("n=%d: live page %d has position %d, want %d", n, i, pos, want)
			}
			if l {
				want++
			}
		}
		if count != want {
			t.Fatalf("n=%d: %d live pages counted, want %d", n, count, want)
		}
	}
}
