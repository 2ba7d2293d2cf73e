package upgradetest

import (
	"fmt"

	"github.com/jobgen/jobgen/generated/wire"
)

// A Reading is the history as one build reads it, what the host program
// prints with -read: how many records, how many its strict decoders refuse,
// how many its tolerant readers kept as unknown (and which), how many are
// damaged, and the job intervals.
type Reading struct {
	Records   int             `json:"records"`
	Refused   int             `json:"refused"`
	Unknown   int             `json:"unknown"`
	Kinds     string          `json:"kinds"`
	Damaged   int             `json:"damaged"`
	Intervals []wire.Interval `json:"intervals"`
}

// Counts says the counts in a line.
func (r Reading) Counts() string {
	return fmt.Sprintf("%d records, %d refused, %d unknown (%s), %d damaged", r.Records, r.Refused, r.Unknown, r.Kinds, r.Damaged)
}

// Interval is the interval of job id, if the reading holds one.
func (r Reading) Interval(id string) (wire.Interval, bool) {
	for _, iv := range r.Intervals {
		if iv.JobID.String() == id {
			return iv, true
		}
	}
	return wire.Interval{}, false
}
