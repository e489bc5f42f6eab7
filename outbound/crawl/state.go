package crawl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// stateFormat is the version of the state file's layout; a file of
// another version is refused rather than misread.
const stateFormat = 1

// State is what an import remembers between runs, so an interrupted import
// resumes where it stopped and never sends a page twice.
type State struct {
	Format int    `json:"format"`
	Site   string `json:"site"`
	// Queue is the frontier: URLs found and not fetched yet, in order.
	// Work in flight when the state was written is at its front.
	Queue []Item `json:"queue"`
	// Seen holds every URL queued or fetched in this pass, so none is
	// fetched twice.
	Seen []string `json:"seen"`
	// Published maps each page id published (in any pass) to its URL and
	// the hash of the content sent.
	Published map[string]PublishedPage `json:"published"`
	// Finished says the last pass emptied the frontier; the next run
	// starts a new pass that imports only what was not published yet.
	Finished bool      `json:"finished"`
	Updated  time.Time `json:"updated"`
}

// Item is a URL in the frontier.
type Item struct {
	URL     string    `json:"url"`
	Sitemap bool      `json:"sitemap,omitempty"` // a sitemap or sitemap index, not a page
	LastMod time.Time `json:"lastmod,omitzero"`  // the sitemap's lastmod for the page
}

// PublishedPage is a page the import has sent.
type PublishedPage struct {
	URL  string `json:"url"`
	Hash string `json:"hash"`
}

// NewState is the state of an import that has not run yet.
func NewState(siteID string) *State {
	return &State{Format: stateFormat, Site: siteID, Published: map[string]PublishedPage{}}
}

// LoadState reads the state file at path; a missing file is a new import.
func LoadState(path, siteID string) (*State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(siteID), nil
	}
	if err != nil {
		return nil, fmt.Errorf("crawl: read state: %w", err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("crawl: state file %s is unreadable (remove it to start the import again): %w", path, err)
	}
	if st.Format != stateFormat {
		return nil, fmt.Errorf("crawl: state file %s has format %d, this version reads %d", path, st.Format, stateFormat)
	}
	if st.Site != siteID {
		return nil, fmt.Errorf("crawl: state file %s belongs to site %q, not %q: give --state another file", path, st.Site, siteID)
	}
	if st.Published == nil {
		st.Published = map[string]PublishedPage{}
	}
	return &st, nil
}

// Save writes the state atomically: to a temporary file in the same
// folder, synced, then renamed over the old one, so a crash leaves either
// the old state or the new one, never half of one.
func (st *State) Save(path string) error {
	slices.Sort(st.Seen)
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("crawl: encode state: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("crawl: state folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("crawl: write state: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("crawl: write state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("crawl: write state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("crawl: write state: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("crawl: write state: %w", err)
	}
	// Sync the folder so the rename itself survives a power cut; not every
	// system can, and the file is already whole either way.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
