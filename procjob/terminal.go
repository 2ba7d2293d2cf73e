package procjob

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A terminal is the pseudo-terminal a job runs under. procjob holds its
// master side: what the job writes to the terminal is read from it, in the
// order it was written, and what the job is sent is written to it, as if
// typed.
type terminal struct {
	master *os.File // pollable, so closing it ends a Read and a write can time out
	keys   typist
}

// newTerminal returns the terminal whose master side is master.
func newTerminal(master *os.File) *terminal {
	return &terminal{master: master, keys: newTypist(master)}
}

// inputWait bounds how long Send waits for a program that does not read its
// input once the terminal's input buffer is full: the caller (a wire
// request, a tool) must not hang on it.
const inputWait = 2 * time.Second

// defaultSize is the size of a terminal whose Options.Terminal leaves a
// dimension zero: the VT100's, which programs assume without one.
var defaultSize = jobs.TerminalSize{Rows: 24, Cols: 80}

func (t *terminal) input() jobs.TerminalInput {
	return jobs.TerminalInput{Send: t.keys.send, Resize: t.resize}
}

// A typist writes the input of many callers to a terminal, one text at a
// time, so that two texts never interleave, and answers each caller within
// inputWait of its call whatever the others do: the wait for the turn of
// a caller behind others counts against the same bound as its write, so n
// callers to a program that has stopped reading wait inputWait each, not
// n × inputWait in turn.
type typist struct {
	to   deadlineWriter
	turn chan struct{} // holds a token while one text is being written
}

// A deadlineWriter is a terminal's input: a write to it ends at the
// deadline set before it.
type deadlineWriter interface {
	io.Writer
	SetWriteDeadline(time.Time) error
}

func newTypist(to deadlineWriter) typist {
	return typist{to: to, turn: make(chan struct{}, 1)}
}

// send writes text to the terminal by the bound: it waits for its turn,
// then writes as much as the program takes until the bound of its call.
func (k typist) send(text string) error {
	deadline := time.Now().Add(inputWait)
	wait := time.NewTimer(inputWait)
	defer wait.Stop()
	select {
	case k.turn <- struct{}{}:
	case <-wait.C:
		return fmt.Errorf("procjob: terminal input: wrote 0 of %d bytes: input sent before is still being written: the program has not read its input for %s", len(text), inputWait)
	}
	defer func() { <-k.turn }()
	// A closed terminal fails the write below; one whose file the poller
	// does not watch (os.ErrNoDeadline) cannot time out, and waits.
	_ = k.to.SetWriteDeadline(deadline)
	n, err := io.WriteString(k.to, text)
	switch {
	case errors.Is(err, os.ErrClosed):
		return errors.New("procjob: terminal input: the terminal has closed: the job has ended")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("procjob: terminal input: wrote %d of %d bytes: the program has not read its input for %s", n, len(text), inputWait)
	case err != nil:
		return fmt.Errorf("procjob: terminal input: wrote %d of %d bytes: %w", n, len(text), err)
	}
	return nil
}

// resize sets the terminal's window size; the kernel sends the terminal's
// foreground process group SIGWINCH.
func (t *terminal) resize(size jobs.TerminalSize) error {
	if size.Rows == 0 || size.Cols == 0 {
		return fmt.Errorf("procjob: terminal size %d×%d: rows and columns must be positive", size.Rows, size.Cols)
	}
	if err := setSize(t.master, size); err != nil {
		return fmt.Errorf("procjob: terminal size %d×%d: %w", size.Rows, size.Cols, err)
	}
	return nil
}

// withDefaults fills a zero dimension of size with the default's.
func withDefaults(size jobs.TerminalSize) jobs.TerminalSize {
	if size.Rows == 0 {
		size.Rows = defaultSize.Rows
	}
	if size.Cols == 0 {
		size.Cols = defaultSize.Cols
	}
	return size
}

// withTerm returns env (nil meaning the caller's environment) with
// TERM=xterm-256color added when it sets no TERM: a terminal job's output is
// read by a console that renders xterm's colours, and a program that finds
// no TERM assumes a terminal that has none.
func withTerm(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "TERM=") {
			return env
		}
	}
	return append(env[:len(env):len(env)], "TERM=xterm-256color")
}
