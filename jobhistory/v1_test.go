package jobhistory_test

import (
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

// The intervals of the committed v1 journal, written by the first release,
// read with today's build.
func TestV1JournalIntervals(t *testing.T) {
	const v1Journal = "../journal/testdata/jobs-v1.journal"
	ivs, err := jobhistory.Intervals(journal.Facts(journal.ReadFile(v1Journal), jobs.DecodeFact))
	if err != nil || len(ivs) != 3 {
		t.Fatalf("Intervals = %d, %v; want 3", len(ivs), err)
	}
	if iv := ivs[0]; !iv.Complete || iv.Label != "build" || iv.SettledAt-iv.RegisteredAt != 4200 {
		t.Errorf("first interval = %+v", iv)
	}
}
