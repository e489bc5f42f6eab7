package web

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"
	"testing"
)

// TestTheVendoredGraphLibraryIsThePinnedOne holds the files in
// static/vendor/ to the hashes VENDOR records for what npm gives for the
// pinned version (vendor.sh): a file edited by hand, or a version changed
// without its hashes, fails here.
func TestTheVendoredGraphLibraryIsThePinnedOne(t *testing.T) {
	raw, err := fs.ReadFile(Static(), "vendor/VENDOR")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != "sha256" {
			continue
		}
		body, err := fs.ReadFile(Static(), "vendor/"+f[2])
		if err != nil {
			t.Errorf("VENDOR names %s: %v", f[2], err)
			continue
		}
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); got != f[1] {
			t.Errorf("%s has sha256 %s, VENDOR says %s: fetch it again with web/vendor.sh", f[2], got, f[1])
		}
		checked++
	}
	if checked != 2 {
		t.Errorf("VENDOR lists %d hashed files, want the library and its license", checked)
	}
	entries, err := fs.ReadDir(Static(), "vendor")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("static/vendor holds %d files, want the library, its license and VENDOR", len(entries))
	}
}
