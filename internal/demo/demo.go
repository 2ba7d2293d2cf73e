// Package demo holds what the examples' demos share as programs a person
// starts with make and ends with Ctrl-C: the interrupt is how a demo is
// meant to end, so it ends the demo with status 0 once everything the demo
// started has stopped, and it reaches the demo alone, not the make and go
// run above it (which would otherwise die of the signal and say "Error 1"
// or "Interrupt" over a clean shutdown).
package demo

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jobgen/jobgen/launcher"
)

// Main runs a demo's body as the terminal's foreground, prints its error
// (unless it is a clean interrupt) prefixed with name, and exits with
// Code's status.
func Main(name string, body func() error) {
	restore := Foreground()
	err := body()
	restore()
	if err != nil && Code(err) != 0 {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	}
	os.Exit(Code(err))
}

// Code is the exit status of a demo that returned err: 0 when it finished,
// and 0 when an interrupt (launcher.ErrInterrupted, or the context.Canceled
// of a signal context) ended it and nothing else failed; 1 otherwise, the
// shutdown's own failures included.
func Code(err error) int {
	if err == nil || cleanInterrupt(err) {
		return 0
	}
	return 1
}

// cleanInterrupt reports whether err says only that a signal ended the run:
// a launcher.Interrupted joined with nothing but the cancellation it caused.
func cleanInterrupt(err error) bool {
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		return errors.Is(err, launcher.ErrInterrupted) || errors.Is(err, context.Canceled)
	}
	interrupted := false
	for _, e := range joined.Unwrap() {
		switch {
		case errors.Is(e, launcher.ErrInterrupted):
			interrupted = true
		case errors.Is(e, context.Canceled):
		default:
			return false
		}
	}
	return interrupted
}
