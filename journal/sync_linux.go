package journal

import (
	"errors"
	"os"
	"syscall"
)

// datasync calls fdatasync on f, retrying when a signal interrupts it.
func datasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}

// fallocate allocates the n bytes of f from off, extending the file's size
// when they pass its end; they read as zero bytes until written.
func fallocate(f *os.File, off, n int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Fallocate(int(fd), 0, off, n)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if ferr != nil {
		return &os.PathError{Op: "fallocate", Path: f.Name(), Err: ferr}
	}
	return nil
}

// errLocked reports a journal another process has open for writing.
var errLocked = errors.New("another process has the journal open for writing")

// lockFile takes an exclusive advisory lock on f, failing at once when
// another open file description holds it. The lock ends with the process.
func lockFile(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if lerr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if lerr == syscall.EWOULDBLOCK {
		return errLocked
	}
	return lerr
}
