package journal

import (
	"errors"
	"fmt"
	"strings"
)

// ErrArchived: the records a read asked for were moved out of the store into
// an archive by retention (pgstore's Archive, `jobgen journal archive`),
// which moves what a judge of a stream's history found over, or are not in
// this store because it holds a copy of a stream from a later seq on (an
// archive of a later run). A store without retention never returns it:
// every record it accepted stays readable.
var ErrArchived = errors.New("records archived")

// An ArchivedError is a ReadStream that would miss records: the stream's
// seqs After+1 to Through are not in the store. It is what the read yields
// in place of the first record it misses, whether the records were gone
// when it began or went while it read (it then yielded every seq up to
// After, in order), and the read ends with it. A read after Through reads
// what the stream holds since.
type ArchivedError struct {
	Stream Stream
	// After is the seq the read had reached: every seq up to it was
	// yielded (or, for the first record, asked to be read after).
	After uint64
	// Through is the last seq the store no longer holds.
	Through uint64
	// Ranges are seqs After+1 to Through, in order, each run of them with
	// the archive that holds it; one run per archive the seqs went to.
	Ranges []ArchivedRange
}

// An ArchivedRange is a run of a stream's seqs that went into one archive.
type ArchivedRange struct {
	First, Through uint64
	// Archive names where the records went, as the archiver named it (a
	// journal file), or is empty when the store does not know.
	Archive string
}

func (r ArchivedRange) String() string {
	if r.Archive == "" {
		return fmt.Sprintf("%d to %d", r.First, r.Through)
	}
	return fmt.Sprintf("%d to %d into %s", r.First, r.Through, r.Archive)
}

func (e *ArchivedError) Error() string {
	ranges := e.Ranges
	if len(ranges) == 0 {
		ranges = []ArchivedRange{{First: e.After + 1, Through: e.Through}}
	}
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		parts[i] = r.String()
	}
	return fmt.Sprintf("stream %q: seqs %s were archived: read them there, or read after seq %d: %v",
		e.Stream, strings.Join(parts, ", "), e.Through, ErrArchived)
}

// Is makes an ArchivedError match ErrArchived.
func (e *ArchivedError) Is(target error) bool { return target == ErrArchived }
