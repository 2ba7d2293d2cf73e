package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/journal"
)

// Exit statuses. A finding is something in the specs, the generated tree or
// a journal that a person must change; a failure is the command being unable
// to do its work at all. CI can tell "the change breaks something" (1) from
// "the check itself did not run" (3). See docs/decisions/0041-exit-codes.md.
const (
	exitOK       = 0
	exitFindings = 1 // invalid spec, breaking finding, stale or conflicting generated file, damaged journal
	exitUsage    = 2 // bad command line: unknown command or flag, missing --against, a --spec matching nothing
	exitFailure  = 3 // could not read or write a file, git failed, internal error
)

const exitText = `Exit status:

	0  success: valid specs, an up-to-date tree, no breaking changes
	1  findings: invalid specs, breaking changes, stale or conflicting
	   generated files, a damaged journal
	2  usage: an unknown command or flag, a missing argument, a --spec
	   that matches no file
	3  failure: a file that cannot be read or written (a missing --against
	   file too), git failing, an internal error
`

// A reporter prints problems and remembers the worst exit status they call for.
type reporter struct {
	stderr io.Writer
	code   int
}

func newReporter(stderr io.Writer) *reporter { return &reporter{stderr: stderr} }

// raise records an exit status; findings never hide a failure or usage error.
func (r *reporter) raise(code int) {
	if code > r.code {
		r.code = code
	}
}

// err prints an error, one line per spec problem for an ErrorList, and
// records the exit status its kind calls for.
func (r *reporter) err(err error) {
	var list gen.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(r.stderr, e)
		}
		r.raise(exitFindings)
		return
	}
	fmt.Fprintf(r.stderr, "jobgen: %v\n", err)
	r.raise(classify(err))
}

// failf prints a problem that is not a spec's and records code.
func (r *reporter) failf(code int, format string, args ...any) {
	fmt.Fprintf(r.stderr, format+"\n", args...)
	r.raise(code)
}

// classify is the exit status an error other than an ErrorList calls for.
func classify(err error) int {
	var conflict *gen.ConflictError
	switch {
	case errors.As(err, &conflict),
		errors.Is(err, gen.ErrTooLarge),
		errors.Is(err, journal.ErrCorrupt),
		errors.Is(err, journal.ErrTornTail),
		errors.Is(err, journal.ErrNotJournal):
		return exitFindings
	}
	return exitFailure
}
