//go:build !linux

package journal

import (
	"errors"
	"os"
)

// datasync calls f.Sync: this platform has no fdatasync the store uses.
func datasync(f *os.File) error { return f.Sync() }

// lockFile does nothing: the store takes no lock on this platform.
func lockFile(*os.File) error { return nil }

// fallocate is unsupported here: the file grows as it is written.
func fallocate(*os.File, int64, int64) error { return errors.ErrUnsupported }
