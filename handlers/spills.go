package handlers

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/interlinker/interlinker/domain/spill"
)

// tempSpills keeps an audit's spills (its link graph, its anchors) in
// temporary files under one directory of TMPDIR, removed with Close, so
// the audit's heap follows neither the site's links nor its anchors. The
// kernel's page cache keeps the files of a small site in memory anyway.
type tempSpills struct {
	dir   string
	files []*os.File
}

func newTempSpills() (*tempSpills, error) {
	dir, err := os.MkdirTemp("", "interlinker-audit-")
	if err != nil {
		return nil, fmt.Errorf("audit spills: %w", err)
	}
	return &tempSpills{dir: dir}, nil
}

// New is a spill in a new file of the directory.
func (t *tempSpills) New() (spill.Spill, error) {
	f, err := os.CreateTemp(t.dir, "spill-")
	if err != nil {
		return nil, fmt.Errorf("audit spill: %w", err)
	}
	t.files = append(t.files, f)
	return fileSpill{f}, nil
}

// Close closes and removes every spill.
func (t *tempSpills) Close() error {
	var errs []error
	for _, f := range t.files {
		errs = append(errs, f.Close())
	}
	t.files = nil
	errs = append(errs, os.RemoveAll(t.dir))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("audit spills: %w", err)
	}
	return nil
}

type fileSpill struct{ f *os.File }

func (s fileSpill) Write(p []byte) (int, error) { return s.f.Write(p) }

// Replay reads the file from its start; the writes are done by then.
func (s fileSpill) Replay() (io.Reader, error) {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("replay spill: %w", err)
	}
	return s.f, nil
}
