// Package examples bundles example sites: their structure (the data of
// site.updated) and their pages, with real prose written for this project.
//
// Each site is a folder: site.json (the structure), pages/<id>.json (a
// page's fields, decoded strictly) with pages/<id>.html (its HTML), and two
// optional files:
//
//   - example.json, {"existing": true}, marks an existing site: its pages
//     carry the links people wrote by hand and are published as they are
//     (content.published, then an audit), not generated content for the
//     planner (content.generated). Without the file a site is generated
//     content, like outdoor-gear.
//   - deleted.json, ["page-id", ...], names pages that were published and
//     then deleted: they are in Pages like every other page, and a consumer
//     publishes them, then sends content.deleted for each, so links to them
//     are broken.
//
// home-coffee is such an existing site, with defects planted for the audit
// to find; its README.md lists them by page id.
package examples

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/interlinker/interlinker/events"
)

//go:embed outdoor-gear home-coffee
var files embed.FS

// Site is one example site.
type Site struct {
	Structure events.SiteUpdatedData
	Pages     []events.PageInfo // sorted by id, deleted pages included
	// Deleted are the pages published and then deleted (deleted.json), in
	// the file's order; each is one of Pages.
	Deleted []string
	// Existing marks a site whose pages are published as they are, with
	// their hand-written links (example.json), rather than generated.
	Existing bool
}

// Names lists the bundled example sites.
func Names() []string { return []string{"outdoor-gear", "home-coffee"} }

// example is the optional example.json of a site.
type example struct {
	Existing bool `json:"existing"`
}

// Load reads a bundled example site. Every page gets version 1.
func Load(name string) (Site, error) { return load(files, name) }

// load reads the example site in folder name of fsys.
func load(fsys fs.FS, name string) (Site, error) {
	var s Site
	raw, err := fs.ReadFile(fsys, path.Join(name, "site.json"))
	if err != nil {
		return Site{}, fmt.Errorf("example %s: %w", name, err)
	}
	if err := decodeStrict(raw, &s.Structure); err != nil {
		return Site{}, fmt.Errorf("example %s site.json: %w", name, err)
	}
	dir := path.Join(name, "pages")
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return Site{}, fmt.Errorf("example %s: %w", name, err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		raw, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return Site{}, fmt.Errorf("example %s page %s: %w", name, id, err)
		}
		var p events.PageInfo
		if err := decodeStrict(raw, &p); err != nil {
			return Site{}, fmt.Errorf("example %s page %s: %w", name, id, err)
		}
		html, err := fs.ReadFile(fsys, path.Join(dir, id+".html"))
		if err != nil {
			return Site{}, fmt.Errorf("example %s page %s: %w", name, id, err)
		}
		if p.ID != id {
			return Site{}, fmt.Errorf("example %s: file %s holds page %q", name, e.Name(), p.ID)
		}
		p.HTML = string(html)
		p.Version = 1
		s.Pages = append(s.Pages, p)
	}
	sort.Slice(s.Pages, func(i, j int) bool { return s.Pages[i].ID < s.Pages[j].ID })

	var ex example
	if raw, found, err := readOptional(fsys, path.Join(name, "example.json")); err != nil {
		return Site{}, fmt.Errorf("example %s: %w", name, err)
	} else if found {
		if err := decodeStrict(raw, &ex); err != nil {
			return Site{}, fmt.Errorf("example %s example.json: %w", name, err)
		}
	}
	s.Existing = ex.Existing

	if raw, found, err := readOptional(fsys, path.Join(name, "deleted.json")); err != nil {
		return Site{}, fmt.Errorf("example %s: %w", name, err)
	} else if found {
		if err := decodeStrict(raw, &s.Deleted); err != nil {
			return Site{}, fmt.Errorf("example %s deleted.json: %w", name, err)
		}
	}
	known := make(map[string]bool, len(s.Pages))
	for _, p := range s.Pages {
		known[p.ID] = true
	}
	seen := map[string]bool{}
	for _, id := range s.Deleted {
		if !known[id] {
			return Site{}, fmt.Errorf("example %s deleted.json: %q is no page of the site", name, id)
		}
		if seen[id] {
			return Site{}, fmt.Errorf("example %s deleted.json: %q is listed twice", name, id)
		}
		seen[id] = true
	}
	return s, nil
}

// readOptional reads a file that a site may leave out; found is false when
// it does.
func readOptional(fsys fs.FS, name string) (raw []byte, found bool, err error) {
	raw, err = fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return raw, err == nil, err
}

func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
