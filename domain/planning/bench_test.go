package planning

import (
	"fmt"
	"testing"

	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// BenchmarkPlanAnArticleAmongOtherClusters plans one supporting article of
// a cluster of 20 on a site of 2 clusters (the baseline) and on one of 100
// more, whose names the plan holds its phrases against
// (anchors.NewOwnersAmong) but links none of: the ratio is what a site's
// other clusters add to a plan. The structures are indexed, as the
// service's are.
func BenchmarkPlanAnArticleAmongOtherClusters(b *testing.B) {
	pol, err := policy.Default(policy.SAG)
	if err != nil {
		b.Fatal(err)
	}
	boots, insoles := bootsCluster(), insolesCluster()
	hub := hubOf(boots)
	page := articleIn(boots, "care", "Caring For Leather Hiking Boots")
	targets := asTargets(0, hub, hubOf(insoles))
	targets = append(targets, asTargets(0, articlesIn(boots, "sib", 19)...)...)
	texts := []string{
		"Good care keeps your hiking boots supple, and our guide to hiking boots covers the rest.",
		"Clean the uppers after every muddy walk with a soft brush and lukewarm water, then let them dry slowly.",
		"Leather needs wax twice a season; insoles need airing after every long day on the trail.",
		"Trail runners and sandals need less care, but waterproof jackets and tents want the same patience.",
		"Store boots with cedar shoe trees in a cool, dry cupboard, never in a hot car boot.",
	}
	input := func(clusters []site.Cluster) Input {
		st := testSite(clusters...)
		st.BuildIndex()
		return Input{Structure: st, Policy: pol, Page: page, Hub: &hub, Targets: targets, Texts: texts, WordCount: 1200}
	}
	many := []site.Cluster{boots, insoles}
	for i := range 100 {
		many = append(many, testCluster(fmt.Sprintf("c%03d", i), fmt.Sprintf("Topic %d Gear", i),
			fmt.Sprintf("topic %d gear", i), "terrain=desert"))
	}
	var nsPerPlan [2]float64 // the baseline runs first
	for k, in := range []Input{input([]site.Cluster{boots, insoles}), input(many)} {
		name := []string{"2 clusters", "102 clusters"}[k]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := PlanPage(b.Context(), in); err != nil {
					b.Fatal(err)
				}
			}
			nsPerPlan[k] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if k == 1 && nsPerPlan[0] > 0 {
				b.ReportMetric(nsPerPlan[1]/nsPerPlan[0], "ratio_to_2_clusters")
			}
		})
	}
}
