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
