//go:build !evolved

package main

import (
	"context"
	"errors"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// This build's vocabulary is the module's own: a turn ends completed, and
// there is no job/noted fact to write.

func turnEnd() error { return nil }

func writeNote(context.Context, *pgstore.Store, jobs.SessionID, string) error {
	return errors.New("this build knows no job/noted fact")
}
