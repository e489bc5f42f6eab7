package planning

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// StructureDigest hashes what planning reads of a site besides its pages:
// the structure (site, sectors, attributes, clusters, in their order, which
// breaks ties) and the resolved policy. Two site.updated with the same
// digest plan every page alike, so the second needs no re-plan; any
// difference, a heading override as much as a cluster's keyword, gives
// another digest.
//
// The structure and policy are hashed as their JSON, so a field added to
// either is hashed without this code knowing of it. The policy is hashed
// resolved, not as the overrides were written: overrides in another key
// order, or one spelling out a default, resolve alike.
func StructureDigest(st site.Structure, pol policy.Policy) ([]byte, error) {
	raw, err := json.Marshal(struct {
		Site       site.Site
		Sectors    []site.Sector
		Attributes []site.Attribute
		Clusters   []site.Cluster
		Policy     policy.Policy
	}{st.Site, st.Sectors, st.Attributes, st.Clusters, pol})
	if err != nil {
		return nil, fmt.Errorf("digest structure of site %s: %w", st.Site.ID, err)
	}
	sum := sha256.Sum256(raw)
	return sum[:], nil
}
