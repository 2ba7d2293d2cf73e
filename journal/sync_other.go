//go:build !linux

package journal

import "os"

// datasync calls f.Sync: this platform has no fdatasync the store uses.
func datasync(f *os.File) error { return f.Sync() }

// lockFile does nothing: the store takes no lock on this platform.
func lockFile(*os.File) error { return nil }
