package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// Open opens the journal at path, creating it when absent, and makes it ready
// for appends after its last valid record. A torn last record is cut off,
// the cut made durable and reported through the logger. Damage before the
// end is an error wrapping ErrCorrupt, as a *RecordError naming the offset,
// and the file is left as it was. A file that is not a journal is an error
// wrapping ErrNotJournal. A version 1 file is rewritten as version 2 (see the
// package documentation), atomically, by renaming a new file over it.
func Open(path string, opts ...Option) (*FileStore, error) {
	c := config{log: slog.New(slog.DiscardHandler), bufBytes: 64 << 10, open: openFile}
	for _, o := range opts {
		o(&c)
	}
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := c.open(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	s := &FileStore{path: path, f: f, bufBytes: c.bufBytes, round: make(chan struct{}), obs: c.obs,
		gc: gathering{arrived: make(chan struct{}, 1)}}
	if err := s.recover(&c); err != nil {
		s.f.Close()
		return nil, err
	}
	return s, nil
}

// checkRegular refuses a path that exists and is not a regular file: a
// directory, or a FIFO or device, whose reads could block forever.
func checkRegular(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil // absent: Open creates it; other errors surface at open
	case fi.IsDir():
		return fmt.Errorf("journal %s: is a directory", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("journal %s: not a regular file (%s): %w", path, fi.Mode().Type(), ErrNotJournal)
	}
	return nil
}

// checkRegularFile is checkRegular for a file that is open, in case path
// was replaced between the check and the open.
func checkRegularFile(path string, f *os.File) error {
	fi, err := f.Stat()
	switch {
	case err != nil:
		return fmt.Errorf("journal %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("journal %s: is a directory", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("journal %s: not a regular file (%s): %w", path, fi.Mode().Type(), ErrNotJournal)
	}
	return nil
}

// recover scans the file, cuts a torn tail, and leaves the file's offset at
// the end of its last valid record, with the index of what it holds.
func (s *FileStore) recover(c *config) error {
	ix := newIndex(true)
	sum, err := scan(s.f, s.path, ix, nil)
	var rerr *RecordError
	switch {
	case errors.Is(err, errEmpty):
		return s.create()
	case errors.As(err, &rerr) && rerr.Kind == ErrTornTail && rerr.Offset == 0:
		c.log.Warn("journal: completing a header cut short", "path", s.path)
		return s.create()
	case errors.As(err, &rerr) && rerr.Kind == ErrTornTail:
		end, serr := s.f.Seek(0, io.SeekEnd)
		if serr != nil {
			return s.fail("seek", serr)
		}
		if err := s.f.Truncate(sum.Good); err != nil {
			return s.fail("truncate torn tail", err)
		}
		if err := syncFile(s.f); err != nil {
			return s.fail("sync after truncating torn tail", err)
		}
		c.log.Warn("journal: cut off torn tail", "path", s.path, "offset", sum.Good,
			"bytes", end-sum.Good, "reason", rerr.Reason, "lastPos", sum.LastPos)
	case err != nil:
		return err
	default:
		if err := s.cutZeroTail(c, sum.Good); err != nil {
			return err
		}
	}
	if ix.version == 1 {
		if err := s.migrate(c); err != nil {
			return err
		}
		return s.recover(c)
	}
	if _, err := s.f.Seek(sum.Good, io.SeekStart); err != nil {
		return s.fail("seek", err)
	}
	s.ix, s.end, s.written, s.synced = ix, sum.Good, sum.Good, ix.lastPos
	return nil
}

// cutZeroTail cuts the zero bytes that follow the records, ending at good,
// off the file: space a store preallocated and did not fill before it
// stopped without closing. They are no damage and hold no record, so the
// cut is not reported as a repair; a later append preallocates again.
func (s *FileStore) cutZeroTail(c *config, good int64) error {
	end, err := s.f.Seek(0, io.SeekEnd)
	if err != nil {
		return s.fail("seek", err)
	}
	if end <= good {
		return nil
	}
	if err := s.f.Truncate(good); err != nil {
		return s.fail("cut the preallocated tail", err)
	}
	c.log.Debug("journal: cut a preallocated tail", "path", s.path, "offset", good, "bytes", end-good)
	return nil
}

// migrate rewrites a version 1 file as version 2: the same records, in
// V1Stream, each keeping its seq as seq and position. The new file is
// written beside the old one, synced and renamed over it, so a crash leaves
// one or the other. It then opens the new file in place of the old.
func (s *FileStore) migrate(c *config) error {
	tmp := s.path + ".v2-migrating"
	out, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return s.fail("migrate to version 2", err)
	}
	defer os.Remove(tmp) // after the rename, there is nothing to remove
	defer out.Close()
	bw := bufio.NewWriterSize(out, 64<<10)
	bw.WriteString(header)
	var line []byte
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return s.fail("seek", err)
	}
	sum, err := scan(s.f, s.path, newIndex(false), func(r Record) bool {
		line = appendRecord(line[:0], r.Pos.Minor, r.Stream, r.Seq, "", r.Payload, metaCRC(r.Payload, r.Stream, ""))
		bw.Write(line)
		return true
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return s.fail("migrate to version 2: write", err)
	}
	if err := datasync(out); err != nil {
		return s.fail("migrate to version 2: sync", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return s.fail("migrate to version 2", err)
	}
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		return s.fail("migrate to version 2: sync directory", err)
	}
	c.log.Info("journal: rewrote a version 1 journal as version 2", "path", s.path,
		"records", sum.Records, "stream", string(V1Stream))
	s.f.Close()
	f, err := c.open(s.path)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	s.f = f
	return nil
}

// create writes the header into an empty or header-torn file and makes the
// file and its directory entry durable.
func (s *FileStore) create() error {
	if err := s.f.Truncate(0); err != nil {
		return s.fail("truncate", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return s.fail("seek", err)
	}
	if _, err := io.WriteString(s.f, header); err != nil {
		return s.fail("write header", err)
	}
	if err := syncFile(s.f); err != nil {
		return s.fail("sync", err)
	}
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		return s.fail("sync directory", err)
	}
	s.ix = newIndex(true)
	s.ix.version = 2
	s.end, s.written, s.synced = int64(len(header)), int64(len(header)), 0
	return nil
}
