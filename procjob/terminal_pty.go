//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package procjob

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/creack/pty"

	"github.com/jobgen/jobgen/generated/jobs"
)

// openTerminal opens a pseudo-terminal with a window of size (zero
// dimensions defaulted) and returns its master, held by procjob, and its
// slave, which becomes the command's stdin, stdout, stderr and controlling
// terminal.
func openTerminal(size jobs.TerminalSize) (*terminal, *os.File, error) {
	size = withDefaults(size)
	master, tty, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("procjob: open a pseudo-terminal: %w", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Rows: size.Rows, Cols: size.Cols}); err != nil {
		master.Close()
		tty.Close()
		return nil, nil, fmt.Errorf("procjob: terminal size %d×%d: %w", size.Rows, size.Cols, err)
	}
	m, err := pollable(master)
	if err != nil {
		tty.Close()
		return nil, nil, err
	}
	return newTerminal(m), tty, nil
}

// pollable returns a copy of f that the runtime's poller watches, and closes
// f. pty's files are blocking (its ioctls ask for the descriptor, which puts
// a file in blocking mode), and a Read blocked on a blocking file does not
// end when the file is closed: a process that left the job's group while
// holding the terminal would then keep Done waiting. The copy is made under
// ForkLock, so no command started meanwhile inherits it.
func pollable(f *os.File) (*os.File, error) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Dup(int(f.Fd()))
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	name := f.Name()
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("procjob: pseudo-terminal: %w", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("procjob: pseudo-terminal: %w", err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// setSize sets the window size of the terminal f is the master of, through
// the descriptor in place (pty.Setsize would ask for it, and so make f
// blocking).
func setSize(f *os.File, size jobs.TerminalSize) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	ws := pty.Winsize{Rows: size.Rows, Cols: size.Cols}
	var errno syscall.Errno
	if err := conn.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}
