// Package examples bundles example sites: their structure (the data of
// site.updated) and their pages (the data of content.generated), with real
// prose written for this project.
package examples

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/interlinker/interlinker/events"
)

//go:embed outdoor-gear
var files embed.FS

// Site is one example site.
type Site struct {
	Structure events.SiteUpdatedData
	Pages     []events.PageInfo // sorted by id
}

// Names lists the bundled example sites.
func Names() []string { return []string{"outdoor-gear"} }

// Load reads a bundled example site. Every page gets version 1.
func Load(name string) (Site, error) {
	var s Site
	raw, err := files.ReadFile(path.Join(name, "site.json"))
	if err != nil {
		return Site{}, fmt.Errorf("example %s: %w", name, err)
	}
	if err := decodeStrict(raw, &s.Structure); err != nil {
		return Site{}, fmt.Errorf("example %s site.json: %w", name, err)
	}
	dir := path.Join(name, "pages")
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		return Site{}, fmt.Errorf("example %s: %w", name, err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		raw, err := files.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return Site{}, fmt.Errorf("example %s page %s: %w", name, id, err)
		}
		var p events.PageInfo
		if err := decodeStrict(raw, &p); err != nil {
			return Site{}, fmt.Errorf("example %s page %s: %w", name, id, err)
		}
		html, err := files.ReadFile(path.Join(dir, id+".html"))
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
	return s, nil
}

func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
