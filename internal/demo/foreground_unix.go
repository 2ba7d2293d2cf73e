//go:build linux || darwin

package demo

import (
	"os/signal"
	"syscall"
	"unsafe"
)

// Foreground puts the process in a process group of its own and makes that
// group the terminal's foreground, so that the terminal's Ctrl-C (SIGINT to
// the foreground group) reaches the demo and what it left in its group, and
// not the make and go run waiting for it. It does nothing when standard
// input is not a terminal or the process is not in the foreground. The
// function it returns gives the terminal back to the group it was taken
// from; call it before exiting.
func Foreground() (restore func()) {
	const fd = 0 // standard input: the terminal a person types Ctrl-C at
	was, err := tcgetpgrp(fd)
	if err != nil || was != syscall.Getpgrp() {
		return func() {}
	}
	if err := syscall.Setpgid(0, 0); err != nil {
		return func() {}
	}
	// A process outside the foreground that sets the foreground is sent
	// SIGTTOU, which would stop it: ignored for the two calls.
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	if tcsetpgrp(fd, syscall.Getpgrp()) != nil {
		_ = syscall.Setpgid(0, was)
		return func() {}
	}
	return func() {
		signal.Ignore(syscall.SIGTTOU)
		defer signal.Reset(syscall.SIGTTOU)
		_ = tcsetpgrp(fd, was)
	}
}

func tcgetpgrp(fd int) (int, error) {
	var pgid int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(syscall.TIOCGPGRP), uintptr(unsafe.Pointer(&pgid))); errno != 0 {
		return 0, errno
	}
	return int(pgid), nil
}

func tcsetpgrp(fd, pgid int) error {
	id := int32(pgid)
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(syscall.TIOCSPGRP), uintptr(unsafe.Pointer(&id))); errno != 0 {
		return errno
	}
	return nil
}
