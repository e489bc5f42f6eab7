// Package spill declares where a computation too large for memory writes
// what it reads back: a stream written once, then replayed from the start
// as often as needed. An audit of a site of a million pages spills its
// link graph and its anchor counts this way, so its heap follows neither
// the number of links nor the number of anchors.
//
// The domain sees only the interface; the service gives it temporary
// files (handlers), and tests give it memory (Memory).
package spill

import (
	"bytes"
	"io"
)

// Spill is a stream written once and replayed. Writes come first; once
// Replay has been called nothing more is written.
type Spill interface {
	io.Writer
	// Replay reads everything written, from the start. Each call starts
	// a new reader; the one before is done with.
	Replay() (io.Reader, error)
}

// Store makes spills. A computation asks for as many as it needs and lets
// them go when it is done (Close of the store's owner).
type Store interface {
	New() (Spill, error)
}

// Memory is a Store that keeps its spills in memory: for tests, and for
// computations small enough that a file would cost more than it saves.
type Memory struct{}

// New is a spill held in memory.
func (Memory) New() (Spill, error) { return &memorySpill{}, nil }

type memorySpill struct{ buf bytes.Buffer }

func (m *memorySpill) Write(p []byte) (int, error) { return m.buf.Write(p) }

func (m *memorySpill) Replay() (io.Reader, error) { return bytes.NewReader(m.buf.Bytes()), nil }
