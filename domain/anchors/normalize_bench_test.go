package anchors

import (
	"testing"
	"time"
)

// BenchmarkNormalizeVsReference normalizes anchor texts as planning meets
// them (titles, keywords, some normalized already) with Normalize and, in
// the same run, with the folds of any text (normalizeAny), and
// reports both and their ratio.
func BenchmarkNormalizeVsReference(b *testing.B) {
	texts := []string{"The Complete Guide to Hiking Boots", "hiking boots", "Waterproof  Rain Jackets", "merino wool base layers"}
	timeOf := func(fn func(string) string) time.Duration {
		start := time.Now()
		for i := range b.N {
			_ = fn(texts[i%len(texts)])
		}
		return time.Since(start)
	}
	b.ReportAllocs()
	fast := timeOf(Normalize)
	b.StopTimer()
	reference := timeOf(normalizeAny)
	b.ReportMetric(float64(fast.Nanoseconds())/float64(b.N), "ns/normalize")
	b.ReportMetric(float64(reference.Nanoseconds())/float64(b.N), "ns/reference")
	b.ReportMetric(float64(reference)/float64(fast), "speedup")
}
