package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// TruncateAt cuts the journal at path at offset, the operator's repair for
// corruption that recovery refuses to guess about (the body of `jobgen
// journal repair --truncate-at`): typically the offset a *RecordError
// named, once the operator has decided that the records from there on may
// go. It refuses unless the file before offset is an intact journal that
// ends exactly there — a header and whole, valid records in sequence — so it
// never cuts inside a record or keeps damage. It takes the writer's lock, so
// it fails while a store has the file open. It returns what is kept and how
// many bytes it cut; the cut is synced before it returns.
func TruncateAt(path string, offset int64) (Summary, int64, error) {
	if err := checkRegular(path); err != nil {
		return Summary{}, 0, err
	}
	// Repairing a file that is not there creates nothing: openFile would
	// create an empty journal before the offset check refused it.
	if _, err := os.Stat(path); err != nil {
		return Summary{}, 0, fmt.Errorf("journal: %w", err)
	}
	f, err := openFile(path)
	if err != nil {
		return Summary{}, 0, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return Summary{}, 0, fmt.Errorf("journal %s: %w", path, err)
	}
	if offset < int64(len(header)) || offset > size {
		return Summary{}, 0, fmt.Errorf("journal %s: truncate at %d: want an offset from %d (just the header) to the file's size %d: %w",
			path, offset, len(header), size, ErrInvalid)
	}
	sum, err := scan(io.NewSectionReader(f.(io.ReaderAt), 0, offset), path, newIndex(false), nil)
	if err == nil && sum.Good != offset {
		err = fmt.Errorf("offset %d is not where a record ends (the last whole record before it ends at %d)", offset, sum.Good)
	}
	if err != nil {
		return sum, 0, fmt.Errorf("journal %s: truncate at %d: the file before it is not an intact journal ending there, so nothing was cut: %w", path, offset, errors.Join(err, ErrInvalid))
	}
	if err := f.Truncate(offset); err != nil {
		return sum, 0, fmt.Errorf("journal %s: truncate: %w", path, err)
	}
	if err := syncFile(f); err != nil {
		return sum, 0, fmt.Errorf("journal %s: sync after truncating: %w", path, err)
	}
	return sum, size - offset, nil
}
