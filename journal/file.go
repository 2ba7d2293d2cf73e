package journal

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// A File is what a FileStore needs of its journal file. *os.File is one;
// tests wrap it to inject faults.
//
// A store preallocates an *os.File's tail (see the package documentation,
// "Durability"); another File is preallocated only when it has the method
// Allocate(off, n int64) error, which must make the n bytes from off part
// of the file, reading as zero bytes, extending its size when they pass
// its end. A preallocated File that is also an io.WriterAt has the new
// space filled with zeros and synced before records are written over it.
type File interface {
	io.Reader
	// ReadAt reads records back by offset; it may run while Write does.
	io.ReaderAt
	io.Writer
	io.Seeker
	// Sync makes everything written so far durable.
	Sync() error
	// Truncate cuts the file to size bytes.
	Truncate(size int64) error
	Close() error
}

// openFile is the default way to open a journal file.
func openFile(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// syncFile makes what was written to f durable, with fdatasync where the
// platform has it: the file's data and size, not its timestamps.
func syncFile(f File) error {
	if osf, ok := f.(*os.File); ok {
		return datasync(osf)
	}
	return f.Sync()
}

// syncDir makes a new directory entry in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}

// allocate preallocates n bytes of f from off, or says it cannot.
func allocate(f File, off, n int64) error {
	switch f := f.(type) {
	case *os.File:
		return fallocate(f, off, n)
	case interface{ Allocate(off, n int64) error }:
		return f.Allocate(off, n)
	}
	return errors.ErrUnsupported
}
