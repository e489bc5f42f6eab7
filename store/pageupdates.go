package store

import (
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// pageSet is one assignment of an UPDATE of a page row: column = expr,
// where expr holds at most one "?" for arg.
type pageSet struct {
	column, expr string
	arg          any
}

// pageUpdate is an UPDATE of one page row queued with the writes and not
// sent yet, which later updates of the same row join.
type pageUpdate struct {
	query *pgx.QueuedQuery
	sets  []pageSet
}

// queuePageUpdate queues an UPDATE of a page row's columns, or adds them
// to the one already queued for that row. A page carried through its
// three stages in one transaction had its row written four times, each
// write a new version of a row that holds its HTML twice and its
// validation report; one statement writes it once. The assignments move
// ahead to where the queued update stands: another queued statement on
// the pages table, or the writes sent ahead of a read (SeeWrites), ends
// the joining, so no statement between sees the difference. A column the
// queued update sets already starts a new statement, so each assignment
// keeps its own meaning (inserted_seq = inserted_seq + 1 twice counts
// twice).
func (t *Tx) queuePageUpdate(siteID, pageID string, sets ...pageSet) {
	key := siteID + "\x00" + pageID
	if u, ok := t.pageUpdates[key]; ok && !u.assignsAny(sets) {
		u.sets = append(u.sets, sets...)
		u.query.SQL, u.query.Arguments = pageUpdateSQL(siteID, pageID, u.sets)
		return
	}
	sql, args := pageUpdateSQL(siteID, pageID, sets)
	if t.pageUpdates == nil {
		t.pageUpdates = map[string]*pageUpdate{}
	}
	t.pageUpdates[key] = &pageUpdate{query: t.writes.Queue(sql, args...), sets: slices.Clone(sets)}
}

// assignsAny reports whether one of sets assigns a column u assigns
// already.
func (u *pageUpdate) assignsAny(sets []pageSet) bool {
	for _, s := range sets {
		for _, have := range u.sets {
			if s.column == have.column {
				return true
			}
		}
	}
	return false
}

// pageUpdateSQL is the UPDATE of a page row making the assignments, with
// their arguments after the row's key ($1, $2).
func pageUpdateSQL(siteID, pageID string, sets []pageSet) (string, []any) {
	var b strings.Builder
	args := []any{siteID, pageID}
	b.WriteString("UPDATE pages SET ")
	for i, s := range sets {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.column)
		b.WriteString(" = ")
		before, after, hasArg := strings.Cut(s.expr, "?")
		b.WriteString(before)
		if hasArg {
			args = append(args, s.arg)
			b.WriteString("$" + strconv.Itoa(len(args)))
			b.WriteString(after)
		}
	}
	b.WriteString(" WHERE site_id = $1 AND id = $2")
	return b.String(), args
}
