package audit

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/interlinker/interlinker/domain/spill"
)

// anchorCounts counts a site's in-body links by target and folded anchor,
// for anchor dominance, without holding the pairs: a site of a million
// pages has millions of them, and the link map is read by source, so no
// target's count is known until every page is read.
//
// Each link is written to a spill of its target's range of pages
// (targetsPerPartition of them), and each range is counted on its own
// once the pages are read: memory holds one range's pairs at a time.
type anchorCounts struct {
	spills     spill.Store
	partitions []anchorPartition
	record     []byte
}

type anchorPartition struct {
	spill spill.Spill
	w     *bufio.Writer
}

// targetsPerPartition is how many targets' anchors are counted at once.
const targetsPerPartition = 4096

// anchorBuffer is each partition's write buffer.
const anchorBuffer = 4 << 10

func newAnchorCounts(spills spill.Store) *anchorCounts {
	return &anchorCounts{spills: spills}
}

// add counts an in-body link to target with the folded anchor f.
func (c *anchorCounts) add(target int32, f foldedAnchor) error {
	k := int(target) / targetsPerPartition
	for len(c.partitions) <= k {
		c.partitions = append(c.partitions, anchorPartition{})
	}
	p := &c.partitions[k]
	if p.spill == nil {
		s, err := c.spills.New()
		if err != nil {
			return fmt.Errorf("audit: spill anchors: %w", err)
		}
		p.spill, p.w = s, bufio.NewWriterSize(s, anchorBuffer)
	}
	// target, the anchor's hash, then its text: the text is kept only
	// for the pairs counted often enough to dominate.
	c.record = binary.AppendUvarint(c.record[:0], uint64(int(target)%targetsPerPartition))
	c.record = binary.LittleEndian.AppendUint64(c.record, f.hash)
	c.record = binary.AppendUvarint(c.record, uint64(len(f.text)))
	c.record = append(c.record, f.text...)
	if _, err := p.w.Write(c.record); err != nil {
		return fmt.Errorf("audit: spill anchors: %w", err)
	}
	return nil
}

// each calls fn for every (target, anchor) pair counted at least floor
// times, a range of targets at a time, with the anchor's text and the
// target's count of anchored links.
func (c *anchorCounts) each(floor int32, fn func(target int32, text string, n, total int32)) error {
	type pair struct {
		target int32
		hash   uint64
	}
	counts := map[pair]int32{}
	texts := map[pair]string{}
	totals := map[int32]int32{}
	for k, p := range c.partitions {
		if p.spill == nil {
			continue
		}
		clear(counts)
		clear(texts)
		clear(totals)
		if err := p.w.Flush(); err != nil {
			return fmt.Errorf("audit: spill anchors: %w", err)
		}
		r, err := p.spill.Replay()
		if err != nil {
			return fmt.Errorf("audit: replay anchors: %w", err)
		}
		br := bufio.NewReaderSize(r, anchorBuffer)
		var text []byte
		for {
			off, err := binary.ReadUvarint(br)
			if errors.Is(err, io.EOF) {
				break
			}
			var hash [8]byte
			var n uint64
			if err == nil {
				if _, err = io.ReadFull(br, hash[:]); err == nil {
					n, err = binary.ReadUvarint(br)
				}
			}
			if err == nil && n > 1<<20 {
				err = fmt.Errorf("anchor of %d bytes", n)
			}
			if err == nil {
				if uint64(cap(text)) < n {
					text = make([]byte, n)
				}
				text = text[:n]
				_, err = io.ReadFull(br, text)
			}
			if err != nil {
				return fmt.Errorf("audit: replay anchors: corrupt spill: %w", err)
			}
			key := pair{int32(k*targetsPerPartition + int(off)), binary.LittleEndian.Uint64(hash[:])}
			counts[key]++
			totals[key.target]++
			if counts[key] == floor {
				texts[key] = string(text)
			}
		}
		for key, n := range counts {
			if n >= floor {
				fn(key.target, texts[key], n, totals[key.target])
			}
		}
	}
	return nil
}
