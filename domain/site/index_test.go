package site

import "testing"

// What other packages derive from a structure is built once per indexed
// structure, and every copy of it shares the result; an unindexed one
// builds it each time.
func TestDerivedIsBuiltOncePerIndexedStructure(t *testing.T) {
	builds := 0
	build := func() any { builds++; return builds }
	var st Structure
	st.Derived("k", build)
	st.Derived("k", build)
	if builds != 2 {
		t.Errorf("an unindexed structure built %d times for 2 calls, want 2", builds)
	}
	st.BuildIndex()
	cp := st
	first, again := st.Derived("k", build), cp.Derived("k", build)
	if builds != 3 || first != again {
		t.Errorf("after BuildIndex: %d builds, results %v and %v; want one build shared by the copy", builds, first, again)
	}
	st.BuildIndex()
	if st.Derived("k", build) == first {
		t.Error("a structure indexed again kept the result derived from its earlier index")
	}
}
