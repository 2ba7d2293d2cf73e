package journal

import (
	"errors"
	"fmt"
)

// ErrArchived: the records a read asked for were moved out of the store into
// an archive by retention (pgstore's Archive, `jobgen journal archive`),
// which removes whole streams whose history is over. A store without
// retention never returns it: every record it accepted stays readable.
var ErrArchived = errors.New("records archived")

// An ArchivedError is a ReadStream that asked for records retention moved
// to an archive: the stream's seqs 1 to Through are there, not in the
// store; a read after Through reads what the stream holds since.
type ArchivedError struct {
	Stream  Stream
	Through uint64
	// Archive names where the records went, as the archiver named it (a
	// journal file), or is empty when the store does not know.
	Archive string
}

func (e *ArchivedError) Error() string {
	where := ""
	if e.Archive != "" {
		where = " into " + e.Archive
	}
	return fmt.Sprintf("stream %q: seqs 1 to %d were archived%s: read them there, or read after seq %d: %v", e.Stream, e.Through, where, e.Through, ErrArchived)
}

// Is makes an ArchivedError match ErrArchived.
func (e *ArchivedError) Is(target error) bool { return target == ErrArchived }
